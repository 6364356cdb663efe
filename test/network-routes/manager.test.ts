// The manager over the netlink fake and a FakeClientset, time driven by FakeClock: VTEPs
// published and picked up by the other nodes, node deletion, retry with backoff after a
// failed apply, drift repaired at the periodic resync, heartbeats cause no work.
import t from 'tap';
import { FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { createNetlink, FakeNetlink, RTN, type NetlinkDriver, type NetlinkOp, type NetnsPath, type OpResult, type BatchOptions } from '../../src/netlink/index.js';
import { ANNOTATION_TUNNEL_ADDR, ANNOTATION_TUNNEL_MAC, ROUTE_PROTOCOL, RoutesManager, VXLAN_DEVICE, vtepMac } from '../../src/network/routes/index.js';
import { node, startCluster } from './cluster.js';
import { parseCidr } from '../../src/network/cidr.js';

/** The fake with a switch to fail the next N batches writing node routes (as a kernel would, per op). */
class FlakyNetlink implements NetlinkDriver {
  readonly name = 'flaky';
  failRouteWrites = 0;
  batches = 0;
  constructor(readonly inner: FakeNetlink) {}
  async batch(netns: NetnsPath, ops: NetlinkOp[], o?: BatchOptions): Promise<OpResult[]> {
    this.batches++;
    // Writes of routes to other nodes (with a next hop); the unreachable ones pass.
    if (this.failRouteWrites > 0 && ops.some((x) => x.op === 'routeReplace' && x.via)) {
      this.failRouteWrites--;
      return ops.map(() => ({ status: 'error', errno: 101, code: 'ENETUNREACH', message: 'injected' }));
    }
    return this.inner.batch(netns, ops, o);
  }
}

const settle = async () => { for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)); };

async function setup(t: { teardown(fn: () => unknown): void }) {
  const clock = new FakeClock();
  const fake = new FakeNetlink();
  const flaky = new FlakyNetlink(fake);
  const netlink = createNetlink(flaky);
  const ips: Record<string, string> = { n1: '10.0.1.11', n2: '10.0.1.12', n3: '10.0.2.13' };
  const netns: Record<string, string> = {};
  for (const [name, ip] of Object.entries(ips)) {
    netns[name] = `/run/netns/${name}`;
    fake.addNamespace(netns[name]);
    await netlink.apply(netns[name], [{ op: 'linkAddVeth', name: 'eth0', peerName: 'peer0' }, { op: 'addrAdd', dev: 'eth0', address: `${ip}/24` }]);
  }
  const nodes = [node('n1', ips.n1, '10.244.1.0/24'), node('n2', ips.n2, '10.244.2.0/24'), node('n3', ips.n3, '10.244.3.0/24')];
  const c = await startCluster(t, { nodes, netns, netlink, clock, clusterCIDR: parseCidr('10.244.0.0/16') });
  // Timers fire only when the clock moves; informer events and netlink calls are promises.
  const run = async (ms = 0) => {
    for (let i = 0; i < 20; i++) { clock.step(i === 0 ? ms : 0); await settle(); }
  };
  const ours = async (n: string) => netlink.routes(netns[n]!, 4, { protocol: ROUTE_PROTOCOL });
  const routes = async (n: string) => (await ours(n)).filter((r) => r.type === RTN.unicast).map((r) => `${r.dst} via ${r.via} dev ${r.dev}`).sort();
  const unreachable = async (n: string) => (await ours(n)).filter((r) => r.type === RTN.unreachable).map((r) => r.dst).sort();
  return { ...c, clock, kernel: fake, flaky, netlink, netns, run, routes, unreachable };
}

t.test('every node publishes its VTEP; the others route to it directly or through the tunnel', async (t) => {
  const s = await setup(t);
  await s.run();
  const n1 = (await s.nodesAPI.get(undefined, 'n1')).metadata.annotations!;
  t.equal(n1[ANNOTATION_TUNNEL_MAC], vtepMac('n1'));
  t.equal(n1[ANNOTATION_TUNNEL_ADDR], '10.244.1.1');
  t.same(await s.routes('n1'), ['10.244.2.0/24 via 10.0.1.12 dev eth0', `10.244.3.0/24 via 10.244.3.1 dev ${VXLAN_DEVICE}`]);
  t.same(await s.routes('n3'), [`10.244.1.0/24 via 10.244.1.1 dev ${VXLAN_DEVICE}`, `10.244.2.0/24 via 10.244.2.1 dev ${VXLAN_DEVICE}`]);
  t.same((await s.netlink.fdb(s.netns.n3!)).map((f) => [f.lladdr, f.address]).sort(), [[vtepMac('n1'), '10.0.1.11'], [vtepMac('n2'), '10.0.1.12']]);
  const dev = (await s.netlink.links(s.netns.n1!)).find((l) => l.name === VXLAN_DEVICE)!;
  t.match(dev, { kind: 'vxlan', mtu: 1450, mac: vtepMac('n1'), up: true, vxlan: { vni: 4096, port: 4789, local: '10.0.1.11', learning: false } });
  await s.run(30_000);
  for (const m of s.managed) t.same(m.manager.last?.ops, [], `${m.name}: a resync in steady state changes nothing`);
});

t.test('a node deleted → its routes go from the others; a heartbeat causes no sync', async (t) => {
  const s = await setup(t);
  await s.run();
  const before = s.flaky.batches;
  const n2 = await s.nodesAPI.get(undefined, 'n2');
  await s.nodesAPI.update({ ...n2, status: { ...n2.status, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: 'now' }] } });
  await s.run();
  t.equal(s.flaky.batches, before, 'no kernel read for a status-only update');
  await s.nodesAPI.delete(undefined, 'n3');
  await s.run();
  t.same(await s.routes('n1'), ['10.244.2.0/24 via 10.0.1.12 dev eth0']);
  t.same(await s.routes('n2'), ['10.244.1.0/24 via 10.0.1.11 dev eth0']);
  t.same(await s.netlink.fdb(s.netns.n1!), [], 'FDB entry for n3 gone');
  t.same(await s.netlink.neighbours(s.netns.n1!), [], 'neighbour for n3 gone');
});

