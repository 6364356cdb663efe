// The policy model in nftables terms: the agent's own table `ip capstan-policy`.
//
//   chain egress  (filter forward, priority 0)  ct established,related accept;
//                                               ip saddr vmap @egress-pods; ip saddr vmap @egress-pods-1
//   chain ingress (filter forward, priority 1)  the same with ip daddr and @ingress-pods, @ingress-pods-1
//   chain egress-to-node (filter input, 0)      the egress chain's rules, for pods → this node
//   chain in-<pod ip> / eg-<pod ip>             five fixed lookups of the pod's own sets, each
//   (in1-<pod ip> / eg1-<pod ip>: generation 1) `counter accept`; then one rule per (rule, peer,
//                                               port) that no set can hold (ipBlock, port range,
//                                               allow-all); last `counter drop`
//   sets in-<pod ip>-pp|-p|-a|-xpp|-xp           the pod's policy rules as elements:
//        peer . proto . port | peer . proto | peer | proto . port | proto
//
// Any added rule with a verdict, any lookup rule or jump element makes the kernel validate the
// whole table at commit (bench/nft-validation.ts: ~70–115 ms at 10,000 pod chains), an element
// of a plain set does not (2–8 ms). So what policies say about a pod lives in elements of its
// own sets wherever it can: a change to selectors or single ports is element adds and
// retirements (re-added with a short expiry: no delete, no grace period). Only a rule no set
// can hold changes the chain: the pod moves to its other generation (new chain, new element,
// the old element retired); the old chain is garbage, deleted later (enforcer.ts).
// The maps are keyed by pod address, so a packet costs a hash lookup, five set lookups and
// the pod's few other rules, whatever the number of policies elsewhere. A pod coming or
// going changes the elements of the pods' sets whose selectors pick it (and of a shared set
// named after the policy rule, where a port range looks one up), not rules. An accept in `egress` ends that base chain only: the packet still
// meets `ingress` (same hook, later priority), so a flow between two pods of this node needs
// both ends' consent. Judged in forward, after the proxy's DNAT: a Service's traffic is
// checked against the endpoint pod. Traffic from this node to its pods passes output, not
// forward: the kubelet's probes and host-network pods of the node are never refused.
import type { BaseChain, Element, Expr, Field, KeyType, SetSpec, TableState } from '../../nft/index.js';
import type { ModelChanges } from './incremental.js';
import type { LocalPod, PeerMatch, PodRules, PolicyModel, PortMatch, Tuple } from './model.js';
import type { AdminTier } from './admin.js';

export const POLICY_TABLE = 'capstan-policy';
export const DENY_COMMENT = 'deny';
/** Comment of a pod chain's fixed set lookups (their counters: packets the pod's sets admitted). */
export const SETS_COMMENT = 'sets';
export const INGRESS_MAP = 'ingress-pods';
export const EGRESS_MAP = 'egress-pods';
/** A pod's chain lives in generation 0 or 1; each generation has its own map (and chain names). */
export type Generation = 0 | 1;
export const mapName = (dir: 'ingress' | 'egress', gen: Generation): string => `${dir === 'ingress' ? INGRESS_MAP : EGRESS_MAP}${gen ? '-1' : ''}`;
/** Map elements live "forever" (timeout flag set: they can be retired by a short expiry). */
export const LIVE_MS = 3650 * 86_400_000;
/** A retired map element lapses this soon: the pod's other generation takes over. */
export const RETIRE_MS = 1;
export const PEER_KEY: KeyType[] = ['ipv4_addr'];
export const TUPLE_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];

export interface BaseChainDef {
  name: string;
  base: BaseChain;
  dir: 'ingress' | 'egress';
  field: 'ip saddr' | 'ip daddr';
}

export const BASE_CHAINS: BaseChainDef[] = [
  { name: 'egress', base: { type: 'filter', hook: 'forward', priority: 0, policy: 'accept' }, dir: 'egress', field: 'ip saddr' },
  { name: 'ingress', base: { type: 'filter', hook: 'forward', priority: 1, policy: 'accept' }, dir: 'ingress', field: 'ip daddr' },
  { name: 'egress-to-node', base: { type: 'filter', hook: 'input', priority: 0, policy: 'accept' }, dir: 'egress', field: 'ip saddr' },
];

