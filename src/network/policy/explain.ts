// Which policy allows or refuses a flow, read from the model the agent enforces (not from
// the API): `capstan policy explain` asks the agent for this.
import { cidrContains, parseCidr, parseIPv4 } from '../../util/index.js';
import type { PodRules, PolicyModel, Protocol, RuleMatch } from './model.js';

export interface DirectionVerdict {
  pod: string;
  /** Not isolated: no policy selects the pod for this direction. */
  isolated: boolean;
  allowed: boolean;
  /** The policies with a rule that allows the flow. */
  allowedBy: string[];
  /** The policies isolating the pod (when none allows: they refuse it together). */
  policies: string[];
}

export interface Explanation {
  flow: { src: string; dst: string; port: number; protocol: Protocol };
  egress?: DirectionVerdict;
  ingress?: DirectionVerdict;
  /** No pod of this node is an end of the flow: this node does not judge it. */
  enforcedHere: boolean;
  allowed: boolean;
}

function ruleAllows(model: PolicyModel, r: RuleMatch, peer: string, port: number, protocol: Protocol): boolean {
  if (r.tuples) return (model.tupleSets.get(r.tuples) ?? []).some(([ip, p, n]) => ip === peer && p === protocol && n === port);
  const peerOk = !r.peers || r.peers.some((p) => 'set' in p
    ? (model.peerSets.get(p.set) ?? []).includes(peer)
    : cidrContains(parseCidr(p.cidr)!, parseIPv4(peer) ?? -1));
  const portOk = !r.ports || r.ports.some((p) => p.protocol === protocol && (p.from === undefined || (port >= p.from && port <= p.to!)));
  return peerOk && portOk;
}

function judge(model: PolicyModel, pod: string, rules: PodRules | undefined, peer: string, port: number, protocol: Protocol): DirectionVerdict {
  if (!rules) return { pod, isolated: false, allowed: true, allowedBy: [], policies: [] };
  const allowedBy = [...new Set(rules.rules.filter((r) => ruleAllows(model, r, peer, port, protocol)).map((r) => r.policy))];
  return { pod, isolated: true, allowed: allowedBy.length > 0, allowedBy, policies: rules.policies };
}

export function explainFlow(model: PolicyModel, src: string, dst: string, port: number, protocol: Protocol): Explanation {
  const from = model.pods.find((p) => p.ip === src), to = model.pods.find((p) => p.ip === dst);
  const egress = from ? judge(model, from.key, from.egress, dst, port, protocol) : undefined;
  const ingress = to ? judge(model, to.key, to.ingress, src, port, protocol) : undefined;
  return {
    flow: { src, dst, port, protocol }, egress, ingress,
    enforcedHere: !!(from || to),
    allowed: (egress?.allowed ?? true) && (ingress?.allowed ?? true),
  };
}
