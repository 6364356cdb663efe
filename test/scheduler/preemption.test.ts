// DefaultPreemption's choice of node and victims, over a SchedulerCache with the default plugins.
import t from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { Algorithm, FitError, newPodInfo, plugins, type SchedulerCache } from '../../src/scheduler/index.js';
import { Preemptor, pickOne } from '../../src/scheduler/preemption.js';
import { clusterOf, node, pod, type PodOpts } from './fixtures.js';

const algorithm = new Algorithm({ filters: plugins.defaultFilters, scorers: plugins.defaultScorers, random: () => 0 });
const on = (name: string, nodeName: string, priority: number, o: PodOpts = {}) => pod(name, { nodeName, priority, cpu: '1', ...o });
const pdb = (name: string, app: string, allowed: number) => ({ metadata: { name, namespace: 'default' }, spec: { selector: { matchLabels: { app } } }, status: { disruptionsAllowed: allowed } });

function preempt(cache: SchedulerCache, incoming: KubeObject, pdbs: object[] = []) {
  const info = newPodInfo(incoming);
  const state: plugins.CycleState = { serviceSelectors: [], cluster: cache };
  const fit = algorithm.schedule(info, cache.nodeList(), state);
  if (!(fit instanceof FitError)) throw new Error(`the pod fits on ${fit}`);
  const preemptor = new Preemptor(algorithm, () => pdbs as never, () => 0);
  const why = preemptor.ineligible(info, undefined);
  if (why) return why;
  const r = preemptor.preempt(info, cache.nodeList(), state);
  return 'message' in r ? r.message : { node: r.node.name, victims: r.victims.map((v) => v.pod.metadata.name).sort(), pdbViolations: r.pdbViolations };
}

const two = [node('n1', { cpu: '2' }), node('n2', { cpu: '2' })];

t.test('DefaultPreemption picks the node and the fewest victims as upstream', async (t) => {
  t.same(preempt(clusterOf(two, [on('low', 'n1', 1, { cpu: '2' }), on('mid', 'n2', 5, { cpu: '2' })]), pod('p', { priority: 10, cpu: '2' })),
    { node: 'n1', victims: ['low'], pdbViolations: 0 }, 'the node whose highest victim has the lowest priority');
  t.same(preempt(clusterOf(two, [on('a', 'n1', 1), on('b', 'n1', 2), on('c', 'n2', 3), on('d', 'n2', 3)]), pod('p', { priority: 10, cpu: '1' })),
    { node: 'n1', victims: ['a'], pdbViolations: 0 }, 'the more important pod is reprieved; only what is needed goes');
  t.same(preempt(clusterOf(two, [on('a', 'n1', 1, { labels: { app: 'guarded' } }), on('b', 'n1', 1, { labels: { app: 'guarded' } }), on('c', 'n2', 1), on('d', 'n2', 1)]), pod('p', { priority: 10, cpu: '2' }), [pdb('g', 'guarded', 0)]),
    { node: 'n2', victims: ['c', 'd'], pdbViolations: 0 }, 'a node whose victims a PodDisruptionBudget protects is avoided');
  t.same(preempt(clusterOf(two, [on('a', 'n1', 1, { labels: { app: 'guarded' } }), on('b', 'n1', 1, { labels: { app: 'guarded' } }), on('c', 'n2', 1, { labels: { app: 'guarded' } }), on('d', 'n2', 1, { labels: { app: 'guarded' } })]), pod('p', { priority: 10, cpu: '2' }), [pdb('g', 'guarded', 1)]),
    { node: 'n1', victims: ['a', 'b'], pdbViolations: 1 }, 'when every node breaks the budget, it is broken as little as possible');
  t.same(preempt(clusterOf(two, [on('a', 'n1', 1), on('b', 'n1', 1), on('c', 'n2', 1, { cpu: '2' })]), pod('p', { priority: 10, cpu: '2' })),
    { node: 'n2', victims: ['c'], pdbViolations: 0 }, 'equal priorities: the fewest victims');
});

t.test('when preemption cannot help', async (t) => {
  t.equal(preempt(clusterOf(two, [on('a', 'n1', 10, { cpu: '2' }), on('b', 'n2', 10, { cpu: '2' })]), pod('p', { priority: 10, cpu: '2' })),
    'preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.', 'equal priority is no victim');
  t.equal(preempt(clusterOf(two, [on('a', 'n1', 1, { cpu: '2' }), on('b', 'n2', 1, { cpu: '2' })]), pod('p', { priority: 10, cpu: '2', nodeSelector: { disk: 'ssd' } })),
    'preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.', 'a node selector no node matches');
  t.equal(preempt(clusterOf(two, [on('a', 'n1', 1, { cpu: '2' })]), pod('p', { priority: 10, cpu: '3' })),
    'preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.', 'too big even for an empty node');
  t.equal(preempt(clusterOf(two, [on('a', 'n1', 1, { cpu: '2' }), on('b', 'n2', 1, { cpu: '2' })]), pod('p', { priority: 10, cpu: '2', preemptionPolicy: 'Never' })),
    'not eligible due to preemptionPolicy=Never.');
});

t.test('preemption sees through inter-pod anti-affinity and leaves the cache as it was', async (t) => {
  const cache = clusterOf([node('only', { cpu: '8' })], [on('blocker', 'only', 1, { labels: { app: 'web' } }), on('bystander', 'only', 1)]);
  const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } };
  t.same(preempt(cache, pod('p', { priority: 10, cpu: '1', affinity: anti })), { node: 'only', victims: ['blocker'], pdbViolations: 0 }, 'only the pod the anti-affinity names goes');
  const n = cache.node('only')!;
  t.equal(n.pods.size, 2);
  t.equal(n.requested.milliCPU, 2000, 'what-if undone');
});

t.test('pickOne: fewest PDB violations, lowest top priority, lowest sum, fewest victims, latest start', async (t) => {
  const v = (priority: number, start = '2026-01-01T00:00:00Z') => newPodInfo({ ...pod('v', { priority }), status: { startTime: start } });
  const c = (name: string, victims: ReturnType<typeof v>[], pdbViolations = 0) => ({ node: { name } as never, victims, pdbViolations });
  t.equal((pickOne([c('a', [v(1)], 1), c('b', [v(5)], 0)]).node as { name: string }).name, 'b');
  t.equal((pickOne([c('a', [v(5)]), c('b', [v(1), v(1)])]).node as { name: string }).name, 'b');
  t.equal((pickOne([c('a', [v(3), v(3)]), c('b', [v(3), v(1)])]).node as { name: string }).name, 'b');
  t.equal((pickOne([c('a', [v(-5), v(-5)]), c('b', [v(-5)])]).node as { name: string }).name, 'b');
  t.equal((pickOne([c('a', [v(1, '2026-01-01T00:00:00Z')]), c('b', [v(1, '2026-02-01T00:00:00Z')])]).node as { name: string }).name, 'b');
});