/** The admin tier's map (AdminNetworkPolicy, `jump`: Pass returns here) and the baseline tier's (`goto`). */
export const adminMapName = (dir: 'ingress' | 'egress', tier: AdminTier): string => `${dir}-${tier === 'AdminNetworkPolicy' ? 'admin' : 'baseline'}`;
export const ADMIN_MAPS: string[] = (['ingress', 'egress'] as const).flatMap((dir) => [adminMapName(dir, 'AdminNetworkPolicy'), adminMapName(dir, 'BaselineAdminNetworkPolicy')]);
export const NP_MAPS: string[] = (['ingress', 'egress'] as const).flatMap((dir) => [mapName(dir, 0), mapName(dir, 1)]);
/** A map element's verdict kind: the admin tier's chains return to the base chain (Pass, no match). */
export const mapVerdict = (map: string): 'jump' | 'goto' => (map.endsWith('-admin') ? 'jump' : 'goto');

// The admin tier first (its Allow and Deny end the judgement, Pass and no match continue);
// then NetworkPolicy: generation 0's map first (a pod moving to 0 takes effect at the commit;
// one moving to 1, once its retired generation-0 element lapses, RETIRE_MS); a pod isolated
// there never comes back. Last the baseline tier, for pods no NetworkPolicy isolates.
export const baseRules = (c: BaseChainDef): Expr[][] => [
  [{ kind: 'ctState', states: ['established', 'related'] }, { kind: 'accept' }],
  [{ kind: 'vmap', fields: [c.field], map: adminMapName(c.dir, 'AdminNetworkPolicy') }],
  [{ kind: 'vmap', fields: [c.field], map: mapName(c.dir, 0) }],
  [{ kind: 'vmap', fields: [c.field], map: mapName(c.dir, 1) }],
  [{ kind: 'vmap', fields: [c.field], map: adminMapName(c.dir, 'BaselineAdminNetworkPolicy') }],
];

export const MAPS: SetSpec[] = [...NP_MAPS, ...ADMIN_MAPS].map((name): SetSpec => ({ name, keyType: ['ipv4_addr'], map: 'verdict', flags: ['timeout'] }));

export interface RuleSpec {
  exprs: Expr[];
  comment: string;
}

export interface DesiredSet {
  spec: SetSpec;
  /** By element key text. */
  elements: Map<string, Element>;
}

/** Everything of the table that changes with policy: sets, pod chains, map elements. */
export interface DesiredPolicy {
  sets: Map<string, DesiredSet>;
  chains: Map<string, RuleSpec[]>;
  /** Per chain, a text that changes whenever its rules do (cheaper to compare than the rules). */
  signatures: Map<string, string>;
  /** Map name → pod address → the pod's chain. */
  maps: Map<string, Map<string, string>>;
  /** Pod address → the shared sets (peers, tuples) its own sets were expanded from. */
  uses: Map<string, Set<string>>;
  /** Pod address → the shared sets its chains' rules look up (only those sets are in the table), and how many pods look up each. */
  refs: Map<string, Set<string>>;
  refCount: Map<string, number>;
  /**
   * Chains no live map element leads to any more (a pod's old generation, a pod gone) and
   * sets of policies gone, with when they became so: still in the kernel (and in `chains`,
   * `sets`) until collected — deleting costs a grace period, so it happens apart from the
   * change, once the elements leading there lapsed.
   */
  garbage: Map<string, number>;
}

export const chainName = (dir: 'ingress' | 'egress', ip: string, gen: Generation = 0): string => `${dir === 'ingress' ? 'in' : 'eg'}${gen ? '1' : ''}-${ip}`;
/** `in-<ip>`, `in1-<ip>`, `eg-<ip>`, `eg1-<ip>` → direction and address. */
export function parseChainName(name: string): { dir: 'ingress' | 'egress'; ip: string } | undefined {
  const m = /^(in|eg)1?-(.+)$/.exec(name);
  return m ? { dir: m[1] === 'in' ? 'ingress' : 'egress', ip: m[2]! } : undefined;
}
export const elementKey = (key: Element['key']): string => key.join(' . ');

export function peerExprs(p: PeerMatch, field: 'ip saddr' | 'ip daddr'): Expr[] {
  return 'set' in p ? [{ kind: 'lookup', fields: [field], set: p.set }] : [{ kind: 'match', field, value: p.cidr }];
}

