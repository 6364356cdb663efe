// AdminNetworkPolicy and BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) as
// data: for each pod of this node, the admin rules judged before NetworkPolicy and the
// baseline rules judged after it, in the order they are judged. Pure; ruleset.ts turns it
// into per-pod chains reached from the base chains before and after the NetworkPolicy maps.
//
// Upstream's order, per direction: AdminNetworkPolicies by priority (lower first; equal
// priorities by name here, upstream leaves them undefined), each one's rules in order; the
// first rule whose peer and port match decides: Allow and Deny end the judgement, Pass skips
// every remaining admin rule. Then NetworkPolicy: a pod it isolates is judged by it alone.
// Then the BaselineAdminNetworkPolicy (`default`) the same way, Allow or Deny; then allowed.
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, Namespace, Node, Pod } from '../../api/kinds.js';
import type { AdminNetworkPolicyPeer, AdminNetworkPolicyPort, AdminNetworkPolicyRule, AdminNetworkPolicySubject } from '../../api/policynetworking/v1alpha1/types.js';
import { fromLabelSelector, matches, type LabelSelector } from '../../api/labels.js';
import { formatCidr, parseCidr, parseIPv4 } from '../../util/index.js';
import { podAddress, setName, type Direction, type PeerMatch, type PortMatch, type Protocol, type Tuple } from './model.js';

export type AdminTier = 'AdminNetworkPolicy' | 'BaselineAdminNetworkPolicy';
export type AdminAction = 'Allow' | 'Deny' | 'Pass';

/** One rule of an admin or baseline policy as it applies to one pod and direction. */
export interface AdminRuleMatch {
  tier: AdminTier;
  /** The policy's name (cluster-scoped). */
  policy: string;
  /** The rule's name, else `ingress[i]` / `egress[i]`. */
  rule: string;
  action: AdminAction;
  /** Peers: a shared address set or an address block; empty: the rule matches nothing. */
  peers: PeerMatch[];
  /** Absent: any port; empty: only `tuples` (every port was a named port). */
  ports?: PortMatch[];
  /** Egress named ports: a set of `address . protocol . port` of the peer pods. */
  tuples?: string;
}

export interface AdminPod {
  key: string;
  ip: string;
  /** Admin rules, in judgement order, per direction (absent: none apply). */
  admin: Partial<Record<Direction, AdminRuleMatch[]>>;
  baseline: Partial<Record<Direction, AdminRuleMatch[]>>;
}

export interface AdminModel {
  /** Local pods some admin or baseline rule applies to, by address. */
  pods: Map<string, AdminPod>;
  peerSets: Map<string, string[]>;
  tupleSets: Map<string, Tuple[]>;
}

export interface AdminInput {
  pods: Pod[];
  namespaces: Namespace[];
  nodes: Node[];
  admin: AdminNetworkPolicy[];
  baseline: BaselineAdminNetworkPolicy[];
  nodeName?: string;
}

const PROTO: Record<string, Protocol> = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' };

interface Member { pod: Pod; ip: string; ns: string; labels: Record<string, string> }

const selects = (sel: LabelSelector | undefined, labels: Record<string, string>): boolean => {
  const s = fromLabelSelector(sel ?? {});
  return s !== null && matches(s, labels);
};

/** Whether a subject's (or a peer's) namespace and pod selectors pick a pod with `podLabels` in a namespace with `nsLabels`. */
export function picksPod(s: AdminNetworkPolicySubject | AdminNetworkPolicyPeer, nsLabels: Record<string, string>, podLabels: Record<string, string>): boolean {
  return s.namespaces ? selects(s.namespaces, nsLabels) : s.pods ? selects(s.pods.namespaceSelector, nsLabels) && selects(s.pods.podSelector, podLabels) : false;
}

export const emptyAdminModel = (): AdminModel => ({ pods: new Map(), peerSets: new Map(), tupleSets: new Map() });

/** Admin policies in judgement order: priority, then name. */
export const adminOrder = (list: AdminNetworkPolicy[]): AdminNetworkPolicy[] =>
  [...list].sort((a, b) => (a.spec?.priority ?? 0) - (b.spec?.priority ?? 0) || a.metadata.name!.localeCompare(b.metadata.name!));

/** The container port of `pod` with this name, whatever its protocol (a named port carries its own). */
function namedPorts(pod: Pod, name: string): PortMatch[] {
  const out: PortMatch[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === name) out.push({ protocol: PROTO[p.protocol ?? 'TCP'] ?? 'tcp', from: p.containerPort, to: p.containerPort });
  }
  return out;
}

