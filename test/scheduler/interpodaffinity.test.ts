// InterPodAffinity filter and score over a SchedulerCache, in the manner of upstream's tables:
// existing pods on labelled nodes, an incoming pod, the verdict per node.
import t from 'tap';
import { plugins } from '../../src/scheduler/index.js';
import { newPodInfo } from '../../src/scheduler/podinfo.js';
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

t.test('terms naming one namespace (read from the cache\'s per-selector counts) give the same verdicts and scores as a walk over the pods', async (t) => {
  // The same terms twice: in `namespaces` (one namespace: the cache's incremental counts) and
  // by a namespaceSelector picking that namespace alone (the label-index walk). Existing
  // pods come and go, some terminating (they still count here, unlike for spreading).
  let s = 7;
  const random = () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const cluster = Array.from({ length: 9 }, (_, i) => node(`m${i}`, { labels: i < 8 ? { [zoneKey]: `z${i % 3}` } : {} }));
  const namespaces = { team: { name: 'team' }, other: { name: 'other' } };
  const viaCounts = { namespaces: ['team'] }, viaWalk = { namespaceSelector: { matchLabels: { name: 'team' } } };
  const incoming = (how: object) => ({
    namespace: 'other', labels: { app: 'web' },
    affinity: {
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }, zoneKey, how), term({ tier: 'x' }, zoneKey, how)],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term({ app: 'cache' }, host, how) }],
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' }, host, how)],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3, podAffinityTerm: term({ app: 'db' }, host, how) }],
      },
    },
  });
  const existing = new Map<string, ReturnType<typeof pod>>();
  const cache = clusterOf(cluster, [], namespaces);
  const all = [plugins.interPodAffinityFilter];
  let compared = 0;
  for (let step = 0; step < 120; step++) {
    const name = `e${step}`;
    if (random() < 0.7 || !existing.size) {
      const labels: Record<string, string> = { app: pick(['db', 'web', 'cache']) };
      if (random() < 0.6) labels.tier = 'x';
      const p = on(name, pick(cluster).metadata.name as string, { namespace: pick(['team', 'team', 'other']), labels, deleting: random() < 0.2 });
      existing.set(name, p);
      cache.addOrUpdatePod(p);
    } else {
      const victim = pick([...existing.keys()]);
      cache.removePod(existing.get(victim)!);
      existing.delete(victim);
    }
    if (step % 10) continue;
    const a = pod('in', incoming(viaCounts)), b = pod('in', incoming(viaWalk));
    t.same(filterAll(all, a, cache), filterAll(all, b, cache), `step ${step}: filter`);
    t.same(scoreAll(plugins.interPodAffinityScore, a, cache), scoreAll(plugins.interPodAffinityScore, b, cache), `step ${step}: score`);
    compared++;
  }
  t.equal(compared, 12);
  // Which path each took: the cache's counts (with terminating pods) for the first, a walk for the second.
  const asked: string[] = [];
  const groupOf = cache.matchingPods.bind(cache);
  cache.matchingPods = (ns, sel, key, withTerminating) => { asked.push(`${ns} ${key} ${withTerminating}`); return groupOf(ns, sel, key, withTerminating); };
  filterAll(all, pod('in', incoming(viaWalk)), cache);
  scoreAll(plugins.interPodAffinityScore, pod('in', incoming(viaWalk)), cache);
  t.same(asked, [], 'a namespaceSelector term walks the pods');
  filterAll(all, pod('in', incoming(viaCounts)), cache);
  scoreAll(plugins.interPodAffinityScore, pod('in', incoming(viaCounts)), cache);
  t.same(asked.map((a) => a.split(' ').at(-1)), ['true', 'true', 'true', 'true'], 'affinity (both terms as one selector), anti-affinity and both preferred terms read the counts');
  t.ok(newPodInfo(pod('in', incoming(viaCounts))).affinity?.requiredAffinityAllOf, 'two terms in one namespace are read as one selector');
});
