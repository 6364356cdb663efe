// The algorithm: node sampling counts, FitError messages, and scoring picking the best node.
import t from 'tap';
import { Algorithm, FitError, numFeasibleNodesToFind, SchedulerCache, newPodInfo, plugins } from '../../src/scheduler/index.js';
import { node, pod } from './fixtures.js';

t.test('numFeasibleNodesToFind is adaptive like kube-scheduler', async (t) => {
  t.same([50, 99, 100, 1000, 5000, 6000, 20_000].map((n) => numFeasibleNodesToFind(n)), [50, 99, 100, 420, 500, 300, 1000]);
  t.equal(numFeasibleNodesToFind(1000, 30), 300, 'explicit percentage');
  t.equal(numFeasibleNodesToFind(200, 10), 100, 'never fewer than 100');
});

t.test('FailedScheduling message tallies reasons, sorted', async (t) => {
  const cache = new SchedulerCache();
  cache.addNode(node('tainted', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }));
  cache.addNode(node('small-1', { cpu: '1' }));
  cache.addNode(node('small-2', { cpu: '1', memory: '1Gi' }));
  const alg = new Algorithm({ filters: plugins.defaultFilters, scorers: plugins.defaultScorers });
  const r = alg.schedule(newPodInfo(pod('p', { cpu: '2', memory: '2Gi' })), cache.nodeList(), { serviceSelectors: [] });
  t.ok(r instanceof FitError);
  t.equal((r as FitError).message, '0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: db}, 2 Insufficient cpu.');
  t.equal((new SchedulerCache(), alg.schedule(newPodInfo(pod('p')), [], { serviceSelectors: [] }) as FitError).message, 'no nodes available to schedule pods');
});

t.test('sampling stops at enough feasible nodes and rotates its start', async (t) => {
  const cache = new SchedulerCache();
  for (let i = 0; i < 1000; i++) cache.addNode(node(`n${i}`));
  let visited = 0;
  const counting: plugins.FilterPlugin = { name: 'count', filter: () => { visited++; return null; } };
  const alg = new Algorithm({ filters: [counting], scorers: plugins.defaultScorers, random: () => 0.5 });
  const chosen = new Set<string>();
  for (let i = 0; i < 3; i++) chosen.add(alg.schedule(newPodInfo(pod(`p${i}`)), cache.nodeList(), { serviceSelectors: [] }) as string);
  t.equal(visited, 3 * 420, '420 of 1000 nodes filtered per pod');
  t.equal(chosen.size, 3, 'each pod saw a different window of nodes');
});

t.test('scores pick the least loaded node; ties break at random', async (t) => {
  const cache = new SchedulerCache();
  for (const n of ['a', 'b', 'c']) cache.addNode(node(n));
  cache.assumePod(newPodInfo(pod('x', { cpu: '2', memory: '4Gi' })), 'a');
  cache.assumePod(newPodInfo(pod('y', { cpu: '1', memory: '2Gi' })), 'b');
  const alg = new Algorithm({ filters: plugins.defaultFilters, scorers: plugins.defaultScorers });
  t.equal(alg.schedule(newPodInfo(pod('p', { cpu: '1', memory: '1Gi' })), cache.nodeList(), { serviceSelectors: [] }), 'c');
  const seen = new Set<string>();
  const tie = new SchedulerCache();
  for (const n of ['a', 'b', 'c', 'd']) tie.addNode(node(n));
  let r = 0;
  const alg2 = new Algorithm({ filters: plugins.defaultFilters, scorers: plugins.defaultScorers, random: () => ((r = (r * 7 + 3) % 10) / 10) });
  for (let i = 0; i < 40; i++) seen.add(alg2.schedule(newPodInfo(pod(`t${i}`)), tie.nodeList(), { serviceSelectors: [] }) as string);
  t.ok(seen.size > 1, `equal nodes are not always the first (${[...seen].join(',')})`);
});

t.test('domain-wide filters run first, and a FitError still names each node\'s first failing filter in the configured order', async (t) => {
  const zone = 'topology.kubernetes.io/zone';
  const cache = new SchedulerCache();
  cache.addNode(node('a1', { cpu: '1', labels: { [zone]: 'a' } }));
  cache.addNode(node('a2', { cpu: '4', labels: { [zone]: 'a' } }));
  cache.addNode(node('b1', { cpu: '1', labels: { [zone]: 'b' } }));
  cache.addOrUpdatePod(pod('x', { nodeName: 'a2', labels: { app: 'web' } }));
  const spread = [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }];
  const alg = new Algorithm({ filters: plugins.defaultFilters, scorers: plugins.defaultScorers });
  // a1: too small and in the crowded zone (NodeResourcesFit comes first); a2: the zone alone; b1: too small.
  const r = alg.schedule(newPodInfo(pod('p', { cpu: '2', labels: { app: 'web' }, topologySpreadConstraints: spread })), cache.nodeList(), { serviceSelectors: [], cluster: cache });
  t.ok(r instanceof FitError);
  t.equal((r as FitError).message, "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 Insufficient cpu.");
  // With a node that fits, the nodes of the crowded zone never reach the resource check.
  cache.addNode(node('b2', { cpu: '4', labels: { [zone]: 'b' } }));
  const checked: string[] = [];
  const fit: plugins.FilterPlugin = { name: 'NodeResourcesFit', filter: (p, n, s) => { checked.push(n.name); return plugins.nodeResourcesFit.filter(p, n, s); } };
  const counted = new Algorithm({ filters: [fit, plugins.podTopologySpreadFilter], scorers: plugins.defaultScorers });
  t.equal(counted.schedule(newPodInfo(pod('q', { cpu: '2', labels: { app: 'web' }, topologySpreadConstraints: spread })), cache.nodeList(), { serviceSelectors: [], cluster: cache }), 'b2');
  t.same(checked.sort(), ['b1', 'b2'], 'zone a was ruled out by the spread check alone');
});
