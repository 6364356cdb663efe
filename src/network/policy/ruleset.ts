// The policy model in nftables terms: the agent's own table `ip capstan-policy`.
//
//   chain egress  (filter forward, priority 0)  ct established,related accept; ip saddr vmap @egress-pods
//   chain ingress (filter forward, priority 1)  ct established,related accept; ip daddr vmap @ingress-pods
//   chain egress-to-node (filter input, 0)      the egress chain's two rules, for pods → this node
//   chain in-<pod ip> / eg-<pod ip>             one rule per (rule, peer, port) of the policies
//                                               selecting the pod, each `counter accept`; last `counter drop`
//
// The maps are keyed by pod address, so a packet costs a hash lookup plus the rules of the
// policies that select its pod, whatever the number of policies elsewhere. Peers picked by
// selectors live in sets named after their policy rule: a pod coming or going changes
// elements, not rules. An accept in `egress` ends that base chain only: the packet still
// meets `ingress` (same hook, later priority), so a flow between two pods of this node needs
// both ends' consent. Judged in forward, after the proxy's DNAT: a Service's traffic is
// checked against the endpoint pod. Traffic from this node to its pods passes output, not
// forward: the kubelet's probes and host-network pods of the node are never refused.
import type { BaseChain, Element, Expr, KeyType, SetSpec } from '../../nft/index.js';
import type { LocalPod, PeerMatch, PodRules, PolicyModel, PortMatch, RuleMatch } from './model.js';

export const POLICY_TABLE = 'capstan-policy';
export const DENY_COMMENT = 'deny';
export const INGRESS_MAP = 'ingress-pods';
export const EGRESS_MAP = 'egress-pods';
export const PEER_KEY: KeyType[] = ['ipv4_addr'];
export const TUPLE_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];

export interface BaseChainDef {
  name: string;
  base: BaseChain;
  map: string;
  field: 'ip saddr' | 'ip daddr';
}

export const BASE_CHAINS: BaseChainDef[] = [
  { name: 'egress', base: { type: 'filter', hook: 'forward', priority: 0, policy: 'accept' }, map: EGRESS_MAP, field: 'ip saddr' },
  { name: 'ingress', base: { type: 'filter', hook: 'forward', priority: 1, policy: 'accept' }, map: INGRESS_MAP, field: 'ip daddr' },
  { name: 'egress-to-node', base: { type: 'filter', hook: 'input', priority: 0, policy: 'accept' }, map: EGRESS_MAP, field: 'ip saddr' },
];

export const baseRules = (c: BaseChainDef): Expr[][] => [
  [{ kind: 'ctState', states: ['established', 'related'] }, { kind: 'accept' }],
  [{ kind: 'vmap', fields: [c.field], map: c.map }],
];

export const MAPS: SetSpec[] = [
  { name: INGRESS_MAP, keyType: ['ipv4_addr'], map: 'verdict' },
  { name: EGRESS_MAP, keyType: ['ipv4_addr'], map: 'verdict' },
];

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
}

export const chainName = (dir: 'ingress' | 'egress', ip: string): string => `${dir === 'ingress' ? 'in' : 'eg'}-${ip}`;
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

export function desiredPolicy(model: PolicyModel): DesiredPolicy {
  const sets = new Map<string, DesiredSet>();
  for (const [name, ips] of model.peerSets) {
    sets.set(name, { spec: { name, keyType: PEER_KEY }, elements: new Map(ips.map((ip) => [ip, { key: [ip] }])) });
  }
  for (const [name, tuples] of model.tupleSets) {
    sets.set(name, { spec: { name, keyType: TUPLE_KEY }, elements: new Map(tuples.map((t) => [elementKey(t), { key: [...t] }])) });
  }
  const chains = new Map<string, RuleSpec[]>();
  const signatures = new Map<string, string>();
  const maps = new Map<string, Map<string, string>>([[INGRESS_MAP, new Map()], [EGRESS_MAP, new Map()]]);
  const add = (pod: LocalPod, dir: 'ingress' | 'egress') => {
    const rules = pod[dir];
    if (!rules) return;
    const name = chainName(dir, pod.ip);
    chains.set(name, podChain(rules, dir));
    signatures.set(name, JSON.stringify(rules.rules));
    maps.get(dir === 'ingress' ? INGRESS_MAP : EGRESS_MAP)!.set(pod.ip, name);
  };
  for (const pod of model.pods) { add(pod, 'ingress'); add(pod, 'egress'); }
  return { sets, chains, signatures, maps };
}
