// NetworkPolicy semantics as data: pods, namespaces and policies in, for each pod of this
// node the rules that allow its ingress and egress out. Pure; ruleset.ts turns it into
// nftables terms. Upstream's rules: a pod is isolated for a direction once any policy of its
// namespace selects it with that policyType; then a connection is allowed when some rule of
// some such policy allows it (a union; nothing denies). Named ports resolve on the pod that
// receives: the selected pod for ingress, each destination pod for egress.
import { createHash } from 'node:crypto';
import type { Namespace, NetworkPolicy, Pod } from '../../api/kinds.js';
import { fromLabelSelector, matches, type LabelSelector } from '../../api/labels.js';
import { cidrContains, formatCidr, parseCidr, parseIPv4, type Cidr } from '../../util/index.js';

export type Protocol = 'tcp' | 'udp' | 'sctp';
export type Direction = 'ingress' | 'egress';

/** Ports of one protocol: every port, or from..to inclusive. */
export interface PortMatch {
  protocol: Protocol;
  from?: number;
  to?: number;
}

/** The other end: members of a shared set of pod addresses, or an address block. */
export type PeerMatch = { set: string } | { cidr: string };

/** One rule of one policy, as it applies to one pod. */
export interface RuleMatch {
  /** `namespace/name` of the policy. */
  policy: string;
  /** Absent: any peer. */
  peers?: PeerMatch[];
  /** Absent: any port; empty: nothing (every named port unresolved). */
  ports?: PortMatch[];
  /** Egress named ports: a set of `address . protocol . port` of the destination pods. */
  tuples?: string;
}

/** What policy says about one local pod in one direction (absent: not isolated). */
export interface PodRules {
  /** The policies selecting the pod for this direction, sorted. */
  policies: string[];
  rules: RuleMatch[];
}

export interface LocalPod {
  key: string;
  ip: string;
  ingress?: PodRules;
  egress?: PodRules;
}

export type Tuple = [string, Protocol, number];

export interface PolicyModel {
  /** Every pod of this node with an address; `ingress`/`egress` set where isolated. */
  pods: LocalPod[];
  /** Address sets by name (pods a rule's selectors pick). */
  peerSets: Map<string, string[]>;
  /** Egress named-port sets by name. */
  tupleSets: Map<string, Tuple[]>;
}

export interface PolicyInput {
  pods: Pod[];
  namespaces: Namespace[];
  policies: NetworkPolicy[];
  /** Only pods on this node are enforced here; undefined: every pod. */
  nodeName?: string;
}

const PROTO: Record<string, Protocol> = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' };

/** A pod that takes part in the pod network: has an address, not host network, not finished. */
export function podAddress(p: Pod): string | undefined {
  if (p.spec?.hostNetwork || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') return undefined;
  const ip = p.status?.podIP;
  return ip && parseIPv4(ip) !== undefined ? ip : undefined;
}

export const policyKey = (np: NetworkPolicy): string => `${np.metadata.namespace}/${np.metadata.name}`;

/** v1 defaulting: Ingress always, Egress too when egress rules exist (when policyTypes is empty). */
export function policyTypes(np: NetworkPolicy): Direction[] {
  const given = np.spec?.policyTypes ?? [];
  const types = given.length ? given : np.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
  return types.map((t) => t.toLowerCase() as Direction);
}

function selects(sel: LabelSelector | undefined | null, labels: Record<string, string> | undefined): boolean {
  const s = fromLabelSelector(sel ?? {});
  return s !== null && matches(s, labels);
}

/** A short stable name for an nft set: policy and rule position, not content. */
export function setName(prefix: string, ...parts: string[]): string {
  return `${prefix}-${createHash('sha1').update(parts.join('\0')).digest('hex').slice(0, 12)}`;
}

/** cidr minus the except blocks, as disjoint blocks. */
export function subtractBlocks(cidr: Cidr, except: Cidr[]): Cidr[] {
  let out = [cidr];
  for (const x of except) out = out.flatMap((b) => subtractBlock(b, x));
  return out.sort((a, b) => a.base - b.base);
}

function subtractBlock(b: Cidr, x: Cidr): Cidr[] {
  if (x.prefix <= b.prefix) return cidrContains(x, b.base) ? [] : [b];
  if (!cidrContains(b, x.base)) return [b];
  // Halve b towards x; every half that misses x stays.
  const out: Cidr[] = [];
  let cur = b;
  while (cur.prefix < x.prefix) {
    const size = cur.size / 2, prefix = cur.prefix + 1;
    const lo: Cidr = { base: cur.base, prefix, size }, hi: Cidr = { base: cur.base + size, prefix, size };
    if (cidrContains(lo, x.base)) { out.push(hi); cur = lo; } else { out.push(lo); cur = hi; }
  }
  return out;
}

export interface IndexedPod { pod: Pod; ip: string; ns: string; labels: Record<string, string> }

/** The pods with an address, all and by namespace, and the namespaces' labels. */
export interface Indexed {
  pods: IndexedPod[];
  /** The same pods by namespace: a selector only looks at the namespaces it can pick. */
  byNs: Map<string, Indexed['pods']>;
  nsLabels: Map<string, Record<string, string>>;
}

function peerPods(ix: Indexed, np: NetworkPolicy, peer: { podSelector?: LabelSelector | null; namespaceSelector?: LabelSelector | null }): Indexed['pods'] {
  const namespaces = peer.namespaceSelector
    ? [...ix.nsLabels].filter(([, labels]) => selects(peer.namespaceSelector, labels)).map(([name]) => name)
    : [np.metadata.namespace ?? 'default'];
  const podSel = peer.podSelector ? fromLabelSelector(peer.podSelector) : null;
  return namespaces.flatMap((ns) => (ix.byNs.get(ns) ?? []).filter((p) => !podSel || matches(podSel, p.labels)));
}

/** The pod's container port with this name and protocol. */
export function namedPort(pod: Pod, name: string, protocol: Protocol): number | undefined {
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === name && (PROTO[p.protocol ?? 'TCP'] ?? 'tcp') === protocol) return p.containerPort;
  }
  return undefined;
}

