// Public face of capstan's rtnetlink layer. Pick a driver once, where the component is
// wired up; callers only see `Netlink`.
import { AddonNetlink } from './addon.js';
import { Netlink } from './client.js';
import { FakeNetlink } from './fake.js';
import { IpCommandNetlink } from './ip.js';
import type { NetlinkDriver } from './types.js';

export type NetlinkImplementation = 'addon' | 'ip' | 'ip-batch' | 'fake';

export function createNetlinkDriver(impl: NetlinkImplementation): NetlinkDriver {
  switch (impl) {
    case 'addon': return new AddonNetlink();
    case 'ip': return new IpCommandNetlink();
    case 'ip-batch': return new IpCommandNetlink({ ipBatch: true });
    case 'fake': return new FakeNetlink();
  }
}

export function createNetlink(impl: NetlinkImplementation | NetlinkDriver = 'addon'): Netlink {
  return new Netlink(typeof impl === 'string' ? createNetlinkDriver(impl) : impl);
}

export { Netlink } from './client.js';
export { AddonNetlink, FakeNetlink, IpCommandNetlink };
export { NetlinkError } from './errors.js';
export { loadAddon } from './native.js';
export * from './types.js';
