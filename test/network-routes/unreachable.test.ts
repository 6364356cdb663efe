// Pod addresses without a route never leave the node (issue 13). Real namespaces: node n1
// and node n2 share segment 10.0.1.0/24 on a bridge in namespace "o", which is also n1's
// default gateway (10.0.1.1) — the fake uplink: it forwards nothing, and a netdev counter on
// its port facing n1 counts every packet n1 sends there for a pod address. A pod on each
// node made with the CNI's own ops; one RoutesManager per node over the addon with
// --cluster-cidr 10.244.0.0/16. A hollow node (loopback InternalIP) and a node on another
// subnet without VXLAN annotations are in the cluster but not routed to.
import t from 'tap';
import { execa } from 'execa';
import { realClock } from '../../src/client/index.js';
import { createNetlink, RTN } from '../../src/netlink/index.js';
import { parseCidr } from '../../src/network/cidr.js';
import { nodeNetworkOps, podNetworkOps, randomPodMac } from '../../src/network/index.js';
import { ROUTE_PROTOCOL } from '../../src/network/routes/index.js';
import { inNs, isRoot, newNamespace, ping, type Namespace } from '../native/fixtures/netns.js';
import { node, startCluster } from './cluster.js';

const nl = createNetlink('addon');
const ip = (ns: Namespace, ...args: string[]) => execa('ip', ['-n', ns.name, ...args]);

/** In the namespace: a UDP datagram and a TCP connect to `address`; the error code of each ('ok' if none). */
async function probe(ns: Namespace, address: string): Promise<{ udp: string; tcp: string }> {
  const script = `
    const net = require('node:net'), dgram = require('node:dgram');
    const out = {};
    const s = dgram.createSocket('udp4');
    s.send('x', 9, process.argv[1], (e) => {
      out.udp = e ? e.code : 'ok'; s.close();
      const c = net.connect({ host: process.argv[1], port: 80 });
      const done = (v) => { out.tcp = v; c.destroy(); console.log(JSON.stringify(out)); process.exit(0); };
      c.on('connect', () => done('ok')).on('error', (e) => done(e.code));
      // A connect that gets no answer at all (a dropped SYN) would hang; report it as such.
      setTimeout(() => done('no answer'), 3000).unref();
    });`;
  const r = await inNs(ns, process.execPath, ['-e', script, address]);
  return JSON.parse(r.stdout) as { udp: string; tcp: string };
}