export function portExprs(p: PortMatch): Expr[] {
  const proto: Expr = { kind: 'match', field: 'meta l4proto', value: p.protocol };
  if (p.from === undefined) return [proto];
  if (p.from === p.to) return [proto, { kind: 'match', field: 'th dport', value: p.from }];
  return [proto, { kind: 'range', field: 'th dport', from: p.from, to: p.to! }];
}

/** nft rule comments hold at most 127 bytes: longer policy keys are cut (metrics map them back). */
export const policyComment = (key: string): string => (Buffer.byteLength(key) <= 120 ? key : `${key.slice(0, 100)}…`);

/** A pod's own sets, by what their elements hold: peer . proto . port, peer . proto, peer, proto . port, proto. */
export type PodSetKind = 'pp' | 'p' | 'a' | 'xpp' | 'xp';
export const POD_SET_KINDS: PodSetKind[] = ['pp', 'p', 'a', 'xpp', 'xp'];
const POD_SET_KEY: Record<PodSetKind, KeyType[]> = { pp: TUPLE_KEY, p: ['ipv4_addr', 'inet_proto'], a: PEER_KEY, xpp: ['inet_proto', 'inet_service'], xp: ['inet_proto'] };
export const podSetName = (dir: 'ingress' | 'egress', ip: string, kind: PodSetKind): string => `${dir === 'ingress' ? 'in' : 'eg'}-${ip}-${kind}`;
const podSetSpec = (name: string, kind: PodSetKind): SetSpec => ({ name, keyType: POD_SET_KEY[kind], flags: ['timeout'] });

function podSetFields(kind: PodSetKind, peer: Field): Field[] {
  switch (kind) {
    case 'pp': return [peer, 'meta l4proto', 'th dport'];
    case 'p': return [peer, 'meta l4proto'];
    case 'a': return [peer];
    case 'xpp': return ['meta l4proto', 'th dport'];
    case 'xp': return ['meta l4proto'];
  }
}

/** A (peer, port) alternative a set element can hold: a selector's pods (or anyone) with one port, a whole protocol or (pods only) anything. */
function setKind(peer: PeerMatch | undefined, port: PortMatch | undefined): PodSetKind | undefined {
  if (peer && 'cidr' in peer) return undefined;
  if (port && port.from !== undefined && port.from !== port.to) return undefined;
  if (!peer) return !port ? undefined : port.from === undefined ? 'xp' : 'xpp';
  return !port ? 'a' : port.from === undefined ? 'p' : 'pp';
}

/** What policy says about one pod in one direction, in nft terms: its sets' elements, the rest as rules. */
export interface PodForm {
  elements: Map<PodSetKind, Map<string, Element>>;
  /** Rules no set can hold, in policy order. */
  rules: RuleSpec[];
  /** Shared sets (peers, tuples) the elements were expanded from. */
  uses: Set<string>;
  /** Shared sets the rules look up (a selector with a port range). */
  refs: Set<string>;
  /** Policies with at least one alternative among the elements. */
  setPolicies: string[];
}

/** Elements live until retired; re-adding one also renews a retired one. */
const liveElement = (key: Element['key']): Element => ({ key, timeoutMs: LIVE_MS, expiresMs: LIVE_MS });

export function podForm(rules: PodRules, dir: 'ingress' | 'egress', model: Pick<PolicyModel, 'peerSets' | 'tupleSets'>): PodForm {
  const out: PodForm = { elements: new Map(POD_SET_KINDS.map((k) => [k, new Map()])), rules: [], uses: new Set(), refs: new Set(), setPolicies: [] };
  const field = dir === 'ingress' ? 'ip saddr' : 'ip daddr';
  const add = (kind: PodSetKind, key: Element['key']) => out.elements.get(kind)!.set(elementKey(key), liveElement(key));
  const bySet = new Set<string>();
  for (const r of rules.rules) {
    if (r.tuples) {
      out.uses.add(r.tuples);
      bySet.add(r.policy);
      for (const t of model.tupleSets.get(r.tuples) ?? []) add('pp', [...t]);
      continue;
    }
    for (const peer of r.peers ?? [undefined]) {
      for (const port of r.ports ?? [undefined]) {
        const kind = setKind(peer, port);
        if (!kind) {
          const exprs = [...(peer ? peerExprs(peer, field) : []), ...(port ? portExprs(port) : []), { kind: 'counter' } as Expr, { kind: 'accept' } as Expr];
          out.rules.push({ exprs, comment: policyComment(r.policy) });
          if (peer && 'set' in peer) out.refs.add(peer.set);
          continue;
        }
        bySet.add(r.policy);
        const proto = port?.protocol, num = port?.from;
        if (peer && 'set' in peer) {
          out.uses.add(peer.set);
          for (const ip of model.peerSets.get(peer.set) ?? []) add(kind, kind === 'a' ? [ip] : kind === 'p' ? [ip, proto!] : [ip, proto!, num!]);
        } else {
          add(kind, kind === 'xp' ? [proto!] : [proto!, num!]);
        }
      }
    }
  }
  out.setPolicies = [...bySet];
  return out;
}

