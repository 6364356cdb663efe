// The HPA's replica calculation, table-driven after upstream's replica_calculator_test.go
// cases: plain scale up/down, the 10% tolerance, missing metrics, unready and pending pods,
// ignored (deleted, failed) pods, missing requests, and average-value targets.
import t from 'tap';
import type { Pod } from '../../../src/api/kinds.js';
import { rawResourceReplicas, resourceReplicas, MetricsError, type PodMetrics } from '../../../src/controllers/podautoscaler/replica-calculator.js';

const NOW = 1_700_000_000_000;
const iso = (ms: number) => new Date(ms).toISOString();

function pod(name: string, o: { request?: string; phase?: string; ready?: boolean; startedAgoMs?: number; readySinceAgoMs?: number; deleting?: boolean; noRequest?: boolean } = {}): Pod {
  const started = NOW - (o.startedAgoMs ?? 10 * 60_000);
  return {
    metadata: { name, namespace: 'default', ...(o.deleting ? { deletionTimestamp: iso(NOW) } : {}) },
    spec: { containers: [{ name: 'main', image: 'busybox', resources: o.noRequest ? {} : { requests: { cpu: o.request ?? '1', memory: '100Mi' } } }] },
    status: {
      phase: o.phase ?? 'Running', startTime: iso(started),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: iso(NOW - (o.readySinceAgoMs ?? 9 * 60_000)) }],
    },
  } as Pod;
}

const metrics = (values: Record<string, number>, at = NOW - 5_000): PodMetrics =>
  new Map(Object.entries(values).map(([name, value]) => [name, { value, timestamp: at, windowMs: 15_000 }]));

t.test('resource utilisation', async (t) => {
  const cases: { name: string; current: number; pods: Pod[]; usage: Record<string, number>; target: number; want: number; util?: number }[] = [
    { name: 'scale up', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 900, b: 900, c: 900 }, target: 30, want: 9, util: 90 },
    { name: 'scale down', current: 5, pods: ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n)), usage: { a: 100, b: 100, c: 100, d: 100, e: 100 }, target: 50, want: 1, util: 10 },
    { name: 'within tolerance (+9%) keeps the count', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 545, b: 545, c: 545 }, target: 50, want: 3, util: 54 },
    { name: 'just outside tolerance scales', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 560, b: 560, c: 560 }, target: 50, want: 4 },
    // One pod without metrics: scaling up it counts as 0%, which keeps the ratio above 1.
    { name: 'missing pod counts as idle on scale up', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 1000, b: 1000 }, target: 50, want: 4 },
    // Scaling down, a pod without metrics counts as using its whole request.
    { name: 'missing pod counts as busy on scale down', current: 3, pods: [pod('a'), pod('b'), pod('c')], usage: { a: 100, b: 100 }, target: 50, want: 3 },
    { name: 'missing pods would reverse the direction: keep', current: 4, pods: ['a', 'b', 'c', 'd'].map((n) => pod(n)), usage: { a: 400, b: 400 }, target: 50, want: 4 },
    // An unready pod (still starting) is left out of the average and counts 0% when scaling up.
    { name: 'unready pod counts as idle on scale up', current: 3, pods: [pod('a'), pod('b'), pod('c', { ready: false, startedAgoMs: 60_000, readySinceAgoMs: 60_000 })], usage: { a: 1000, b: 1000, c: 1000 }, target: 50, want: 4 },
    { name: 'pending pod is unready', current: 2, pods: [pod('a'), pod('b', { phase: 'Pending' })], usage: { a: 1000 }, target: 50, want: 2 },
    { name: 'deleted and failed pods are ignored', current: 3, pods: [pod('a'), pod('b', { deleting: true }), pod('c', { phase: 'Failed' })], usage: { a: 1000, b: 0, c: 0 }, target: 50, want: 2 },
    { name: 'request in millicores', current: 2, pods: [pod('a', { request: '200m' }), pod('b', { request: '200m' })], usage: { a: 200, b: 200 }, target: 50, want: 4, util: 100 },
  ];
  for (const c of cases) {
    const r = resourceReplicas({ currentReplicas: c.current, targetUtilization: c.target, resource: 'cpu', pods: c.pods, metrics: metrics(c.usage), now: NOW });
    t.equal(r.replicas, c.want, c.name);
    if (c.util !== undefined) t.equal(r.utilization, c.util, `${c.name}: utilisation`);
  }
});

t.test('a sample taken before the pod became ready does not count (CPU, initialisation period)', async (t) => {
  const fresh = pod('b', { startedAgoMs: 60_000, readySinceAgoMs: 2_000 });
  const r = resourceReplicas({ currentReplicas: 2, targetUtilization: 50, resource: 'cpu', pods: [pod('a'), fresh], metrics: metrics({ a: 500, b: 1000 }), now: NOW });
  t.equal(r.replicas, 2, 'b is unready: a alone at 50% keeps 2');
  const memory = resourceReplicas({ currentReplicas: 2, targetUtilization: 50, resource: 'memory', pods: [pod('a'), fresh], metrics: metrics({ a: 50 * 2 ** 20 * 1000, b: 100 * 2 ** 20 * 1000 }), now: NOW });
  t.equal(memory.replicas, 3, 'memory has no readiness rule: (50%+100%)/2 = 75% of 50% target → 3');
});

t.test('errors carry upstream messages', async (t) => {
  t.throws(() => resourceReplicas({ currentReplicas: 1, targetUtilization: 50, resource: 'cpu', pods: [pod('a')], metrics: new Map(), now: NOW }),
    new MetricsError('unable to get metrics for resource cpu: no metrics returned from resource metrics API'));
  t.throws(() => resourceReplicas({ currentReplicas: 1, targetUtilization: 50, resource: 'cpu', pods: [], metrics: metrics({ a: 1 }), now: NOW }),
    new MetricsError('no pods returned by selector while calculating replica count'));
  t.throws(() => resourceReplicas({ currentReplicas: 1, targetUtilization: 50, resource: 'cpu', pods: [pod('a', { noRequest: true })], metrics: metrics({ a: 1 }), now: NOW }),
    new MetricsError('missing request for cpu in container main of Pod a'));
  t.throws(() => resourceReplicas({ currentReplicas: 1, targetUtilization: 50, resource: 'cpu', pods: [pod('a', { phase: 'Pending' })], metrics: metrics({ a: 1 }), now: NOW }),
    new MetricsError('did not receive metrics for targeted pods (pods might be unready)'));
});

t.test('average value targets', async (t) => {
  const pods = [pod('a'), pod('b')];
  t.equal(rawResourceReplicas({ currentReplicas: 2, targetAverage: 200, resource: 'cpu', pods, metrics: metrics({ a: 400, b: 400 }), now: NOW }).replicas, 4);
  t.equal(rawResourceReplicas({ currentReplicas: 2, targetAverage: 200, resource: 'cpu', pods, metrics: metrics({ a: 210, b: 210 }), now: NOW }).replicas, 2, 'within tolerance');
  t.equal(rawResourceReplicas({ currentReplicas: 2, targetAverage: 200, resource: 'cpu', pods, metrics: metrics({ a: 50, b: 50 }), now: NOW }).replicas, 1);
});