/** What one policy adds to the model: rules per selected pod and direction, and its sets. */
export interface Contribution {
  pods: Map<string, Partial<Record<Direction, RuleMatch[]>>>;
  peerSets: Map<string, string[]>;
  tupleSets: Map<string, Tuple[]>;
}

/** Whether a policy can see pods outside its own namespace (selectors over namespaces, address blocks, egress named ports). */
export function seesOtherNamespaces(np: NetworkPolicy): boolean {
  const rules = [...(np.spec?.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports, egress: false })), ...(np.spec?.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports, egress: true }))];
  return rules.some((r) => (r.peers ?? []).some((p) => p.namespaceSelector || p.ipBlock) || (r.egress && (r.ports ?? []).some((p) => typeof p.port === 'string')));
}

/** The whole model from scratch: the reference IncrementalModel (incremental.ts) is checked against. */
export function computeModel(input: PolicyInput): PolicyModel {
  const nsLabels = new Map(input.namespaces.map((n) => [n.metadata.name!, n.metadata.labels ?? {}]));
  const ix: Indexed = { nsLabels, pods: [], byNs: new Map() };
  for (const pod of input.pods) {
    const ip = podAddress(pod);
    if (!ip) continue;
    const p = { pod, ip, ns: pod.metadata.namespace ?? 'default', labels: pod.metadata.labels ?? {} };
    ix.pods.push(p);
    const list = ix.byNs.get(p.ns);
    if (list) list.push(p);
    else ix.byNs.set(p.ns, [p]);
  }
  const peerSets = new Map<string, string[]>();
  const tupleSets = new Map<string, Tuple[]>();
  const policies = [...input.policies].sort((a, b) => policyKey(a).localeCompare(policyKey(b)));
  const isLocal = (p: Indexed['pods'][number]) => input.nodeName === undefined || p.pod.spec?.nodeName === input.nodeName;
  const local = ix.pods.filter(isLocal);
  const out = new Map<string, LocalPod>(local.map((p) => [p.ip, { key: `${p.ns}/${p.pod.metadata.name}`, ip: p.ip }]));

  for (const np of policies) {
    const key = policyKey(np);
    const c = policyContribution(ix, np, isLocal);
    for (const [ip, dirs] of c.pods) {
      const lp = out.get(ip)!;
      for (const dir of ['ingress', 'egress'] as const) {
        const rules = dirs[dir];
        if (!rules) continue;
        const pr = lp[dir] ??= { policies: [], rules: [] };
        pr.policies.push(key);
        pr.rules.push(...rules);
      }
    }
    for (const [name, ips] of c.peerSets) peerSets.set(name, ips);
    for (const [name, tuples] of c.tupleSets) tupleSets.set(name, tuples);
  }
  return { pods: [...out.values()].sort((a, b) => a.ip.localeCompare(b.ip)), peerSets, tupleSets };
}

