// The link-local and Service addresses this server binds, put on an interface of the node's
// own namespace (NodeLocal DNSCache uses a dummy link; this kernel has no dummy type, so
// `lo`). Only the addresses this process added are removed again.
import { isIPv4, isIPv6 } from 'node:net';
import type { Netlink } from '../netlink/index.js';

export class ListenInterface {
  private added: string[] = [];

  constructor(private netlink: Netlink, private dev = 'lo') {}

  /** Adds each address that is not already on a link here; loopback ones are always there. */
  async ensure(ips: string[]): Promise<string[]> {
    const present = new Set((await this.netlink.addrs(null)).map((a) => a.address));
    for (const ip of new Set(ips)) {
      if (present.has(ip) || ip.startsWith('127.') || ip === '::1' || ip === '0.0.0.0' || ip === '::') continue;
      const prefix = isIPv4(ip) ? 32 : isIPv6(ip) ? 128 : 0;
      if (!prefix) throw new Error(`not an IP address: ${ip}`);
      await this.netlink.apply(null, [{ op: 'addrAdd', dev: this.dev, address: `${ip}/${prefix}`, nodad: isIPv6(ip) ? true : undefined }]);
      this.added.push(`${ip}/${prefix}`);
    }
    return this.added.map((a) => a.split('/')[0]);
  }

  async teardown(): Promise<void> {
    for (const a of this.added.splice(0)) {
      await this.netlink.apply(null, [{ op: 'addrDel', dev: this.dev, address: a }]).catch(() => undefined); // gone with its link already
    }
  }
}
