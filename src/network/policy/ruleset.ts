// The policy model in nftables terms: the agent's own table `ip capstan-policy`.
//
//   chain egress  (filter forward, priority 0)  ct established,related accept;
//                                               ip saddr vmap @egress-pods; ip saddr vmap @egress-pods-1
//   chain ingress (filter forward, priority 1)  the same with ip daddr and @ingress-pods, @ingress-pods-1
//   chain egress-to-node (filter input, 0)      the egress chain's rules, for pods → this node
//   chain in-<pod ip> / eg-<pod ip>             one rule per (rule, peer, port) of the policies
//   (in1-<pod ip> / eg1-<pod ip>: generation 1) selecting the pod, each `counter accept`; last `counter drop`
//
// A pod's chain changes by moving to its other generation (new chain, new element, the old
// element retired by a short expiry): a change adds and never deletes, so it never waits
// for the kernel's RCU grace period; the old chain is garbage, deleted later (enforcer.ts).
// The maps are keyed by pod address, so a packet costs a hash lookup plus the rules of the
// policies that select its pod, whatever the number of policies elsewhere. Peers picked by
// selectors live in sets named after their policy rule: a pod coming or going changes
// elements, not rules. An accept in `egress` ends that base chain only: the packet still
// meets `ingress` (same hook, later priority), so a flow between two pods of this node needs
// both ends' consent. Judged in forward, after the proxy's DNAT: a Service's traffic is
// checked against the endpoint pod. Traffic from this node to its pods passes output, not
// forward: the kubelet's probes and host-network pods of the node are never refused.
import type { BaseChain, Element, Expr, KeyType, SetSpec, TableState } from '../../nft/index.js';
import type { ModelChanges } from './incremental.js';
import type { LocalPod, PeerMatch, PodRules, PolicyModel, PortMatch, RuleMatch, Tuple } from './model.js';

export const POLICY_TABLE = 'capstan-policy';
export const DENY_COMMENT = 'deny';
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

// Generation 0's map first: a pod moving to 0 takes effect at the commit; one moving to 1,
// once its retired generation-0 element lapses (RETIRE_MS).
export const baseRules = (c: BaseChainDef): Expr[][] => [
  [{ kind: 'ctState', states: ['established', 'related'] }, { kind: 'accept' }],
  [{ kind: 'vmap', fields: [c.field], map: mapName(c.dir, 0) }],
  [{ kind: 'vmap', fields: [c.field], map: mapName(c.dir, 1) }],
];

export const MAPS: SetSpec[] = (['ingress', 'egress'] as const).flatMap((dir) => ([0, 1] as const).map((gen): SetSpec =>
  ({ name: mapName(dir, gen), keyType: ['ipv4_addr'], map: 'verdict', flags: ['timeout'] })));

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

function peerExprs(p: PeerMatch, field: 'ip saddr' | 'ip daddr'): Expr[] {
  return 'set' in p ? [{ kind: 'lookup', fields: [field], set: p.set }] : [{ kind: 'match', field, value: p.cidr }];
}

function portExprs(p: PortMatch): Expr[] {
  const proto: Expr = { kind: 'match', field: 'meta l4proto', value: p.protocol };
  if (p.from === undefined) return [proto];
  if (p.from === p.to) return [proto, { kind: 'match', field: 'th dport', value: p.from }];
  return [proto, { kind: 'range', field: 'th dport', from: p.from, to: p.to! }];
}

/** nft rule comments hold at most 127 bytes: longer policy keys are cut (metrics map them back). */
export const policyComment = (key: string): string => (Buffer.byteLength(key) <= 120 ? key : `${key.slice(0, 100)}…`);

export function ruleExprs(r: RuleMatch, dir: 'ingress' | 'egress'): Expr[][] {
  const verdict: Expr[] = [{ kind: 'counter' }, { kind: 'accept' }];
  if (r.tuples) return [[{ kind: 'lookup', fields: ['ip daddr', 'meta l4proto', 'th dport'], set: r.tuples }, ...verdict]];
  const field = dir === 'ingress' ? 'ip saddr' : 'ip daddr';
  const peers = r.peers ? r.peers.map((p) => peerExprs(p, field)) : [[]];
  const ports = r.ports ? r.ports.map(portExprs) : [[]];
  return peers.flatMap((pe) => ports.map((po) => [...pe, ...po, ...verdict]));
}

function podChain(rules: PodRules, dir: 'ingress' | 'egress'): RuleSpec[] {
  const out = rules.rules.flatMap((r) => ruleExprs(r, dir).map((exprs) => ({ exprs, comment: policyComment(r.policy) })));
  out.push({ exprs: [{ kind: 'counter' }, { kind: 'drop' }], comment: DENY_COMMENT });
  return out;
}

const peerSet = (name: string, ips: string[]): DesiredSet =>
  ({ spec: { name, keyType: PEER_KEY }, elements: new Map(ips.map((ip) => [ip, { key: [ip] }])) });
