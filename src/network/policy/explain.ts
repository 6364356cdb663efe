// Which policy allows or refuses a flow, read from the model the agent enforces (not from
// the API): `capstan policy explain` asks the agent for this. Per direction, in the order the
// kernel judges: admin rules (AdminNetworkPolicy), NetworkPolicy, baseline rules
// (BaselineAdminNetworkPolicy), then allowed.
import { cidrContains, parseCidr, parseIPv4 } from '../../util/index.js';
import type { AdminModel, AdminRuleMatch, AdminTier } from './admin.js';
import type { PeerMatch, PodRules, PolicyModel, PortMatch, Protocol, RuleMatch, Tuple } from './model.js';

export interface AdminDecision {
  kind: AdminTier;
  policy: string;
  rule: string;
  action: AdminRuleMatch['action'];
}

export interface DirectionVerdict {
  pod: string;
  /** Isolated by NetworkPolicy: some policy of its namespace selects the pod for this direction. */
  isolated: boolean;
  allowed: boolean;
  /** The NetworkPolicies with a rule that allows the flow (when NetworkPolicy decided). */
  allowedBy: string[];
  /** The NetworkPolicies isolating the pod (when none allows: they refuse it together). */
  policies: string[];
  /** The admin (Allow, Deny) or baseline rule that decided, when one did. */
  decidedBy?: AdminDecision;
  /** The admin rule whose Pass handed the flow on to NetworkPolicy. */
  passedBy?: AdminDecision;
}

export interface Explanation {
  flow: { src: string; dst: string; port: number; protocol: Protocol };
  egress?: DirectionVerdict;
  ingress?: DirectionVerdict;
  /** No pod of this node is an end of the flow: this node does not judge it. */
  enforcedHere: boolean;
  allowed: boolean;
}

type Sets = { peerSets: Map<string, string[]>; tupleSets: Map<string, Tuple[]> };

const peerIn = (sets: Sets, p: PeerMatch, peer: string): boolean => 'set' in p
  ? (sets.peerSets.get(p.set) ?? []).includes(peer)
  : cidrContains(parseCidr(p.cidr)!, parseIPv4(peer) ?? -1);
const portIn = (ports: PortMatch[] | undefined, port: number, protocol: Protocol): boolean =>
  !ports || ports.some((p) => p.protocol === protocol && (p.from === undefined || (port >= p.from && port <= p.to!)));
const tupleIn = (sets: Sets, name: string, peer: string, port: number, protocol: Protocol): boolean =>
  (sets.tupleSets.get(name) ?? []).some(([ip, p, n]) => ip === peer && p === protocol && n === port);

function ruleAllows(model: PolicyModel, r: RuleMatch, peer: string, port: number, protocol: Protocol): boolean {
  if (r.tuples) return tupleIn(model, r.tuples, peer, port, protocol);
  return (!r.peers || r.peers.some((p) => peerIn(model, p, peer))) && portIn(r.ports, port, protocol);
}

/** Whether an admin or baseline rule matches: a peer and a port, or a named-port tuple. */
export function adminRuleMatches(admin: Sets, r: AdminRuleMatch, peer: string, port: number, protocol: Protocol): boolean {
  if (r.tuples && tupleIn(admin, r.tuples, peer, port, protocol)) return true;
  if (r.ports && !r.ports.length) return false;
  return r.peers.some((p) => peerIn(admin, p, peer)) && portIn(r.ports, port, protocol);
}

const decision = (r: AdminRuleMatch): AdminDecision => ({ kind: r.tier, policy: r.policy, rule: r.rule, action: r.action });

function judge(model: PolicyModel, admin: AdminModel | undefined, pod: { key: string; ip: string } | undefined, dir: 'ingress' | 'egress', rules: PodRules | undefined, peer: string, port: number, protocol: Protocol): DirectionVerdict | undefined {
  if (!pod) return undefined;
  const tiers = admin?.pods.get(pod.ip);
  let passedBy: AdminDecision | undefined;
  for (const r of tiers?.admin[dir] ?? []) {
    if (!adminRuleMatches(admin!, r, peer, port, protocol)) continue;
    if (r.action === 'Pass') { passedBy = decision(r); break; }
    return { pod: pod.key, isolated: !!rules, allowed: r.action === 'Allow', allowedBy: [], policies: rules?.policies ?? [], decidedBy: decision(r) };
  }
  const extra = passedBy ? { passedBy } : {};
  if (rules) {
    const allowedBy = [...new Set(rules.rules.filter((r) => ruleAllows(model, r, peer, port, protocol)).map((r) => r.policy))];
    return { pod: pod.key, isolated: true, allowed: allowedBy.length > 0, allowedBy, policies: rules.policies, ...extra };
  }
  const base = (tiers?.baseline[dir] ?? []).find((r) => adminRuleMatches(admin!, r, peer, port, protocol));
  if (base) return { pod: pod.key, isolated: false, allowed: base.action === 'Allow', allowedBy: [], policies: [], decidedBy: decision(base), ...extra };
  return { pod: pod.key, isolated: false, allowed: true, allowedBy: [], policies: [], ...extra };
}

export function explainFlow(model: PolicyModel, src: string, dst: string, port: number, protocol: Protocol, admin?: AdminModel): Explanation {
  const from = model.pods.find((p) => p.ip === src), to = model.pods.find((p) => p.ip === dst);
  const egress = judge(model, admin, from, 'egress', from?.egress, dst, port, protocol);
  const ingress = judge(model, admin, to, 'ingress', to?.ingress, src, port, protocol);
  return {
    flow: { src, dst, port, protocol }, egress, ingress,
    enforcedHere: !!(from || to),
    allowed: (egress?.allowed ?? true) && (ingress?.allowed ?? true),
  };
}