function nodeAddresses(n: Node): string[] {
  return (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' && parseIPv4(a.address) !== undefined).map((a) => a.address);
}

export function computeAdminModel(input: AdminInput): AdminModel {
  const out = emptyAdminModel();
  const baseline = input.baseline.filter((b) => b.metadata.name === 'default');
  if (!input.admin.length && !baseline.length) return out;
  const nsLabels = new Map(input.namespaces.map((n) => [n.metadata.name!, n.metadata.labels ?? {}]));
  const members: Member[] = [];
  for (const pod of input.pods) {
    const ip = podAddress(pod);
    if (ip) members.push({ pod, ip, ns: pod.metadata.namespace ?? 'default', labels: pod.metadata.labels ?? {} });
  }
  const picked = (s: AdminNetworkPolicySubject | AdminNetworkPolicyPeer): Member[] => members.filter((m) => picksPod(s, nsLabels.get(m.ns) ?? {}, m.labels));
  const isLocal = (m: Member) => input.nodeName === undefined || m.pod.spec?.nodeName === input.nodeName;

  const apply = (tier: AdminTier, name: string, subject: AdminNetworkPolicySubject | undefined, rules: Partial<Record<Direction, AdminNetworkPolicyRule[]>>) => {
    const subjects = subject ? picked(subject).filter(isLocal) : [];
    if (!subjects.length) return;
    for (const dir of ['ingress', 'egress'] as const) {
      (rules[dir] ?? []).forEach((rule, i) => {
        const peerSpecs = (dir === 'ingress' ? rule.from : rule.to) ?? [];
        const peers = rulePeers(tier, name, dir, i, peerSpecs, picked, input.nodes, out.peerSets);
        const specs = rule.ports;
        const named = (specs ?? []).filter((p) => p.namedPort !== undefined);
        const fixed = specs?.flatMap(portMatches);
        let tuples: string | undefined;
        if (dir === 'egress' && named.length) {
          tuples = setName('anpt', tier, name, dir, String(i));
          const peerPods = dedupe(peerSpecs.flatMap((p) => (p.namespaces || p.pods ? picked(p) : [])));
          out.tupleSets.set(tuples, peerPods.flatMap((m) => named.flatMap((p) => namedPorts(m.pod, p.namedPort!).map((pm): Tuple => [m.ip, pm.protocol, pm.from!]))));
        }
        for (const s of subjects) {
          // Ingress named ports resolve on the subject: the pod receiving the traffic.
          const ports = specs === undefined ? undefined : dir === 'ingress' ? [...fixed!, ...named.flatMap((p) => namedPorts(s.pod, p.namedPort!))] : fixed!;
          const match: AdminRuleMatch = { tier, policy: name, rule: rule.name || `${dir}[${i}]`, action: rule.action, peers, ...(ports ? { ports } : {}), ...(tuples ? { tuples } : {}) };
          const pod = out.pods.get(s.ip) ?? { key: `${s.ns}/${s.pod.metadata.name}`, ip: s.ip, admin: {}, baseline: {} };
          out.pods.set(s.ip, pod);
          ((tier === 'AdminNetworkPolicy' ? pod.admin : pod.baseline)[dir] ??= []).push(match);
        }
      });
    }
  };
  for (const anp of adminOrder(input.admin)) apply('AdminNetworkPolicy', anp.metadata.name!, anp.spec?.subject, { ingress: anp.spec?.ingress, egress: anp.spec?.egress });
  for (const banp of baseline) apply('BaselineAdminNetworkPolicy', banp.metadata.name!, banp.spec?.subject, { ingress: banp.spec?.ingress, egress: banp.spec?.egress });
  return out;
}

function dedupe(list: Member[]): Member[] {
  const seen = new Set<string>();
  return list.filter((m) => !seen.has(m.ip) && (seen.add(m.ip), true));
}

/** A rule's peers: one shared set for its pod and node peers, one block per network. */
function rulePeers(
  tier: AdminTier, name: string, dir: Direction, i: number, specs: AdminNetworkPolicyPeer[],
  picked: (p: AdminNetworkPolicyPeer) => Member[], nodes: Node[], sets: Map<string, string[]>,
): PeerMatch[] {
  const out: PeerMatch[] = [];
  const selectorPeers = specs.filter((p) => p.namespaces || p.pods || (dir === 'egress' && p.nodes));
  if (selectorPeers.length) {
    const set = setName('anp', tier, name, dir, String(i));
    const ips = new Set<string>();
    for (const p of selectorPeers) {
      if (p.nodes) { for (const n of nodes) if (selects(p.nodes, n.metadata.labels ?? {})) for (const a of nodeAddresses(n)) ips.add(a); }
      else for (const m of picked(p)) ips.add(m.ip);
    }
    sets.set(set, [...ips].sort());
    out.push({ set });
  }
  if (dir === 'egress') {
    for (const p of specs) for (const c of p.networks ?? []) {
      const cidr = parseCidr(c, 'mask');
      if (cidr) out.push({ cidr: formatCidr(cidr) }); // an IPv6 block: the pod network is IPv4
    }
  }
  // domainNames: not enforced (no DNS-aware dataplane); such a peer matches nothing.
  return out;
}

/** A port given by number or range; named ports are resolved by the caller. */
function portMatches(p: AdminNetworkPolicyPort): PortMatch[] {
  if (p.portNumber) return [{ protocol: PROTO[p.portNumber.protocol ?? 'TCP'] ?? 'tcp', from: p.portNumber.port, to: p.portNumber.port }];
  if (p.portRange) return [{ protocol: PROTO[p.portRange.protocol ?? 'TCP'] ?? 'tcp', from: p.portRange.start, to: p.portRange.end }];
  return [];
}