t.test('a failed apply is retried after a backoff; success resets it', async (t) => {
  const s = await setup(t);
  s.flaky.failRouteWrites = 3; // the first three route-writing syncs fail
  await s.run();
  const m = s.by('n1').manager;
  t.ok(m.last?.error, 'last sync failed');
  await s.run(200);
  await s.run(400);
  await s.run(800);
  await s.run(1600);
  t.equal(s.flaky.failRouteWrites, 0);
  t.notOk(s.by('n1').manager.last?.error);
  t.equal((await s.routes('n1')).length, 2);
  t.equal((await s.routes('n3')).length, 2);
});

t.test('drift: a route deleted by hand returns at the next resync, not before', async (t) => {
  const s = await setup(t);
  await s.run();
  await s.netlink.apply(s.netns.n1!, [{ op: 'routeDel', dst: '10.244.2.0/24' }]);
  await s.run(10_000);
  t.same(await s.routes('n1'), [`10.244.3.0/24 via 10.244.3.1 dev ${VXLAN_DEVICE}`]);
  await s.run(20_000);
  t.same(await s.routes('n1'), ['10.244.2.0/24 via 10.0.1.12 dev eth0', `10.244.3.0/24 via 10.244.3.1 dev ${VXLAN_DEVICE}`]);
});

t.test('the encapsulation annotation switches one node to Always; the pair follows on both ends', async (t) => {
  const s = await setup(t);
  await s.run();
  await s.nodesAPI.patch(undefined, 'n2', 'merge', { metadata: { annotations: { 'capstan.io/encapsulation': 'Always' } } });
  await s.run();
  t.same(await s.routes('n1'), [`10.244.2.0/24 via 10.244.2.1 dev ${VXLAN_DEVICE}`, `10.244.3.0/24 via 10.244.3.1 dev ${VXLAN_DEVICE}`]);
  t.same(await s.routes('n2'), [`10.244.1.0/24 via 10.244.1.1 dev ${VXLAN_DEVICE}`, `10.244.3.0/24 via 10.244.3.1 dev ${VXLAN_DEVICE}`]);
});

t.test('a restarted manager (new informer, same kernel) changes nothing', async (t) => {
  const s = await setup(t);
  await s.run();
  const old = s.by('n1');
  await old.manager.stop();
  await old.informers.stop();
  const informers = new SharedInformerFactory(s.fake, { clock: s.clock, resyncMs: 0 });
  const m = new RoutesManager({
    netlink: s.netlink, netns: s.netns.n1!, nodeName: 'n1', nodes: informers.informerFor(resources.nodes), clients: s.fake, clock: s.clock,
    clusterCIDR: parseCidr('10.244.0.0/16'), log: logger('t', {}, () => undefined),
  });
  informers.start();
  await informers.waitForCacheSync();
  t.teardown(async () => { await m.stop(); await informers.stop(); });
  const writesBefore = s.fake.actions.length;
  m.start();
  await s.run();
  t.same(await s.unreachable('n1'), ['10.244.0.0/16', '10.244.1.0/24'], 'the unreachable routes are there to adopt');
  t.same(m.last?.ops, [], 'no kernel change after a restart (the VTEP MAC is derived, not random; the unreachable routes adopted)');
  t.equal(s.fake.actions.length, writesBefore, 'no Node write either');
});

t.test('the own block and the cluster CIDR are unreachable; they follow a podCIDR change and stay clear of foreign routes', async (t) => {
  const s = await setup(t);
  await s.run();
  for (const [n, block] of [['n1', '10.244.1.0/24'], ['n2', '10.244.2.0/24'], ['n3', '10.244.3.0/24']] as const) {
    t.same(await s.unreachable(n), ['10.244.0.0/16', block], `${n}: its own block and the cluster CIDR`);
  }
  // Someone else's route in the cluster CIDR (another protocol) is left alone.
  await s.netlink.apply(s.netns.n1!, [{ op: 'routeAdd', dst: '10.244.200.0/24', via: '10.0.1.1', protocol: 4 }]);
  // n2's block moves (a Node recreated with another podCIDR): the others re-route, n2 rejects the new one.
  const n2 = await s.nodesAPI.get(undefined, 'n2');
  await s.nodesAPI.delete(undefined, 'n2');
  await s.nodesAPI.create(undefined, { ...n2, metadata: { name: 'n2', annotations: n2.metadata.annotations }, spec: { podCIDR: '10.244.12.0/24' } });
  await s.run();
  t.same(await s.unreachable('n2'), ['10.244.0.0/16', '10.244.12.0/24'], 'the old own block is no longer rejected, the new one is');
  t.same(await s.routes('n1'), ['10.244.12.0/24 via 10.0.1.12 dev eth0', `10.244.3.0/24 via 10.244.3.1 dev ${VXLAN_DEVICE}`]);
  t.ok((await s.netlink.routes(s.netns.n1!, 4)).some((r) => r.dst === '10.244.200.0/24' && r.protocol === 4), 'the foreign route is untouched');
  // The own Node loses its podCIDR: only the cluster CIDR stays rejected.
  const n3 = await s.nodesAPI.get(undefined, 'n3');
  await s.nodesAPI.update({ ...n3, spec: {} });
  await s.run();
  t.same(await s.unreachable('n3'), ['10.244.0.0/16']);
});
