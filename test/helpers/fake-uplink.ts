// A stand-in for a machine with a way out, built of network namespaces of the test's own:
// "h" plays the machine, its default routes (IPv4, IPv6) through a fake uplink `up0` — a veth
// whose far end is namespace "o", which forwards nothing and so drops what it gets; "p" and
// "q" are pods behind h (172.31.0.2 and .6), h forwards. Packets to documentation addresses
// go out of h's uplink, and none can leave this machine.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Teardownable } from './apiserver-process.js';

/** The namespaces h (the machine), o (beyond its uplink) and pods p and q behind it; removed on teardown. */
export function fakeUplinkWorld(t: Teardownable): { id: string; h: string; p: string } {
  const id = randomBytes(3).toString('hex');
  const [h, o, p, q] = ['h', 'o', 'p', 'q'].map((s) => `eg-${id}-${s}`) as [string, string, string, string];
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const made: string[] = [];
  t.teardown(() => { for (const n of made.reverse()) try { ip('netns', 'del', n); } catch { /* gone */ } });
  for (const n of [h, o, p, q]) { made.push(n); ip('netns', 'add', n); ip('-n', n, 'link', 'set', 'lo', 'up'); }
  // h's uplink to o: h's default routes (IPv4 and IPv6) go through it.
  ip('-n', h, 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', o);
  ip('-n', h, 'addr', 'add', '203.0.113.1/30', 'dev', 'up0');
  ip('-n', h, 'addr', 'add', '2001:db8:1::1/64', 'dev', 'up0', 'nodad');
  ip('-n', o, 'addr', 'add', '203.0.113.2/30', 'dev', 'eth0');
  ip('-n', o, 'addr', 'add', '2001:db8:1::2/64', 'dev', 'eth0', 'nodad');
  ip('-n', h, 'link', 'set', 'up0', 'up');
  ip('-n', o, 'link', 'set', 'eth0', 'up');
  ip('-n', h, 'route', 'add', 'default', 'via', '203.0.113.2');
  ip('-n', h, '-6', 'route', 'add', 'default', 'via', '2001:db8:1::2');
  // Two pods behind h; h forwards.
  for (const [pod, link, net] of [[p, 'pod0', 0], [q, 'pod1', 4]] as const) {
    ip('-n', h, 'link', 'add', link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod);
    ip('-n', h, 'addr', 'add', `172.31.0.${net + 1}/30`, 'dev', link);
    ip('-n', pod, 'addr', 'add', `172.31.0.${net + 2}/30`, 'dev', 'eth0');
    ip('-n', h, 'link', 'set', link, 'up');
    ip('-n', pod, 'link', 'set', 'eth0', 'up');
    ip('-n', pod, 'route', 'add', 'default', 'via', `172.31.0.${net + 1}`);
  }
  execFileSync('nsenter', [`--net=/run/netns/${h}`, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);

  return { id, h, p };
}

/**
 * A node's uplink inside `netns`: a veth pair whose far end stays in the namespace, `<subnet>.1/24`
 * on `uplink0` and the default route via `<subnet>.2`, as a real node has one (proxy ARP answers
 * for the pods' gateway only then). Nothing sent there leaves the namespace. Returns the address.
 */
export function addNodeUplink(netns: string, subnet = '192.168.250'): string {
  for (const args of [['link', 'add', 'uplink0', 'type', 'veth', 'peer', 'name', 'uplink1'], ['addr', 'add', `${subnet}.1/24`, 'dev', 'uplink0'],
    ['link', 'set', 'uplink0', 'up'], ['link', 'set', 'uplink1', 'up'], ['route', 'add', 'default', 'via', `${subnet}.2`, 'dev', 'uplink0']]) {
    execFileSync('ip', ['-n', netns, ...args]);
  }
  return `${subnet}.1`;
}
