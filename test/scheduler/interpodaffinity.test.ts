// InterPodAffinity filter and score over a SchedulerCache, in the manner of upstream's tables:
// existing pods on labelled nodes, an incoming pod, the verdict per node.
import t from 'tap';
import { plugins } from '../../src/scheduler/index.js';
import { clusterOf, filterAll, node, pod, scoreAll, type PodOpts } from './fixtures.js';

const zoneKey = 'topology.kubernetes.io/zone', host = 'kubernetes.io/hostname';
const nodes = [
  node('n1', { labels: { [zoneKey]: 'a' } }), node('n2', { labels: { [zoneKey]: 'a' } }),
  node('n3', { labels: { [zoneKey]: 'b' } }), node('n4'),
];
const term = (labels: Record<string, string>, topologyKey: string, extra: object = {}) => ({ labelSelector: { matchLabels: labels }, topologyKey, ...extra });
const affinity = (...terms: object[]) => ({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } });
const anti = (...terms: object[]) => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } });
const on = (name: string, nodeName: string, o: PodOpts = {}) => pod(name, { nodeName, ...o });
const filters = [plugins.interPodAffinityFilter];
const A = plugins.errAffinity, N = plugins.errAntiAffinity, E = plugins.errExistingAntiAffinity;

interface Case { name: string; pod: PodOpts; existing?: ReturnType<typeof pod>[]; namespaces?: Record<string, Record<string, string>>; want: Record<string, string | null> }

const cases: Case[] = [
  { name: 'no affinity fits everywhere', pod: {}, existing: [on('x', 'n1', { labels: { app: 'db' } })], want: { n1: null, n2: null, n3: null, n4: null } },
  {
    name: 'required affinity by zone: nodes in the zone of a matching pod', pod: { affinity: affinity(term({ app: 'db' }, zoneKey)) },
    existing: [on('x', 'n1', { labels: { app: 'db' } })], want: { n1: null, n2: null, n3: A, n4: A },
  },
  {
    name: 'required affinity with no matching pod anywhere', pod: { affinity: affinity(term({ app: 'db' }, zoneKey)) },
    existing: [on('x', 'n1', { labels: { app: 'web' } })], want: { n1: A, n2: A, n3: A, n4: A },
  },
  {
    name: 'the first pod of a group with affinity to itself may go where the key exists', pod: { labels: { app: 'db' }, affinity: affinity(term({ app: 'db' }, zoneKey)) },
    want: { n1: null, n2: null, n3: null, n4: A },
  },
  {
    name: 'affinity terms are ANDed: one pod must match all of them', pod: { affinity: affinity(term({ app: 'db' }, zoneKey), term({ tier: 'x' }, zoneKey)) },
    existing: [on('x', 'n1', { labels: { app: 'db' } }), on('y', 'n3', { labels: { tier: 'x' } })], want: { n1: A, n2: A, n3: A, n4: A },
  },
  {
    name: 'affinity looks in the pod\'s own namespace by default', pod: { affinity: affinity(term({ app: 'db' }, zoneKey)) },
    existing: [on('x', 'n1', { labels: { app: 'db' }, namespace: 'other' })], want: { n1: A, n2: A, n3: A, n4: A },
  },
  {
    name: 'affinity in listed namespaces', pod: { affinity: affinity(term({ app: 'db' }, zoneKey, { namespaces: ['other'] })) },
    existing: [on('x', 'n3', { labels: { app: 'db' }, namespace: 'other' })], want: { n1: A, n2: A, n3: null, n4: A },
  },
  {
    name: 'affinity by namespaceSelector', pod: { affinity: affinity(term({ app: 'db' }, zoneKey, { namespaceSelector: { matchLabels: { team: 'x' } } })) },
    existing: [on('x', 'n3', { labels: { app: 'db' }, namespace: 'teamx' }), on('y', 'n1', { labels: { app: 'db' }, namespace: 'teamy' })],
    namespaces: { teamx: { team: 'x' }, teamy: { team: 'y' } }, want: { n1: A, n2: A, n3: null, n4: A },
  },
  {
    name: 'an empty namespaceSelector means every namespace', pod: { affinity: affinity(term({ app: 'db' }, zoneKey, { namespaceSelector: {} })) },
    existing: [on('x', 'n3', { labels: { app: 'db' }, namespace: 'elsewhere' })], want: { n1: A, n2: A, n3: null, n4: A },
  },
  {
    name: 'anti-affinity by hostname keeps off the node of a matching pod', pod: { affinity: anti(term({ app: 'web' }, host)) },
    existing: [on('x', 'n1', { labels: { app: 'web' } })], want: { n1: N, n2: null, n3: null, n4: null },
  },
  {
    name: 'anti-affinity by zone keeps off the whole zone; a node without the key is fine', pod: { affinity: anti(term({ app: 'web' }, zoneKey)) },
    existing: [on('x', 'n1', { labels: { app: 'web' } })], want: { n1: N, n2: N, n3: null, n4: null },
  },
  {
    name: 'existing pods\' anti-affinity against the incoming pod (symmetry)', pod: { labels: { app: 'web' } },
    existing: [on('x', 'n3', { labels: { app: 'db' }, affinity: anti(term({ app: 'web' }, zoneKey)) })], want: { n1: null, n2: null, n3: E, n4: null },
  },
  {
    name: 'existing anti-affinity in another namespace does not select the pod', pod: { labels: { app: 'web' } },
    existing: [on('x', 'n3', { namespace: 'other', affinity: anti(term({ app: 'web' }, zoneKey)) })], want: { n1: null, n2: null, n3: null, n4: null },
  },
  {
    name: 'matchLabelKeys narrows the selector to the pod\'s own value', pod: { labels: { app: 'web', rev: '2' }, affinity: anti(term({ app: 'web' }, host, { matchLabelKeys: ['rev'] })) },
    existing: [on('old', 'n1', { labels: { app: 'web', rev: '1' } }), on('new', 'n2', { labels: { app: 'web', rev: '2' } })], want: { n1: null, n2: N, n3: null, n4: null },
  },
  {
    name: 'mismatchLabelKeys excludes pods with the pod\'s value', pod: { labels: { tenant: 't1' }, affinity: anti(term({}, zoneKey, { mismatchLabelKeys: ['tenant'], labelSelector: { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] } })) },
    existing: [on('mine', 'n1', { labels: { tenant: 't1' } }), on('theirs', 'n3', { labels: { tenant: 't2' } })], want: { n1: null, n2: null, n3: N, n4: null },
  },
  {
    name: 'a terminating pod still counts', pod: { affinity: anti(term({ app: 'web' }, host)) },
    existing: [on('x', 'n2', { labels: { app: 'web' }, deleting: true })], want: { n1: null, n2: N, n3: null, n4: null },
  },
];