/** The pod chain: the fixed lookups of its sets, the rules no set holds, the drop. */
function podChain(form: PodForm, dir: 'ingress' | 'egress', ip: string): RuleSpec[] {
  const peer = dir === 'ingress' ? 'ip saddr' : 'ip daddr';
  return [
    ...POD_SET_KINDS.map((k): RuleSpec => ({ exprs: [{ kind: 'lookup', fields: podSetFields(k, peer), set: podSetName(dir, ip, k) }, { kind: 'counter' }, { kind: 'accept' }], comment: SETS_COMMENT })),
    ...form.rules,
    { exprs: [{ kind: 'counter' }, { kind: 'drop' }], comment: DENY_COMMENT },
  ];
}

const peerSet = (name: string, ips: string[]): DesiredSet =>
  ({ spec: { name, keyType: PEER_KEY }, elements: new Map(ips.map((ip) => [ip, { key: [ip] }])) });
const tupleSet = (name: string, tuples: Tuple[]): DesiredSet =>
  ({ spec: { name, keyType: TUPLE_KEY }, elements: new Map(tuples.map((t) => [elementKey(t), { key: [...t] }])) });
export const emptyDesired = (): DesiredPolicy => ({ sets: new Map(), chains: new Map(), signatures: new Map(), maps: new Map(MAPS.map((m) => [m.name, new Map()])), uses: new Map(), refs: new Map(), refCount: new Map(), garbage: new Map() });

/** Writes the pod's sets; returns the chain's signature (its rules beyond the fixed ones). */
function setPodSets(d: DesiredPolicy, ip: string, dir: 'ingress' | 'egress', form: PodForm): string {
  for (const kind of POD_SET_KINDS) {
    const name = podSetName(dir, ip, kind);
    d.sets.set(name, { spec: podSetSpec(name, kind), elements: form.elements.get(kind)! });
    d.garbage.delete(name);
  }
  const uses = d.uses.get(ip) ?? new Set<string>();
  for (const u of form.uses) uses.add(u);
  d.uses.set(ip, uses);
  const refs = d.refs.get(ip) ?? new Set<string>();
  for (const r of form.refs) {
    if (refs.has(r)) continue;
    refs.add(r);
    d.refCount.set(r, (d.refCount.get(r) ?? 0) + 1);
  }
  d.refs.set(ip, refs);
  return JSON.stringify(form.rules);
}

/** Forgets what a pod's chains looked up (before they are recomputed, or the pod went). */
function dropRefs(d: DesiredPolicy, ip: string): void {
  for (const r of d.refs.get(ip) ?? []) {
    const n = (d.refCount.get(r) ?? 1) - 1;
    if (n > 0) d.refCount.set(r, n);
    else d.refCount.delete(r);
  }
  d.refs.delete(ip);
}

/** A shared set as the model has it, if some pod's rule looks it up (else it need not exist). */
function sharedSet(d: DesiredPolicy, model: PolicyModel, name: string): DesiredSet | undefined {
  if (!d.refCount.has(name)) return undefined;
  const ips = model.peerSets.get(name), tuples = model.tupleSets.get(name);
  return ips ? peerSet(name, ips) : tuples ? tupleSet(name, tuples) : undefined;
}

