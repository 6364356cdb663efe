// Addresses hollow nodes and their pods report: node i gets an InternalIP in 127.1.0.0/16,
// pods get addresses from their node's spec.podCIDR (set by node IPAM).
//
// Node addresses are dialled (the API server proxies logs and exec to the kubelet at the
// node's InternalIP), so they must be local: every address in 127.0.0.0/8 is on Linux's
// loopback without configuration, and the hollow kubelet API listens on each. 127.1.0.0/16
// stays clear of 127.0.0.1 (localhost), 127.0.1.1 (Debian's hostname line in /etc/hosts)
// and 127.0.0.53/54 (systemd-resolved's stubs), which all live in 127.0.0.0/16.

import { cidrOf, formatIPv4, parseIPv4 } from '../util/index.js';

/** How many hollow nodes get distinct addresses: 254 in each of 127.1.0–255. */
export const maxHollowNodes = 254 * 256;

/** 127.1.x.y for the i-th node (0-based), skipping .0 and .255. */
export function nodeInternalIP(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= maxHollowNodes) throw new RangeError(`hollow node index ${index} is outside 0..${maxHollowNodes - 1}`);
  return `127.1.${Math.floor(index / 254)}.${(index % 254) + 1}`;
}


/** Hands out pod addresses from one node's pod CIDR: not the network, gateway (.1) or broadcast address. */
export class PodIPPool {
  private readonly first: number;
  private readonly last: number;
  private byPod = new Map<string, number>();
  private used = new Set<number>();
  private next: number;

  constructor(readonly cidr: string) {
    const [ip, len] = cidr.split('/');
    const addr = parseIPv4(ip);
    const prefix = Number(len);
    if (addr === undefined || !(prefix >= 0 && prefix <= 30)) throw new Error(`unsupported pod CIDR "${cidr}"`);
    const block = cidrOf(addr, prefix);
    this.first = block.base + 2;
    this.last = block.base + block.size - 2;
    this.next = this.first;
  }

  /** The pod's address: the one it already has when that is free and in range, else the next free one. */
  assign(podKey: string, current?: string): string | undefined {
    const held = this.byPod.get(podKey);
    if (held !== undefined) return formatIPv4(held);
    const n = current === undefined ? undefined : parseIPv4(current);
    if (n !== undefined) {
      if (n >= this.first && n <= this.last && !this.used.has(n)) return this.take(podKey, n);
    }
    const span = this.last - this.first + 1;
    for (let k = 0; k < span; k++) {
      const n = this.first + ((this.next - this.first + k) % span);
      if (this.used.has(n)) continue;
      this.next = n + 1 > this.last ? this.first : n + 1;
      return this.take(podKey, n);
    }
    return undefined;
  }

  private take(podKey: string, n: number): string {
    this.byPod.set(podKey, n);
    this.used.add(n);
    return formatIPv4(n);
  }

  release(podKey: string): void {
    const n = this.byPod.get(podKey);
    if (n === undefined) return;
    this.byPod.delete(podKey);
    this.used.delete(n);
  }

  get size(): number {
    return this.byPod.size;
  }
}