t.test('InterPodAffinity filter', async (t) => {
  for (const c of cases) {
    const cache = clusterOf(nodes, c.existing ?? [], c.namespaces);
    t.same(filterAll(filters, pod('p', c.pod), cache), c.want, c.name);
  }
});

t.test('existing anti-affinity counts follow pods leaving and nodes being relabelled', async (t) => {
  const holder = on('x', 'n1', { labels: { app: 'db' }, affinity: anti(term({ app: 'web' }, zoneKey)) });
  const cache = clusterOf(nodes, [holder]);
  const incoming = pod('p', { labels: { app: 'web' } });
  t.same(filterAll(filters, incoming, cache), { n1: E, n2: E, n3: null, n4: null });
  cache.addNode(node('n1', { labels: { [zoneKey]: 'b' } }));
  t.same(filterAll(filters, incoming, cache), { n1: E, n2: null, n3: E, n4: null }, 'n1 moved to zone b and its pod\'s term with it');
  cache.removePod(holder);
  t.same(filterAll(filters, incoming, cache), { n1: null, n2: null, n3: null, n4: null }, 'gone with the pod');
});

t.test('InterPodAffinity score', async (t) => {
  const preferred = (kind: 'podAffinity' | 'podAntiAffinity', weight: number, labels: Record<string, string>, key: string) =>
    ({ [kind]: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, podAffinityTerm: term(labels, key) }] } });
  const existing = [on('db', 'n1', { labels: { app: 'db' } }), on('web', 'n3', { labels: { app: 'web' } })];
  const cache = clusterOf(nodes, existing);
  t.same(scoreAll(plugins.interPodAffinityScore, pod('p', { affinity: preferred('podAffinity', 5, { app: 'db' }, zoneKey) }), cache),
    { n1: 100, n2: 100, n3: 0, n4: 0 }, 'preferred affinity: the zone of the matching pod');
  t.same(scoreAll(plugins.interPodAffinityScore, pod('p', { affinity: preferred('podAntiAffinity', 5, { app: 'db' }, host) }), cache),
    { n1: 0, n2: 100, n3: 100, n4: 100 }, 'preferred anti-affinity: away from the matching pod');
  t.same(scoreAll(plugins.interPodAffinityScore, pod('p'), cache), { n1: 0, n2: 0, n3: 0, n4: 0 }, 'no terms on either side: all zero');
  const both = { ...preferred('podAffinity', 10, { app: 'db' }, zoneKey), ...preferred('podAntiAffinity', 5, { app: 'web' }, zoneKey) };
  t.same(scoreAll(plugins.interPodAffinityScore, pod('p', { affinity: both }), cache), { n1: 100, n2: 100, n3: 0, n4: 33 }, 'weights add per topology pair, min-max normalised');
  const symmetric = clusterOf(nodes, [on('x', 'n3', { labels: { app: 'db' }, affinity: preferred('podAffinity', 7, { app: 'web' }, zoneKey) }), on('y', 'n1', { affinity: affinity(term({ app: 'web' }, host)) })]);
  t.same(scoreAll(plugins.interPodAffinityScore, pod('p', { labels: { app: 'web' } }), symmetric), { n1: 14, n2: 0, n3: 100, n4: 0 },
    'existing pods\' preferred terms (weight 7) and required affinity terms (hardPodAffinityWeight 1) that select the incoming pod');
});
