// Builds the lab's namespaces and links with iproute2. The router joins the segments (one
// bridge each, the router's address on it) and has no other link: nothing leaves the lab.
import { execFileSync } from 'node:child_process';
import type { LabTopology } from './topology.js';

function ip(netns: string | null, args: string[]): void {
  execFileSync('ip', [...(netns ? ['-n', netns] : []), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function sysctl(netns: string, key: string, value: string): void {
  // nsenter, not `ip netns exec`: the latter remounts /sys (PLATFORM-NOTES); /proc/sys/net follows the netns.
  execFileSync('nsenter', [`--net=/run/netns/${netns}`, 'sysctl', '-q', '-w', `${key}=${value}`], { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function listNetns(): string[] {
  try {
    return execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').map((l) => l.split(' ')[0]).filter(Boolean);
  } catch { // no namespaces yet (ip netns list fails before /run/netns exists)
    return [];
  }
}

export function addNetns(name: string): void {
  ip(null, ['netns', 'add', name]);
  ip(name, ['link', 'set', 'lo', 'up']);
}

export function deleteNetns(name: string): void {
  if (!listNetns().includes(name)) return;
  ip(null, ['netns', 'del', name]);
}

export function netnsPids(name: string): number[] {
  try {
    return execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0);
  } catch { // the namespace is gone: no processes in it
    return [];
  }
}

export function buildRouter(t: LabTopology): void {
  const r = t.routerNetns;
  sysctl(r, 'net.ipv4.ip_forward', '1');
  for (const s of t.segments) {
    ip(r, ['link', 'add', s.bridge, 'type', 'bridge']);
    ip(r, ['addr', 'add', `${s.gateway}/24`, 'dev', s.bridge]);
    ip(r, ['link', 'set', s.bridge, 'up']);
  }
}

/** A host in `netns` on `segment`: veth `eth0` there, `routerIf` on the segment's bridge. */
export function attachHost(t: LabTopology, netns: string, routerIf: string, segment: number, address: string): void {
  const r = t.routerNetns;
  const seg = t.segments[segment];
  ip(r, ['link', 'add', routerIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
  ip(r, ['link', 'set', routerIf, 'master', seg.bridge]);
  ip(r, ['link', 'set', routerIf, 'up']);
  ip(netns, ['addr', 'add', `${address}/24`, 'dev', 'eth0']);
  ip(netns, ['link', 'set', 'eth0', 'up']);
  ip(netns, ['route', 'add', 'default', 'via', seg.gateway, 'dev', 'eth0']);
}
