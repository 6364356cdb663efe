// What a node puts into its network namespace: host veths of its pods (named in its IPAM
// records), the VXLAN device, routes to other nodes' blocks (protocol 81), the proxy's
// nftables tables and the agent's outgoing NAT table. Removed with `ip`/`nft` in the caller's namespace.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_VETH_MAC, IPAM, NAT_TABLE, NODE_ROUTE_PROTOCOL, POLICY_TABLE } from '../network/index.js';
import { VXLAN_DEVICE } from '../network/routes/model.js';
import { TABLE_NAME } from '../proxy/nft/backend.js';
import { PROBE_TABLE } from '../proxy/nft/probe.js';

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The link's MAC in this network namespace (not /sys/class/net: sysfs shows the namespace it was mounted in). */
function linkMac(name: string): string | undefined {
  try {
    return (JSON.parse(run('ip', ['-j', 'link', 'show', 'dev', name])) as { address?: string }[])[0]?.address;
  } catch { // no such link
    return undefined;
  }
}

/** Deletes a link; one that went meanwhile (a pod's veth goes with its namespace) is not an error. */
function deleteLink(name: string): boolean {
  try {
    run('ip', ['link', 'del', name]);
    return true;
  } catch (e) {
    if (linkMac(name) === undefined) return false;
    throw e;
  }
}

/** Deletes the host veths the dir's IPAM records name, if they are here and look like ours. */
export function removePodVeths(dataDir: string): string[] {
  const ipamDir = join(dataDir, 'network', 'ipam');
  if (!existsSync(ipamDir)) return [];
  const removed: string[] = [];
  for (const veth of new Set(new IPAM(ipamDir).list().map((a) => a.hostVeth).filter((v): v is string => !!v))) {
    if (linkMac(veth) === HOST_VETH_MAC && deleteLink(veth)) removed.push(`link ${veth}`);
  }
  return removed;
}

/** The node-wide things one node owns in its namespace: the VXLAN device, node routes, the proxy's and the agent's tables (NAT, policy). */
export function removeNodeNetwork(): string[] {
  const removed: string[] = [];
  if (linkMac(VXLAN_DEVICE) !== undefined && deleteLink(VXLAN_DEVICE)) removed.push(`link ${VXLAN_DEVICE}`);
  const routes = run('ip', ['-4', 'route', 'show', 'table', 'main', 'proto', String(NODE_ROUTE_PROTOCOL)]).split('\n').filter(Boolean);
  if (routes.length) {
    run('ip', ['-4', 'route', 'flush', 'table', 'main', 'proto', String(NODE_ROUTE_PROTOCOL)]);
    removed.push(`${routes.length} route(s) to other nodes' pod blocks (proto ${NODE_ROUTE_PROTOCOL})`);
  }
  const owned = new Set([TABLE_NAME, PROBE_TABLE, NAT_TABLE, POLICY_TABLE]);
  for (const line of run('nft', ['list', 'tables']).split('\n')) {
    const [, family, name] = line.trim().split(/\s+/);
    if (!family || !name || !owned.has(name)) continue;
    run('nft', ['delete', 'table', family, name]);
    removed.push(`nft table ${family} ${name}`);
  }
  return removed;
}