async function eventually(fn: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const start = Date.now();
  while (!(await fn())) {
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

t.test('addresses in the own block without a pod and blocks not routed to are unreachable, not sent to the uplink', { skip: !isRoot && 'needs root' }, async (t) => {
  const o = await newNamespace(t, 'upl');
  const ns = { n1: await newNamespace(t, 'n1'), n2: await newNamespace(t, 'n2') };
  const pods = { n1: await newNamespace(t, 'pn1'), n2: await newNamespace(t, 'pn2') };
  const nodeIP = { n1: '10.0.1.11', n2: '10.0.1.12' };
  await ip(o, 'link', 'add', 'br0', 'type', 'bridge');
  await ip(o, 'addr', 'add', '10.0.1.1/24', 'dev', 'br0');
  await ip(o, 'link', 'set', 'br0', 'up');
  for (const n of ['n1', 'n2'] as const) {
    await ip(o, 'link', 'add', `o-${n}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns[n].name);
    await ip(o, 'link', 'set', `o-${n}`, 'master', 'br0');
    await ip(o, 'link', 'set', `o-${n}`, 'up');
    await ip(ns[n], 'addr', 'add', `${nodeIP[n]}/24`, 'dev', 'eth0');
    await ip(ns[n], 'link', 'set', 'eth0', 'up');
    await ip(ns[n], 'route', 'add', 'default', 'via', '10.0.1.1');
    const p = podNetworkOps({ podIP: podIP(n), hostVeth: `cap${n}`, ifName: 'eth0', netns: pods[n].path, podMac: randomPodMac(), mtu: 1500 });
    await nl.apply(ns[n].path, [...nodeNetworkOps(), ...p.host]);
    await nl.apply(pods[n].path, p.pod);
  }
  await execa('nsenter', [`--net=${o.path}`, 'nft', '-f', '-'], { input: counters('o-n1') });
  const leaked = () => counter(o, 'leaked');

  // Before: an address in n1's own block without a pod follows n1's default route out.
  t.equal((await probe(ns.n1, '10.244.1.77')).udp, 'ok', 'without the routes, a datagram to an unused own-block address is sent');
  await eventually(async () => (await leaked()) > 0, 2000, 'the datagram at the uplink');
  t.pass(`it reached the fake uplink (${await leaked()} packet(s)): the counter sees what leaves`);

  const c = await startCluster(t, {
    nodes: [node('n1', nodeIP.n1, '10.244.1.0/24'), node('n2', nodeIP.n2, '10.244.2.0/24')],
    netns: { n1: ns.n1.path, n2: ns.n2.path }, netlink: nl, clock: realClock, clusterCIDR: parseCidr('10.244.0.0/16'),
  });
  // In the cluster but not routed to: a hollow node and a node across subnets with no VTEP yet.
  await c.nodesAPI.create(undefined, node('hollow-1', '127.0.0.2', '10.244.9.0/24'));
  await c.nodesAPI.create(undefined, node('n3', '10.0.2.13', '10.244.3.0/24'));
  const ours = async (n: 'n1' | 'n2') => (await nl.routes(ns[n].path, 4, { protocol: ROUTE_PROTOCOL })).map((r) => `${r.type === RTN.unreachable ? 'unreachable ' : ''}${r.dst}`).sort();
  await eventually(async () => (await ours('n1')).length === 3 && (await ours('n2')).length === 3 && c.by('n1').manager.last?.desired?.skipped.length === 2, 5000, 'routes on both nodes');
  t.same(await ours('n1'), ['10.244.2.0/24', 'unreachable 10.244.0.0/16', 'unreachable 10.244.1.0/24'], 'n1: a route to n2, its own block and the cluster CIDR unreachable');
  t.match((await ip(ns.n1, 'route', 'show', 'proto', String(ROUTE_PROTOCOL))).stdout, /^unreachable 10\.244\.1\.0\/24/m, 'as `ip route` shows it');

  await execa('nsenter', [`--net=${o.path}`, 'nft', 'reset', 'counters', 'table', 'netdev', 'capstan_unreach_test']);
  for (const [what, address] of [['own block, no pod', '10.244.1.77'], ['hollow node\'s block', '10.244.9.5'], ['block of a node without VTEP', '10.244.3.5'], ['no node\'s block', '10.244.200.1']]) {
    t.same(await probe(ns.n1, address), { udp: 'EHOSTUNREACH', tcp: 'EHOSTUNREACH' }, `from node n1 to ${address} (${what}): EHOSTUNREACH at once`);
  }
  // A forwarded packet is answered with ICMP host-unreachable — as often as the kernel's
  // per-source ICMP rate limit lets it (here a few seconds apart); the rest are dropped. Never sent on.
  const icmp0 = await icmpOut(ns.n1);
  for (const [what, address] of [['own block, no pod', '10.244.1.78'], ['hollow node\'s block', '10.244.9.6']]) {
    const r = await probe(pods.n1, address);
    t.ok(r.tcp === 'EHOSTUNREACH' || r.tcp === 'no answer', `from n1's pod to ${address} (${what}): refused or dropped by the node (${r.tcp})`);
  }
  const icmp1 = await icmpOut(ns.n1);
  t.ok(icmp1.unreachable > icmp0.unreachable, `n1 answered host-unreachable (${icmp1.unreachable - icmp0.unreachable} sent, ${icmp1.rateLimited - icmp0.rateLimited} held back by the rate limit)`);

  // The more specific routes win: the pods, and the routed node's block.
  t.ok(await ping(ns.n1, podIP('n1')), 'n1 reaches its own pod (/32 route)');
  t.ok(await ping(pods.n1, podIP('n2')), 'n1\'s pod reaches n2\'s pod (route to n2\'s block)');
  t.ok(await ping(pods.n2, podIP('n1')), 'and back');
  t.ok(await counter(o, 'to_n2') > 0, 'the pod traffic to n2 crossed the watched port');
  t.equal(await leaked(), 0, 'not one packet for an unrouted pod address reached the fake uplink');

  // The block moves: the old one is no longer rejected (it now follows the cluster CIDR), the new one is.
  const n1 = await c.nodesAPI.get(undefined, 'n1');
  await c.nodesAPI.delete(undefined, 'n1');
  await c.nodesAPI.create(undefined, { ...n1, metadata: { name: 'n1', annotations: n1.metadata.annotations }, spec: { podCIDR: '10.244.11.0/24' } });
  await eventually(async () => (await ours('n1')).includes('unreachable 10.244.11.0/24'), 3000, 'the new own block');
  t.same(await ours('n1'), ['10.244.2.0/24', 'unreachable 10.244.0.0/16', 'unreachable 10.244.11.0/24'], 'old own block gone, new one unreachable');
  t.match((await ip(ns.n2, 'route', 'get', '10.244.11.5')).stdout, /via 10\.0\.1\.11 dev eth0/, 'n2 routes the new block to n1 over its unreachable cluster CIDR');
  t.same(await probe(ns.n1, '10.244.1.77'), { udp: 'EHOSTUNREACH', tcp: 'EHOSTUNREACH' }, 'the old block is still unreachable (cluster CIDR)');
  t.equal(await leaked(), 0, 'still nothing at the fake uplink');
});

function podIP(n: string): string {
  return `10.244.${n.slice(1)}.10`;
}

/** The namespace's ICMP counters: destination-unreachable messages sent, and those the rate limit held back. */
async function icmpOut(ns: Namespace): Promise<{ unreachable: number; rateLimited: number }> {
  const lines = (await inNs(ns, 'cat', ['/proc/net/snmp'])).stdout.split('\n').filter((l) => l.startsWith('Icmp:'));
  const [names, values] = lines.map((l) => l.split(/\s+/).slice(1));
  const get = (k: string) => Number(values?.[names?.indexOf(k) ?? -1] ?? 0);
  return { unreachable: get('OutDestUnreachs'), rateLimited: get('OutRateLimitHost') };
}

async function counter(ns: Namespace, name: string): Promise<number> {
  const r = await inNs(ns, 'nft', ['list', 'counter', 'netdev', 'capstan_unreach_test', name]);
  return Number(/packets (\d+)/.exec(r.stdout)?.[1] ?? NaN);
}

// Everything n1 puts on the wire towards the uplink, seen on the uplink's own port before
// bridging or routing: pod addresses outside n2's block count as leaked.
const counters = (port: string) => `
table netdev capstan_unreach_test {
  counter leaked {}
  counter to_n2 {}
  chain ingress {
    type filter hook ingress device "${port}" priority 0; policy accept;
    ip daddr 10.244.2.0/24 counter name "to_n2"
    ip daddr 10.244.0.0/16 ip daddr != 10.244.2.0/24 counter name "leaked"
  }
}
`;
