// The cache's incremental structures for spreading: per (namespace, selector) the matching
// pods per node and per topology domain, and the namespace-aware label index. After every
// add, update and delete of pods and nodes (relabelled, removed), assumed and forgotten pods,
// they must equal a count from scratch.
import t from 'tap';
import { fromLabelSelector, matches, type LabelSelector, type Selector } from '../../src/api/labels.js';
import type { KubeObject } from '../../src/api/object.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { newPodInfo } from '../../src/scheduler/podinfo.js';
import { domainCount, domainId, domainIn, topologyKeyId } from '../../src/scheduler/topology.js';
import { node, pod } from './fixtures.js';

const zoneKey = 'topology.kubernetes.io/zone', host = 'kubernetes.io/hostname';
const selectors: [string, LabelSelector][] = [
  ['app=a', { matchLabels: { app: 'a' } }],
  ['app in (b,c)', { matchExpressions: [{ key: 'app', operator: 'In', values: ['b', 'c'] }] }],
  ['app=a,tier=web', { matchLabels: { app: 'a', tier: 'web' } }],
  ['app notin (a)', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }] }],
  ['tier exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }],
];
const namespaces = ['default', 'other'];

/** A small seeded generator, so a failure replays. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

function recount(cache: SchedulerCache, pods: Map<string, KubeObject>, ns: string, sel: Selector, key: string, withTerminating = false): { perNode: Map<string, number>; domains: Map<string, number> } {
  const perNode = new Map<string, number>(), domains = new Map<string, number>();
  for (const p of pods.values()) {
    if (p.metadata.namespace !== ns || (p.metadata.deletionTimestamp && !withTerminating) || !matches(sel, p.metadata.labels)) continue;
    const n = cache.node(p.spec!.nodeName as string)!;
    perNode.set(n.name, (perNode.get(n.name) ?? 0) + 1);
    const v = n.labels[key];
    if (v !== undefined) domains.set(v, (domains.get(v) ?? 0) + 1);
  }
  return { perNode, domains };
}

const sorted = <V>(m: ReadonlyMap<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

t.test('incremental matching-pod counts equal a recount after random pod and node changes', async (t) => {
  const random = rng(22);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const cache = new SchedulerCache();
  const nodeNames = Array.from({ length: 8 }, (_, i) => `n${i}`);
  const live = new Set<string>();
  const addNode = (name: string) => { cache.addNode(node(name, { labels: { [zoneKey]: pick(['z1', 'z2', 'z3']) } })); live.add(name); };
  for (const n of nodeNames.slice(0, 6)) addNode(n);
  /** Pods the informer has shown bound (what the cache must count), by uid. */
  const bound = new Map<string, KubeObject>();
  /** Pods only assumed (bind in flight), by uid. */
  const assumed = new Map<string, KubeObject>();
  const asked = new Set<string>();
  // Each group in both variants: spreading's (terminating pods left out) and inter-pod affinity's.
  const ask = (ns: string, name: string, raw: LabelSelector) => {
    for (const all of [false, true]) cache.matchingPods(ns, fromLabelSelector(raw)!, name, all);
    asked.add(`${ns}|${name}`);
  };
  // Some groups exist from the start, the others are made half-way through.
  ask('default', selectors[0][0], selectors[0][1]);
  ask('other', selectors[3][0], selectors[3][1]);
  let seq = 0;
  const newPod = () => {
    const labels: Record<string, string> = { app: pick(['a', 'b', 'c', 'd']) };
    if (random() < 0.5) labels.tier = pick(['web', 'db']);
    return pod(`p${seq}`, { uid: `u${seq++}`, namespace: pick(namespaces), labels, nodeName: pick([...live]), deleting: random() < 0.1 });
  };
  const check = (step: number) => {
    for (const [name, raw] of selectors) {
      for (const ns of namespaces) {
        if (!asked.has(`${ns}|${name}`)) continue;
        const sel = fromLabelSelector(raw)!;
        const counted = new Map([...bound, ...assumed]);
        for (const all of [false, true]) {
          const g = cache.matchingPods(ns, sel, name, all);
          const what = `${ns} ${name}${all ? ' (terminating too)' : ''}`;
          for (const key of [zoneKey, host]) {
            const want = recount(cache, counted, ns, sel, key, all);
            t.same(sorted(g.domains(key)), sorted(want.domains), `step ${step}: ${what} per ${key}`);
            if (key === zoneKey) {
              t.same(sorted(new Map([...g.perNode].map(([n, c]) => [n.name, c]))), sorted(want.perNode), `step ${step}: ${what} per node`);
              t.equal(g.total, [...want.perNode.values()].reduce((a, b) => a + b, 0), `step ${step}: ${what} in all`);
            }
          }
        }
        // The label index hands out this namespace's pods only, and every matching one.
        const candidates = [...cache.candidates(sel, new Set([ns]))];
        t.ok(candidates.every((p) => p.info.namespace === ns), `step ${step}: candidates stay in ${ns}`);
        const matching = [...counted.values()].filter((p) => p.metadata.namespace === ns && matches(sel, p.metadata.labels)).map((p) => p.metadata.uid);
        const got = new Set(candidates.map((p) => p.info.uid));
        t.ok(matching.every((u) => got.has(u as string)), `step ${step}: candidates of ${ns} ${name} include every match`);
      }
    }
  };
  for (let step = 0; step < 400; step++) {
    if (step === 150) for (const [name, raw] of selectors) for (const ns of namespaces) ask(ns, name, raw);
    const r = random();
    const uids = [...bound.keys()];
    if (r < 0.35 || !uids.length) {
      const p = newPod();
      bound.set(p.metadata.uid as string, p);
      cache.addOrUpdatePod(p);
    } else if (r < 0.45) {
      const p = newPod();
      assumed.set(p.metadata.uid as string, p);
      cache.assumePod(newPodInfo(p), p.spec!.nodeName as string);
    } else if (r < 0.52 && assumed.size) {
      const uid = pick([...assumed.keys()]);
      const p = assumed.get(uid)!;
      assumed.delete(uid);
      if (random() < 0.5) cache.forgetPod(newPodInfo(p));
      else { bound.set(uid, p); cache.addOrUpdatePod(p); }
    } else if (r < 0.67) {
      // An update: new labels, or the pod starts terminating.
      const uid = pick(uids), old = bound.get(uid)!;
      const labels = random() < 0.5 ? { app: pick(['a', 'b', 'c']), tier: 'web' } : old.metadata.labels;
      const p = { ...old, metadata: { ...old.metadata, labels, resourceVersion: String(step), ...(random() < 0.3 ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) } };
      bound.set(uid, p);
      cache.addOrUpdatePod(p);
    } else if (r < 0.8) {
      const uid = pick(uids);
      cache.removePod(bound.get(uid)!);
      bound.delete(uid);
    } else if (r < 0.92) {
      // A node relabelled (moved to another zone), or a new one.
      const name = pick(nodeNames);
      addNode(name);
    } else if (live.size > 2) {
      const name = pick([...live]);
      cache.removeNode(node(name));
      live.delete(name);
    }
    check(step);
  }
});

