// PodTopologySpread filter and score over a SchedulerCache, in the manner of upstream's tables.
import t from 'tap';
import { plugins } from '../../src/scheduler/index.js';
import { fromLabelSelector } from '../../src/api/labels.js';
import { clusterOf, filterAll, node, pod, scoreAll, type PodOpts } from './fixtures.js';

const zoneKey = 'topology.kubernetes.io/zone', host = 'kubernetes.io/hostname';
const zoned = (name: string, zone: string, o: Parameters<typeof node>[1] = {}) => node(name, { ...o, labels: { [zoneKey]: zone, ...o.labels } });
const nodes = [zoned('a1', 'a'), zoned('a2', 'a'), zoned('b1', 'b'), zoned('b2', 'b')];
const on = (name: string, nodeName: string, o: PodOpts = {}) => pod(name, { nodeName, labels: { app: 'web' }, ...o });
const spread = (o: object) => ({ maxSkew: 1, topologyKey: zoneKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, ...o });
const web = (...constraints: object[]) => pod('p', { labels: { app: 'web' }, topologySpreadConstraints: constraints });
const filters = [plugins.podTopologySpreadFilter];
const C = plugins.errConstraintsNotMatch, L = plugins.errMissingLabel;

t.test('PodTopologySpread filter', async (t) => {
  const cases: { name: string; pod: ReturnType<typeof pod>; nodes?: ReturnType<typeof node>[]; existing: ReturnType<typeof pod>[]; want: Record<string, string | null> }[] = [
    { name: 'empty cluster: anywhere', pod: web(spread({})), existing: [], want: { a1: null, a2: null, b1: null, b2: null } },
    { name: 'zone a has one more: only zone b', pod: web(spread({})), existing: [on('x', 'a1')], want: { a1: C, a2: C, b1: null, b2: null } },
    { name: 'maxSkew 2 allows it', pod: web(spread({ maxSkew: 2 })), existing: [on('x', 'a1')], want: { a1: null, a2: null, b1: null, b2: null } },
    { name: 'balanced zones: anywhere', pod: web(spread({})), existing: [on('x', 'a1'), on('y', 'b2')], want: { a1: null, a2: null, b1: null, b2: null } },
    { name: 'pods not matching the selector do not count', pod: web(spread({})), existing: [on('x', 'a1', { labels: { app: 'db' } })], want: { a1: null, a2: null, b1: null, b2: null } },
    { name: 'pods in other namespaces do not count', pod: web(spread({})), existing: [on('x', 'a1', { namespace: 'other' })], want: { a1: null, a2: null, b1: null, b2: null } },
    { name: 'terminating pods do not count', pod: web(spread({})), existing: [on('x', 'a1', { deleting: true })], want: { a1: null, a2: null, b1: null, b2: null } },
    {
      name: 'a pod that does not match its own selector adds nothing', pod: pod('p', { labels: { app: 'other' }, topologySpreadConstraints: [spread({})] }),
      existing: [on('x', 'a1')], want: { a1: null, a2: null, b1: null, b2: null },
    },
    {
      name: 'a node without the topology key is refused', pod: web(spread({})), nodes: [...nodes, node('bare')],
      existing: [], want: { a1: null, a2: null, b1: null, b2: null, bare: L },
    },
    { name: 'hostname spread', pod: web(spread({ topologyKey: host })), existing: [on('x', 'a1'), on('y', 'a2'), on('z', 'b1')], want: { a1: C, a2: C, b1: C, b2: null } },
    {
      name: 'minDomains above the domains there are: the global minimum is 0', pod: web(spread({ minDomains: 3 })),
      existing: [on('x', 'a1'), on('y', 'b1')], want: { a1: C, a2: C, b1: C, b2: C },
    },
    {
      name: 'nodeAffinityPolicy Honor (default): domains outside the nodeSelector do not count',
      pod: pod('p', { labels: { app: 'web' }, nodeSelector: { [zoneKey]: 'a' }, topologySpreadConstraints: [spread({})] }),
      existing: [on('x', 'a1')], want: { a1: null, a2: null, b1: null, b2: null },
    },
    {
      name: 'nodeAffinityPolicy Ignore: every domain counts',
      pod: pod('p', { labels: { app: 'web' }, nodeSelector: { [zoneKey]: 'a' }, topologySpreadConstraints: [spread({ nodeAffinityPolicy: 'Ignore' })] }),
      existing: [on('x', 'a1')], want: { a1: C, a2: C, b1: null, b2: null },
    },
    {
      name: 'nodeTaintsPolicy Honor: a tainted zone is no domain', pod: web(spread({ nodeTaintsPolicy: 'Honor' })),
      nodes: [zoned('a1', 'a'), zoned('b1', 'b'), zoned('c1', 'c', { taints: [{ key: 'k', effect: 'NoSchedule' }] })],
      existing: [on('x', 'b1')], want: { a1: null, b1: C, c1: null },
    },
    {
      name: 'nodeTaintsPolicy Ignore (default): the tainted zone\'s 0 is the minimum', pod: web(spread({})),
      nodes: [zoned('a1', 'a'), zoned('b1', 'b'), zoned('c1', 'c', { taints: [{ key: 'k', effect: 'NoSchedule' }] })],
      existing: [on('x', 'b1'), on('y', 'a1')], want: { a1: C, b1: C, c1: null },
    },
    {
      name: 'matchLabelKeys: only the pod\'s own revision counts', pod: pod('p', { labels: { app: 'web', rev: '2' }, topologySpreadConstraints: [spread({ matchLabelKeys: ['rev'] })] }),
      existing: [on('x', 'a1', { labels: { app: 'web', rev: '1' } }), on('y', 'a2', { labels: { app: 'web', rev: '1' } })], want: { a1: null, a2: null, b1: null, b2: null },
    },
    {
      name: 'ScheduleAnyway constraints never filter', pod: web(spread({ whenUnsatisfiable: 'ScheduleAnyway' })),
      existing: [on('x', 'a1'), on('y', 'a2')], want: { a1: null, a2: null, b1: null, b2: null },
    },
  ];
  for (const c of cases) t.same(filterAll(filters, c.pod, clusterOf(c.nodes ?? nodes, c.existing)), c.want, c.name);
});