function setPodChain(d: DesiredPolicy, ip: string, dir: 'ingress' | 'egress', gen: Generation, form: PodForm): void {
  const name = chainName(dir, ip, gen);
  d.chains.set(name, podChain(form, dir, ip));
  d.signatures.set(name, JSON.stringify(form.rules));
  d.maps.get(mapName(dir, gen))!.set(ip, name);
  d.garbage.delete(name);
}

function setPodChains(d: DesiredPolicy, pod: LocalPod, model: PolicyModel): void {
  for (const dir of ['ingress', 'egress'] as const) {
    const rules = pod[dir];
    if (!rules) continue;
    const form = podForm(rules, dir, model);
    setPodSets(d, pod.ip, dir, form);
    setPodChain(d, pod.ip, dir, 0, form);
  }
}

const liveGeneration = (d: DesiredPolicy, dir: 'ingress' | 'egress', ip: string): Generation | undefined =>
  d.maps.get(mapName(dir, 0))!.has(ip) ? 0 : d.maps.get(mapName(dir, 1))!.has(ip) ? 1 : undefined;

export function desiredPolicy(model: PolicyModel): DesiredPolicy {
  const d = emptyDesired();
  for (const pod of model.pods) setPodChains(d, pod, model);
  for (const name of d.refCount.keys()) {
    const set = sharedSet(d, model, name);
    if (set) d.sets.set(name, set);
  }
  return d;
}

/** The chains, sets and pod addresses (map keys) a change may touch. */
export interface DesiredKeys {
  sets: Iterable<string>;
  chains: Iterable<string>;
  pods: Iterable<string>;
  /** The maps whose elements for `pods` may change (absent: all). */
  maps?: string[];
}

/**
 * Writes the desired state of the changed pods and sets into `desired` (in place) and
 * returns what those entries were before, with their keys: the diff needs nothing else.
 * A pod's policy rules are elements of its own sets: a change there is element adds and
 * retirements. A pod whose shared sets changed (a peer joined a selector) is recomputed
 * too. Only when the rules no set holds change does the pod move to its other generation:
 * a new chain and map element, the old element retired, the old chain left as garbage — no
 * delete, so no grace period. If the other generation's chain is still there (two changes
 * within the collection delay), the live chain is rewritten in place instead.
 */
export function updateDesired(desired: DesiredPolicy, model: PolicyModel, changes: ModelChanges, now: number): { before: DesiredPolicy; keys: DesiredKeys } {
  const before = emptyDesired();
  const setKeys: string[] = [];
  const touchSet = (name: string) => {
    const old = desired.sets.get(name);
    if (old && !before.sets.has(name)) before.sets.set(name, old);
    setKeys.push(name);
  };
  const podIps = new Set(changes.pods);
  if (changes.sets.size) {
    for (const [ip, uses] of desired.uses) if ([...uses].some((u) => changes.sets.has(u))) podIps.add(ip);
  }
  const shared = new Set(changes.sets);
  for (const ip of podIps) {
    for (const r of desired.refs.get(ip) ?? []) shared.add(r);
    dropRefs(desired, ip);
  }
  const chains: string[] = [];
  const pods = podIps.size ? new Map(model.pods.filter((p) => podIps.has(p.ip)).map((p) => [p.ip, p])) : new Map<string, LocalPod>();
  for (const ip of podIps) {
    desired.uses.delete(ip);
    for (const dir of ['ingress', 'egress'] as const) {
      for (const gen of [0, 1] as const) {
        const name = chainName(dir, ip, gen), map = mapName(dir, gen);
        chains.push(name);
        const old = desired.chains.get(name);
        if (old) { before.chains.set(name, old); before.signatures.set(name, desired.signatures.get(name)!); }
        const target = desired.maps.get(map)!.get(ip);
        if (target) before.maps.get(map)!.set(ip, target);
      }
      for (const kind of POD_SET_KINDS) touchSet(podSetName(dir, ip, kind));
      const live = liveGeneration(desired, dir, ip);
      const rules = pods.get(ip)?.[dir];
      const form = rules && podForm(rules, dir, model);
      if (form) {
        const signature = setPodSets(desired, ip, dir, form);
        if (live !== undefined && desired.signatures.get(chainName(dir, ip, live)) === signature) continue;
      } else {
        for (const kind of POD_SET_KINDS) if (desired.sets.has(podSetName(dir, ip, kind))) desired.garbage.set(podSetName(dir, ip, kind), now);
      }
      if (live !== undefined) {
        desired.maps.get(mapName(dir, live))!.delete(ip);
        desired.garbage.set(chainName(dir, ip, live), now);
      }
      if (!form) continue;
      const other: Generation = live === 0 ? 1 : 0;
      setPodChain(desired, ip, dir, desired.chains.has(chainName(dir, ip, other)) && live !== undefined ? live : other, form);
    }
    for (const r of desired.refs.get(ip) ?? []) shared.add(r);
  }
  for (const name of shared) {
    touchSet(name);
    const set = sharedSet(desired, model, name);
    if (set) {
      desired.sets.set(name, set);
      desired.garbage.delete(name);
    } else if (desired.sets.has(name) && !desired.garbage.has(name)) {
      // Kept until collected: the old generations' chains may still look it up.
      desired.garbage.set(name, now);
    }
  }
  return { before, keys: { sets: setKeys, chains, pods: podIps, maps: NP_MAPS } };
}