const tupleSet = (name: string, tuples: Tuple[]): DesiredSet =>
  ({ spec: { name, keyType: TUPLE_KEY }, elements: new Map(tuples.map((t) => [elementKey(t), { key: [...t] }])) });
const emptyDesired = (): DesiredPolicy => ({ sets: new Map(), chains: new Map(), signatures: new Map(), maps: new Map(MAPS.map((m) => [m.name, new Map()])), garbage: new Map() });

function setPodChain(d: DesiredPolicy, ip: string, dir: 'ingress' | 'egress', gen: Generation, rules: PodRules): void {
  const name = chainName(dir, ip, gen);
  d.chains.set(name, podChain(rules, dir));
  d.signatures.set(name, JSON.stringify(rules.rules));
  d.maps.get(mapName(dir, gen))!.set(ip, name);
  d.garbage.delete(name);
}

function setPodChains(d: DesiredPolicy, pod: LocalPod): void {
  for (const dir of ['ingress', 'egress'] as const) {
    const rules = pod[dir];
    if (rules) setPodChain(d, pod.ip, dir, 0, rules);
  }
}

const liveGeneration = (d: DesiredPolicy, dir: 'ingress' | 'egress', ip: string): Generation | undefined =>
  d.maps.get(mapName(dir, 0))!.has(ip) ? 0 : d.maps.get(mapName(dir, 1))!.has(ip) ? 1 : undefined;

export function desiredPolicy(model: PolicyModel): DesiredPolicy {
  const d = emptyDesired();
  for (const [name, ips] of model.peerSets) d.sets.set(name, peerSet(name, ips));
  for (const [name, tuples] of model.tupleSets) d.sets.set(name, tupleSet(name, tuples));
  for (const pod of model.pods) setPodChains(d, pod);
  return d;
}

/** The chains, sets and pod addresses (map keys) a change may touch. */
export interface DesiredKeys {
  sets: Iterable<string>;
  chains: Iterable<string>;
  pods: Iterable<string>;
}

/**
 * Writes the desired state of the changed pods and sets into `desired` (in place) and
 * returns what those entries were before, with their keys: the diff needs nothing else.
 * A pod whose rules change moves to its other generation: a new chain and map element, the
 * old element retired, the old chain left as garbage — no delete, so no grace period. If
 * the other generation's chain is still there (two changes within the collection delay),
 * the live chain is rewritten in place instead.
 */
export function updateDesired(desired: DesiredPolicy, model: PolicyModel, changes: ModelChanges, now: number): { before: DesiredPolicy; keys: DesiredKeys } {
  const before = emptyDesired();
  for (const name of changes.sets) {
    const old = desired.sets.get(name);
    if (old) before.sets.set(name, old);
    const ips = model.peerSets.get(name), tuples = model.tupleSets.get(name);
    if (ips || tuples) {
      desired.sets.set(name, ips ? peerSet(name, ips) : tupleSet(name, tuples!));
      desired.garbage.delete(name);
    } else if (old) {
      // Kept until collected: the old generations' chains may still look it up.
      desired.garbage.set(name, now);
    }
  }
  const chains: string[] = [];
  const pods = changes.pods.size ? new Map(model.pods.filter((p) => changes.pods.has(p.ip)).map((p) => [p.ip, p])) : new Map<string, LocalPod>();
  for (const ip of changes.pods) {
    for (const dir of ['ingress', 'egress'] as const) {
      for (const gen of [0, 1] as const) {
        const name = chainName(dir, ip, gen), map = mapName(dir, gen);
        chains.push(name);
        const old = desired.chains.get(name);
        if (old) { before.chains.set(name, old); before.signatures.set(name, desired.signatures.get(name)!); }
        const target = desired.maps.get(map)!.get(ip);
        if (target) before.maps.get(map)!.set(ip, target);
      }
      const live = liveGeneration(desired, dir, ip);
      const rules = pods.get(ip)?.[dir];
      if (live !== undefined && rules && desired.signatures.get(chainName(dir, ip, live)) === JSON.stringify(rules.rules)) continue;
      if (live !== undefined) {
        desired.maps.get(mapName(dir, live))!.delete(ip);
        desired.garbage.set(chainName(dir, ip, live), now);
      }
      if (!rules) continue;
      const other: Generation = live === 0 ? 1 : 0;
      setPodChain(desired, ip, dir, desired.chains.has(chainName(dir, ip, other)) && live !== undefined ? live : other, rules);
    }
  }
  return { before, keys: { sets: changes.sets, chains, pods: changes.pods } };
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
    desired.sets.set(set.name, { spec: { name: set.name, keyType: set.keyType }, elements: new Map(set.elements.map((e) => [elementKey(e.key), { key: e.key }])) });
    desired.garbage.set(set.name, now);
  }
}