t.test('a relabelled node moves its pods to the new domain; terminating and other namespaces\' pods do not count', async (t) => {
  const cache = new SchedulerCache();
  cache.addNode(node('a1', { labels: { [zoneKey]: 'a' } }));
  cache.addNode(node('b1', { labels: { [zoneKey]: 'b' } }));
  const sel = fromLabelSelector({ matchLabels: { app: 'web' } })!;
  const g = cache.matchingPods('default', sel, 'web');
  const zones = () => Object.fromEntries(g.domains(zoneKey));
  cache.addOrUpdatePod(pod('x', { nodeName: 'a1', labels: { app: 'web' } }));
  cache.addOrUpdatePod(pod('y', { nodeName: 'a1', labels: { app: 'web' } }));
  cache.addOrUpdatePod(pod('z', { nodeName: 'b1', labels: { app: 'web' }, namespace: 'other' }));
  cache.addOrUpdatePod(pod('w', { nodeName: 'b1', labels: { app: 'web' }, deleting: true }));
  t.same(zones(), { a: 2 });
  cache.addNode(node('a1', { labels: { [zoneKey]: 'c' } }));
  t.same(zones(), { c: 2 });
  cache.removePod(pod('x', { nodeName: 'a1', labels: { app: 'web' } }));
  t.same(zones(), { c: 1 });
  const y = pod('y', { nodeName: 'a1', labels: { app: 'web' } });
  cache.addOrUpdatePod({ ...y, metadata: { ...y.metadata, resourceVersion: '2', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  t.same(zones(), {});
  t.equal(g.perNode.size, 0);
  // Inter-pod affinity's variant of the same group counts the terminating pods as well.
  const withTerminating = cache.matchingPods('default', sel, 'web', true);
  t.same(Object.fromEntries(withTerminating.domains(zoneKey)), { b: 1, c: 1 });
  t.equal(withTerminating.total, 2);
});

t.test('each node carries the integer domain of every label key, kept across relabels', async (t) => {
  const cache = new SchedulerCache();
  cache.addNode(node('a1', { labels: { [zoneKey]: 'a' } }));
  cache.addNode(node('b1', { labels: { [zoneKey]: 'b', rack: 'r1' } }));
  const zone = topologyKeyId(zoneKey), rack = topologyKeyId('rack'), missing = topologyKeyId('never-on-a-node');
  const a1 = cache.node('a1')!, b1 = cache.node('b1')!;
  t.equal(domainIn(a1.domains, zone), domainId(zone, 'a'));
  t.equal(domainIn(b1.domains, zone), domainId(zone, 'b'));
  t.not(domainIn(a1.domains, zone), domainIn(b1.domains, zone));
  t.equal(domainIn(a1.domains, rack), -1, 'a key the node lacks');
  t.equal(domainIn(b1.domains, missing), -1, 'a key made after the node was seen');
  t.ok(domainCount(zone) >= 2);
  cache.addNode(node('a1', { labels: { [zoneKey]: 'b', rack: 'r1' } }));
  t.equal(domainIn(cache.node('a1')!.domains, zone), domainIn(b1.domains, zone), 'relabelled into b1\'s zone');
  t.equal(domainIn(cache.node('a1')!.domains, rack), domainId(rack, 'r1'));
});