export interface Collectable {
  chains: string[];
  sets: string[];
}

/**
 * Garbage older than `minAgeMs`: chains, and sets of policies gone — those only once no
 * garbage chain is left behind that might still look them up.
 */
export function collectable(desired: DesiredPolicy, now: number, minAgeMs: number): Collectable {
  const out: Collectable = { chains: [], sets: [] };
  let chainsLeft = 0;
  for (const [name, since] of desired.garbage) {
    const isChain = desired.chains.has(name);
    if (now - since < minAgeMs) { if (isChain) chainsLeft++; continue; }
    (isChain ? out.chains : out.sets).push(name);
  }
  if (chainsLeft) out.sets = [];
  return out;
}

/** Forgets collected garbage (after its deletion committed). */
export function forgetGarbage(desired: DesiredPolicy, gone: Collectable): void {
  for (const name of gone.chains) {
    desired.chains.delete(name);
    desired.signatures.delete(name);
    desired.garbage.delete(name);
  }
  for (const name of gone.sets) {
    desired.sets.delete(name);
    desired.garbage.delete(name);
  }
}

/**
 * A fresh desired state (every pod in generation 0) rebased on what the kernel holds: pods
 * whose live element is in generation 1 there move to it, and the kernel's garbage (pod
 * chains no element leads to, sets nothing desired names) is kept as garbage to collect.
 * So a restarted agent adopts a table whose generations moved, instead of rebuilding it.
 */
export function adoptGenerations(desired: DesiredPolicy, actual: TableState, now: number): void {
  const live = new Set<string>();
  for (const dir of ['ingress', 'egress'] as const) {
    const inKernel = actual.sets.find((x) => x.name === mapName(dir, 1));
    for (const el of inKernel?.elements ?? []) {
      const ip = String(el.key[0]);
      const name = chainName(dir, ip, 0), moved = chainName(dir, ip, 1);
      if (el.verdict && 'chain' in el.verdict && el.verdict.chain === moved && desired.maps.get(mapName(dir, 0))!.has(ip)) {
        desired.chains.set(moved, desired.chains.get(name)!);
        desired.signatures.set(moved, desired.signatures.get(name)!);
        desired.maps.get(mapName(dir, 1))!.set(ip, moved);
        desired.chains.delete(name);
        desired.signatures.delete(name);
        desired.maps.get(mapName(dir, 0))!.delete(ip);
      }
    }
  }
  for (const m of MAPS) for (const chain of desired.maps.get(m.name)!.values()) live.add(chain);
  for (const c of actual.chains) {
    if (!parseChainName(c.name) || live.has(c.name) || desired.chains.has(c.name)) continue;
    desired.chains.set(c.name, actual.rules.filter((r) => r.chain === c.name).map((r) => ({ exprs: r.exprs, comment: r.comment ?? '' })));
    desired.signatures.set(c.name, 'adopted');
    desired.garbage.set(c.name, now);
  }
  for (const set of actual.sets) {
    if (desired.sets.has(set.name) || MAPS.some((m) => m.name === set.name)) continue;
    desired.sets.set(set.name, { spec: { name: set.name, keyType: set.keyType, ...(set.flags ? { flags: set.flags } : {}) }, elements: new Map(set.elements.map((e) => [elementKey(e.key), { key: e.key }])) });
    desired.garbage.set(set.name, now);
  }
}
