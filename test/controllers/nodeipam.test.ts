// Node IPAM against the in-memory API: allocation, release, restart without reuse, a full range.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { type ControllerContext } from '../../src/controllers/framework.js';
import { NodeIPAMController, CIDRSet } from '../../src/controllers/nodeipam/index.js';
import { logger } from '../../src/log/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

async function setup(t: Test, fake: FakeClientset, config: Partial<ControllerContext['config']> = {}) {
  const clock = new FakeClock();
  const informers = new SharedInformerFactory(fake, { clock });
  const log = logger('test', {}, () => undefined);
  const ctx = controllerContext({ clients: fake, informers, clock, log, config: { ...config } });
  const c = new NodeIPAMController(ctx);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock);
  return { c, drain, clock };
}

const node = (name: string, podCIDR?: string) => ({ metadata: { name }, spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {} });
const cidrs = (fake: FakeClientset): Record<string, string> => Object.fromEntries(fake.list(resources.nodes).map((n) => [n.metadata.name, n.spec?.podCIDR]));
const events = (fake: FakeClientset) => fake.list(resources.events, 'default').map((e) => `${e.reason} ${e.involvedObject.name}`);

t.test('CIDRSet cuts the cluster CIDR into blocks and continues after the last one', async (t) => {
  const s = new CIDRSet('10.244.0.0/16', 24);
  t.equal(s.blocks, 256);
  t.equal(s.allocate('a'), '10.244.0.0/24');
  t.equal(s.allocate('b'), '10.244.1.0/24');
  s.release('10.244.0.0/24', 'a');
  t.equal(s.allocate('c'), '10.244.2.0/24', 'a released block is not handed out next');
  t.notOk(s.occupy('10.244.1.0/24', 'x'), 'a block another node holds');
  t.notOk(s.occupy('10.245.0.0/24', 'x'), 'outside the cluster CIDR');
  t.notOk(s.occupy('10.244.3.0/25', 'x'), 'wrong size');
  t.throws(() => new CIDRSet('10.244.0.0/16', 8));
});

t.test('every node gets its own block; podCIDRs mirrors podCIDR', async (t) => {
  const fake = new FakeClientset();
  fake.seed(resources.nodes, node('n1'), node('n2'), node('n3'));
  const { drain } = await setup(t, fake);
  await drain();
  const got = cidrs(fake);
  t.same(Object.values(got).sort(), ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24']);
  for (const n of fake.list(resources.nodes)) t.same(n.spec.podCIDRs, [n.spec.podCIDR]);
  await drain();
  t.equal(fake.actions.filter((a) => a.resource === 'nodes').length, 3, 'one write per node, nothing after');
});

t.test('a restarted controller keeps existing blocks and never reuses them', async (t) => {
  const fake = new FakeClientset();
  fake.seed(resources.nodes, node('old-a', '10.244.0.0/24'), node('old-b', '10.244.1.0/24'), node('old-c', '10.244.3.0/24'), node('new-1'), node('new-2'));
  const { drain } = await setup(t, fake);
  await drain();
  const got = cidrs(fake);
  t.equal(got['old-a'], '10.244.0.0/24');
  t.equal(got['old-b'], '10.244.1.0/24');
  t.equal(got['old-c'], '10.244.3.0/24');
  t.same([got['new-1'], got['new-2']].sort(), ['10.244.2.0/24', '10.244.4.0/24']);
  t.same(fake.actions.map((a) => a.name).sort(), ['new-1', 'new-2'], 'nodes that had a block were not written');
});

t.test('a full range reports CIDRNotAvailable; a deleted node frees its block for a waiting one', async (t) => {
  const fake = new FakeClientset();
  fake.seed(resources.nodes, node('a'), node('b'), node('c'), node('d'));
  const { drain } = await setup(t, fake, { clusterCIDR: '10.10.0.0/23', nodeCIDRMaskSize: 24 });
  await drain();
  const assigned = Object.values(cidrs(fake)).filter(Boolean);
  t.equal(assigned.length, 2, 'two blocks for four nodes');
  const waiting = Object.entries(cidrs(fake)).filter(([, c]) => !c).map(([n]) => n);
  t.same(events(fake).filter((e) => e.startsWith('CIDRNotAvailable')).map((e) => e.split(' ')[1]).sort(), waiting.sort());
  const victim = Object.entries(cidrs(fake)).find(([, c]) => c)!;
  await fake.resource(resources.nodes).delete(undefined, victim[0]);
  await drain();
  const after = cidrs(fake);
  t.equal(Object.values(after).filter(Boolean).length, 2, 'the freed block went to a waiting node');
  t.ok(Object.values(after).includes(victim[1]));
});

t.test('the same node events in different orders give disjoint blocks for every node', async (t) => {
  const orders = [
    ['add a', 'add b', 'add c', 'del b', 'add d', 'add b'],
    ['add c', 'add b', 'del b', 'add a', 'add b', 'add d'],
    ['add d', 'add b', 'add a', 'add c', 'del b', 'add b'],
  ];
  for (const order of orders) {
    const fake = new FakeClientset();
    const { drain } = await setup(t, fake, { clusterCIDR: '10.20.0.0/22', nodeCIDRMaskSize: 24 });
    for (const step of order) {
      const [verb, name] = step.split(' ');
      if (verb === 'add') await fake.resource(resources.nodes).create(undefined, node(name));
      else await fake.resource(resources.nodes).delete(undefined, name);
      await drain();
    }
    const got = cidrs(fake);
    t.same(Object.keys(got).sort(), ['a', 'b', 'c', 'd'], order.join(', '));
    const blocks = Object.values(got);
    t.equal(new Set(blocks).size, 4, 'disjoint');
    t.ok(blocks.every((b) => /^10\.20\.[0-3]\.0\/24$/.test(b)), 'inside the cluster CIDR');
  }
});

t.test('a failed write is retried with the same block and reported', async (t) => {
  const fake = new FakeClientset();
  fake.seed(resources.nodes, node('n1'));
  fake.failures.push({ verb: 'patch', resource: 'nodes', error: Object.assign(new Error('etcd unavailable'), { code: 500 }), times: 1 });
  const { c, drain, clock } = await setup(t, fake);
  await drain();
  t.equal(cidrs(fake).n1, undefined);
  t.ok(events(fake).includes('CIDRAssignmentFailed n1'));
  clock.step(1000);
  await drain();
  t.equal(cidrs(fake).n1, '10.244.0.0/24');
  t.equal(c.queue.length, 0);
});
