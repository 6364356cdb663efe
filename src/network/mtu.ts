// The pods' MTU when the operator does not set one: the uplink's (the device of the default
// route), less the VXLAN header when traffic may be encapsulated — a pod sending full-size
// segments into the tunnel would otherwise lose them until path MTU discovery catches up.
import type { Netlink, NetnsPath } from '../netlink/index.js';
import { VXLAN_OVERHEAD, type EncapsulationMode } from './routes/model.js';
import { fallbacks } from '../log/fallback.js';
const FALLBACK_MTU = 1500;
const fallback = fallbacks('network-agent');

export async function autoPodMTU(netlink: Netlink, netns: NetnsPath, mode: EncapsulationMode): Promise<number> {
  const uplink = await defaultRouteMTU(netlink, netns).catch((e: unknown) => { fallback('uplink-mtu-unknown-using-1500', { error: e }); return undefined; });
  const mtu = uplink ?? FALLBACK_MTU;
  return mode === 'Never' ? mtu : mtu - VXLAN_OVERHEAD;
}

async function defaultRouteMTU(netlink: Netlink, netns: NetnsPath): Promise<number | undefined> {
  const def = (await netlink.routes(netns, 4)).find((r) => r.dst === 'default' && r.dev);
  if (!def) return undefined;
  return (await netlink.links(netns)).find((l) => l.name === def.dev)?.mtu;
}