export function policyContribution(ix: Indexed, np: NetworkPolicy, isLocal: (p: Indexed['pods'][number]) => boolean): Contribution {
  const c: Contribution = { pods: new Map(), peerSets: new Map(), tupleSets: new Map() };
  const key = policyKey(np);
  const podSel = fromLabelSelector(np.spec?.podSelector ?? {});
  const selected = (ix.byNs.get(np.metadata.namespace ?? 'default') ?? []).filter((p) => isLocal(p) && podSel !== null && matches(podSel, p.labels));
  if (!selected.length) return c;
  for (const p of selected) c.pods.set(p.ip, {});
  for (const dir of policyTypes(np)) {
    const rules = (dir === 'ingress' ? np.spec?.ingress : np.spec?.egress) ?? [];
    for (const p of selected) c.pods.get(p.ip)![dir] = [];
    rules.forEach((rule, i) => {
      const peersSpec = (dir === 'ingress' ? (rule as { from?: unknown[] }).from : (rule as { to?: unknown[] }).to) as NetworkPolicyPeerSpec[] | undefined;
      const peers = peersSpec?.length ? peerMatches(ix, np, dir, i, peersSpec, c.peerSets) : undefined;
      const portSpecs = rule.ports ?? [];
      const named = dir === 'egress' ? portSpecs.filter((ps) => typeof ps.port === 'string') : [];
      // Egress named ports resolve on the destination: every pod the peers take in, by selector or by address.
      const peerPodList = () => (peersSpec?.length ? peersSpec.flatMap((s) => (s.ipBlock ? podsInBlock(ix, s.ipBlock) : peerPods(ix, np, s))) : ix.pods);
      // Ports that do not depend on the selected pod are the same object for all of them.
      const shared = portSpecs.length && !portSpecs.some((ps) => typeof ps.port === 'string') ? portSpecs.flatMap((ps) => portMatch(ps, undefined)) : undefined;
      for (const p of selected) {
        const ports = shared ?? (portSpecs.length ? portSpecs.flatMap((ps) => portMatch(ps, dir === 'ingress' ? p.pod : undefined)) : undefined);
        const list = c.pods.get(p.ip)![dir]!;
        list.push({ policy: key, ...(peers ? { peers } : {}), ...(ports ? { ports } : {}) });
        if (named.length) {
          const name = setName('tuples', key, dir, String(i));
          if (!c.tupleSets.has(name)) {
            const tuples: Tuple[] = [];
            for (const peer of dedupe(peerPodList())) {
              for (const ps of named) {
                const proto = PROTO[ps.protocol ?? 'TCP'] ?? 'tcp';
                const port = namedPort(peer.pod, String(ps.port), proto);
                if (port !== undefined) tuples.push([peer.ip, proto, port]);
              }
            }
            c.tupleSets.set(name, tuples);
          }
          list.push({ policy: key, tuples: name });
        }
      }
    });
  }
  return c;
}

interface NetworkPolicyPeerSpec {
  podSelector?: LabelSelector | null;
  namespaceSelector?: LabelSelector | null;
  ipBlock?: { cidr: string; except?: string[] } | null;
}

function podsInBlock(ix: Indexed, block: { cidr: string; except?: string[] }): Indexed['pods'] {
  const cidr = parseCidr(block.cidr, 'mask');
  if (!cidr) return [];
  const except = (block.except ?? []).map((x) => parseCidr(x, 'mask')).filter((x): x is Cidr => !!x);
  return ix.pods.filter((p) => {
    const a = parseIPv4(p.ip)!;
    return cidrContains(cidr, a) && !except.some((x) => cidrContains(x, a));
  });
}

function dedupe(pods: Indexed['pods']): Indexed['pods'] {
  const seen = new Set<string>();
  return pods.filter((p) => !seen.has(p.ip) && (seen.add(p.ip), true));
}

function peerMatches(ix: Indexed, np: NetworkPolicy, dir: Direction, i: number, specs: NetworkPolicyPeerSpec[], sets: Map<string, string[]>): PeerMatch[] {
  const out: PeerMatch[] = [];
  const selectorPeers = specs.filter((s) => !s.ipBlock);
  if (selectorPeers.length) {
    const name = setName('peers', policyKey(np), dir, String(i));
    if (!sets.has(name)) sets.set(name, [...new Set(selectorPeers.flatMap((s) => peerPods(ix, np, s).map((p) => p.ip)))].sort());
    out.push({ set: name });
  }
  for (const s of specs) {
    if (!s.ipBlock) continue;
    const cidr = parseCidr(s.ipBlock.cidr, 'mask');
    if (!cidr) continue; // an IPv6 block: the pod network is IPv4
    const except = (s.ipBlock.except ?? []).map((x) => parseCidr(x, 'mask')).filter((x): x is Cidr => !!x);
    for (const b of subtractBlocks(cidr, except)) out.push({ cidr: formatCidr(b) });
  }
  return out;
}

/** A policy port entry as matches; a named port resolves on `pod` (ingress) or is left to tuples (egress). */
function portMatch(ps: { protocol?: string; port?: number | string; endPort?: number }, pod: Pod | undefined): PortMatch[] {
  const protocol = PROTO[ps.protocol ?? 'TCP'] ?? 'tcp';
  if (ps.port === undefined || ps.port === null) return [{ protocol }];
  if (typeof ps.port === 'string') {
    if (!pod) return [];
    const n = namedPort(pod, ps.port, protocol);
    return n === undefined ? [] : [{ protocol, from: n, to: n }];
  }
  return [{ protocol, from: ps.port, to: ps.endPort ?? ps.port }];
}