t.test('PodTopologySpread score', async (t) => {
  const soft = (o: object) => spread({ whenUnsatisfiable: 'ScheduleAnyway', ...o });
  const existing = [on('x', 'a1'), on('y', 'a1'), on('z', 'a2')];
  // zone a has 3, zone b 0; weight log(2+2): a = round(3·1.386) = 4, b = 0 → 100·(4+0−s)/4.
  t.same(scoreAll(plugins.podTopologySpreadScore, web(soft({})), clusterOf(nodes, existing)), { a1: 0, a2: 0, b1: 100, b2: 100 }, 'by zone');
  // hostname: a1 2, a2 1, b 0; weight log(4+2)=1.79: round(3.58)=4, round(1.79)=2, 0.
  t.same(scoreAll(plugins.podTopologySpreadScore, web(soft({ topologyKey: host })), clusterOf(nodes, existing)), { a1: 0, a2: 50, b1: 100, b2: 100 }, 'by hostname');
  t.same(scoreAll(plugins.podTopologySpreadScore, web(soft({ maxSkew: 3 })), clusterOf(nodes, [])), { a1: 100, a2: 100, b1: 100, b2: 100 }, 'nothing to count: equal');
  const bare = clusterOf([...nodes, node('bare')], existing);
  t.same(scoreAll(plugins.podTopologySpreadScore, web(soft({})), bare).bare, 0, 'a node without the key of an explicit constraint scores 0');
});

t.test('system default constraints spread a group by hostname (maxSkew 3) and zone (maxSkew 5)', async (t) => {
  const rs = (name: string, nodeName?: string) => pod(name, { owner: 'web', labels: { app: 'web' }, ...(nodeName ? { nodeName } : {}) });
  const cache = clusterOf(nodes, [rs('x', 'a1'), rs('y', 'a1'), rs('z', 'a2'), pod('stranger', { nodeName: 'b1', labels: { app: 'web' } })]);
  const s = scoreAll(plugins.podTopologySpreadScore, rs('new'), cache);
  t.ok(s.b1 === 100 && s.b2 === 100, `the empty zone is best: ${JSON.stringify(s)}`);
  t.ok(s.a2 > s.a1, 'a node with fewer of the group beats a busier one in the same zone');
  t.same(scoreAll(plugins.podTopologySpreadScore, pod('lone'), cache), { a1: 100, a2: 100, b1: 100, b2: 100 }, 'a pod in no group: no constraints');
  const svc = fromLabelSelector({ matchLabels: { app: 'web' } })!;
  const byService = scoreAll(plugins.podTopologySpreadScore, pod('svcpod', { labels: { app: 'web' } }), cache, { serviceSelectors: [svc] });
  t.ok(byService.b2 > byService.b1, `pods a Service selects form a group too: ${JSON.stringify(byService)}`);
  t.same(filterAll(filters, rs('new'), cache), { a1: null, a2: null, b1: null, b2: null }, 'defaults are ScheduleAnyway: they never filter');
});
