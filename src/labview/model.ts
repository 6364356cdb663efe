// What the lab view shows, as a pure function of the objects it watches: nodes with their
// pods, the path between every pair of nodes, Services with their endpoints and the number of
// nftables elements the service proxy holds for them, and which policies isolate each pod
// (AdminNetworkPolicies, NetworkPolicies and the BaselineAdminNetworkPolicy, in the order
// they judge a packet) with the decisions the agents counted.
// The path and the element counts come from the same functions the network agent and the
// proxy program the kernel with, so the view cannot drift from what they do.
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, EndpointSlice, Namespace, NetworkPolicy, Node, Pod, Service } from '../api/kinds.js';
import type { AdminNetworkPolicyRule, AdminNetworkPolicySubject } from '../api/policynetworking/v1alpha1/types.js';
import { fromLabelSelector, matches } from '../api/labels.js';
import { parseCidr, parseIPv4 } from '../network/cidr.js';
import { hostVethName } from '../network/podnet.js';
import { desiredRoutes } from '../network/routes/desired.js';
import {
  ANNOTATION_DEFAULT_ENCAPSULATION, ANNOTATION_UPLINK, VXLAN_DEVICE, parseMode, type EncapsulationMode, type Uplink,
} from '../network/routes/model.js';
import { adminOrder, picksPod } from '../network/policy/admin.js';
import {
  ANNOTATION_ADMIN_POLICY_PACKETS, ANNOTATION_POLICY_PACKETS, parsePublishedAdminCounts, parsePublishedCounts,
} from '../network/policy/published-counts.js';
import { buildPlans, type SliceLike } from '../proxy/model.js';
import { fragmentFor } from '../proxy/nft/ruleset.js';

export interface ViewInput {
  nodes: readonly Node[];
  pods: readonly Pod[];
  services: readonly Service[];
  slices: readonly EndpointSlice[];
  policies: readonly NetworkPolicy[];
  /** For the admin tiers' subjects (absent: a namespace's labels are its name label alone). */
  namespaces?: readonly Namespace[];
  adminPolicies?: readonly AdminNetworkPolicy[];
  baselinePolicies?: readonly BaselineAdminNetworkPolicy[];
}

export interface ViewPod {
  namespace: string;
  name: string;
  node?: string;
  ip?: string;
  phase: string;
  ready: boolean;
  hostNetwork: boolean;
  /** The pod's host-side veth (`cap…`), for pods on the pod network. */
  veth?: string;
  /** `namespace/name` of the NetworkPolicies that select this pod, by direction. */
  ingressPolicies: string[];
  egressPolicies: string[];
}

export interface ViewNode {
  name: string;
  internalIP?: string;
  /** The uplink's address and prefix, as the node's network agent published it. */
  uplink?: string;
  podCIDR?: string;
  ready: boolean;
  pods: ViewPod[];
}

/** How packets from `from`'s pods reach `to`'s pod block, as `from`'s network agent routes them. */
export interface ViewLink {
  from: string;
  to: string;
  path: 'direct' | 'vxlan' | 'none';
  /** The next hop: the peer's InternalIP (direct) or its tunnel address (VXLAN). */
  via?: string;
  dev?: string;
  /** Why there is no route, when path is none. */
  reason?: string;
}

export interface ViewEndpoint {
  ip: string;
  port?: number;
  node?: string;
  pod?: string;
  ready: boolean;
}

export interface ViewService {
  namespace: string;
  name: string;
  type: string;
  clusterIP?: string;
  ports: { name?: string; port: number; protocol: string; nodePort?: number; targetPort?: string | number }[];
  endpoints: ViewEndpoint[];
  /** Elements of the proxy's nftables maps and sets that belong to this Service (on a node with none of its endpoints). */
  nftElements: number;
}

/** Packets allowed and denied in one direction; `passed` (on to the next tier) for the admin tiers only. */
export interface ViewDecisions { allowed: number; denied: number; passed?: number }

/** A policy's allow/deny decisions as the nodes' network agents counted and published them. */
export interface ViewPolicyPackets {
  ingress: ViewDecisions;
  egress: ViewDecisions;
  /** The nodes whose counts are in the sums (those whose agent published any for this policy). */
  nodes: string[];
}

export type ViewPolicyKind = 'AdminNetworkPolicy' | 'NetworkPolicy' | 'BaselineAdminNetworkPolicy';

export interface ViewPolicy {
  kind: ViewPolicyKind;
  /** Empty for the admin tiers (cluster-scoped). */
  namespace: string;
  name: string;
  /** An AdminNetworkPolicy's priority (lower judges first). */
  priority?: number;
  policyTypes: string[];
  packets: ViewPolicyPackets;
  /** `namespace/name` of the pods it selects (isolates), by direction. */
  ingressPods: string[];
  egressPods: string[];
}

export interface ViewModel {
  nodes: ViewNode[];
  /** Pods not (yet) assigned to a node. */
  pending: ViewPod[];
  links: ViewLink[];
  /** Set when there are too many nodes to draw every pair. */
  linksOmitted?: string;
  services: ViewService[];
  /** AdminNetworkPolicies by priority, NetworkPolicies, the BaselineAdminNetworkPolicy: the order a packet is judged in. */
  policies: ViewPolicy[];
  /** Nodes whose network agent publishes policy counters (the others' decisions are not in the sums). */
  countingNodes: string[];
}

/** Pairs of nodes are computed only up to this many nodes (n² pairs): a lab, not 5,000 hollow nodes. */
export const MAX_LINKED_NODES = 64;

const key = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
const byKey = <T extends { metadata: { namespace?: string; name?: string } }>(a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

function policyTypes(p: NetworkPolicy): string[] {
  if (p.spec?.policyTypes?.length) return p.spec.policyTypes;
  return p.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

function selectingPolicies(pod: Pod, policies: readonly NetworkPolicy[], type: string): string[] {
  const out: string[] = [];
  for (const p of policies) {
    if (p.metadata.namespace !== pod.metadata.namespace || !policyTypes(p).includes(type)) continue;
    const sel = fromLabelSelector(p.spec?.podSelector ?? {});
    if (sel && matches(sel, pod.metadata.labels)) out.push(key(p));
  }
  return out;
}

function viewPod(pod: Pod, policies: readonly NetworkPolicy[]): ViewPod {
  const hostNetwork = pod.spec?.hostNetwork === true;
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return {
    namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', node: pod.spec?.nodeName || undefined,
    ip: pod.status?.podIP || undefined, phase: pod.status?.phase ?? 'Pending', ready, hostNetwork,
    veth: hostNetwork || !pod.spec?.nodeName ? undefined : hostVethName({ namespace: pod.metadata.namespace, name: pod.metadata.name }, ''),
    ingressPolicies: hostNetwork ? [] : selectingPolicies(pod, policies, 'Ingress'),
    egressPolicies: hostNetwork ? [] : selectingPolicies(pod, policies, 'Egress'),
  };
}

function internalIP(n: Node): string | undefined {
  return n.status?.addresses?.find((a) => a.type === 'InternalIP' && parseIPv4(a.address) !== undefined)?.address;
}

/** The uplink a node's agent published, or none (an agent that has not synced, a hollow node). */
function publishedUplink(n: Node): Uplink | undefined {
  const raw = n.metadata.annotations?.[ANNOTATION_UPLINK];
  const m = raw && /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(raw);
  if (!m || parseIPv4(m[1]!) === undefined || Number(m[2]) > 32) return undefined;
  return { name: 'uplink', address: m[1]!, prefixLen: Number(m[2]), mtu: 1500 };
}

export function nodeLinks(nodes: readonly Node[]): ViewLink[] {
  const links: ViewLink[] = [];
  for (const self of nodes) {
    const name = self.metadata.name!;
    const uplink = publishedUplink(self);
    const mode: EncapsulationMode = parseMode(self.metadata.annotations?.[ANNOTATION_DEFAULT_ENCAPSULATION]) ?? 'CrossSubnet';
    const state = uplink ? desiredRoutes(name, nodes, mode, uplink) : undefined;
    for (const peer of nodes) {
      const to = peer.metadata.name!;
      if (to === name) continue;
      if (!state) { links.push({ from: name, to, path: 'none', reason: 'its network agent has not published its uplink' }); continue; }
      const route = state.routes.find((r) => r.node === to);
      if (route) links.push({ from: name, to, path: route.dev === VXLAN_DEVICE ? 'vxlan' : 'direct', via: route.via, dev: route.dev === VXLAN_DEVICE ? VXLAN_DEVICE : 'uplink' });
      else links.push({ from: name, to, path: 'none', reason: state.skipped.find((s) => s.node === to)?.reason ?? 'no route' });
    }
  }
  return links;
}

/** Elements the proxy holds for each Service, from the plans it would make on a node with none of the endpoints. */
function nftElementsByService(services: readonly Service[], slices: readonly EndpointSlice[]): Map<string, number> {
  const plans = buildPlans(services, slices as unknown as SliceLike[], { nodeName: '' });
  const counts = new Map<string, number>();
  for (const plan of plans) {
    const svc = plan.id.slice(0, plan.id.indexOf(':'));
    const f = fragmentFor(plan);
    counts.set(svc, (counts.get(svc) ?? 0) + f.elements.length + f.shared.length);
  }
  return counts;
}

function viewService(s: Service, slices: readonly EndpointSlice[], pods: Map<string, Pod>, elements: Map<string, number>): ViewService {
  const ns = s.metadata.namespace ?? '';
  const endpoints: ViewEndpoint[] = [];
  for (const slice of slices) {
    if (slice.metadata.namespace !== ns || slice.metadata.labels?.['kubernetes.io/service-name'] !== s.metadata.name) continue;
    for (const ep of slice.endpoints ?? []) {
      for (const ip of ep.addresses ?? []) {
        const ref = ep.targetRef?.kind === 'Pod' ? `${ep.targetRef.namespace ?? ns}/${ep.targetRef.name}` : undefined;
        endpoints.push({
          ip, port: slice.ports?.[0]?.port ?? undefined, node: ep.nodeName ?? (ref ? pods.get(ref)?.spec?.nodeName : undefined),
          pod: ref, ready: ep.conditions?.ready !== false,
        });
      }
    }
  }
  endpoints.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  return {
    namespace: ns, name: s.metadata.name ?? '', type: s.spec?.type ?? 'ClusterIP',
    clusterIP: s.spec?.clusterIP && s.spec.clusterIP !== 'None' ? s.spec.clusterIP : undefined,
    ports: (s.spec?.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol ?? 'TCP', nodePort: p.nodePort, targetPort: p.targetPort })),
    endpoints, nftElements: elements.get(key(s)) ?? 0,
  };
}

const noPackets = (admin: boolean): ViewPolicyPackets => admin
  ? { ingress: { allowed: 0, denied: 0, passed: 0 }, egress: { allowed: 0, denied: 0, passed: 0 }, nodes: [] }
  : { ingress: { allowed: 0, denied: 0 }, egress: { allowed: 0, denied: 0 }, nodes: [] };

/**
 * Each policy's decisions summed over the nodes, from the counters the agents published on
 * their Nodes, keyed `ns/name` (NetworkPolicy) or `<kind>/<name>` (the admin tiers).
 */
function policyPackets(nodes: readonly Node[]): { byPolicy: Map<string, ViewPolicyPackets>; counting: string[] } {
  const byPolicy = new Map<string, ViewPolicyPackets>();
  const counting: string[] = [];
  const add = (node: string, counts: Record<string, Partial<Record<'ingress' | 'egress', number[]>>>, admin: boolean) => {
    for (const [policy, dirs] of Object.entries(counts)) {
      let p = byPolicy.get(policy);
      if (!p) byPolicy.set(policy, p = noPackets(admin));
      p.nodes.push(node);
      for (const dir of ['ingress', 'egress'] as const) {
        const d = dirs[dir];
        if (!d) continue;
        p[dir].allowed += d[0]!; p[dir].denied += d[1]!;
        if (admin) p[dir].passed! += d[2]!;
      }
    }
  };
  for (const n of nodes) {
    const counts = parsePublishedCounts(n.metadata.annotations?.[ANNOTATION_POLICY_PACKETS]);
    if (counts) { counting.push(n.metadata.name!); add(n.metadata.name!, counts, false); }
    const admin = parsePublishedAdminCounts(n.metadata.annotations?.[ANNOTATION_ADMIN_POLICY_PACKETS]);
    if (admin) add(n.metadata.name!, admin, true);
  }
  return { byPolicy, counting };
}

/** An admin tier's policy: its subject's pods (on the pod network) for each direction it has rules in. */
function viewAdminPolicy(kind: ViewPolicyKind, p: { metadata: { name?: string }; spec?: { subject?: AdminNetworkPolicySubject; ingress?: AdminNetworkPolicyRule[]; egress?: AdminNetworkPolicyRule[] } },
  pods: readonly Pod[], nsLabels: (ns: string) => Record<string, string>, byPolicy: Map<string, ViewPolicyPackets>): ViewPolicy {
  const subject = p.spec?.subject;
  const picked = subject ? pods.filter((pod) => pod.spec?.hostNetwork !== true && picksPod(subject, nsLabels(pod.metadata.namespace ?? ''), pod.metadata.labels ?? {})).map(key) : [];
  const types = [...(p.spec?.ingress?.length ? ['Ingress'] : []), ...(p.spec?.egress?.length ? ['Egress'] : [])];
  return {
    kind, namespace: '', name: p.metadata.name ?? '', policyTypes: types,
    packets: byPolicy.get(`${kind}/${p.metadata.name}`) ?? noPackets(true),
    ingressPods: types.includes('Ingress') ? picked : [], egressPods: types.includes('Egress') ? picked : [],
  };
}

function viewPolicies(input: ViewInput, policies: readonly NetworkPolicy[], pods: readonly ViewPod[], nodes: readonly Node[]): { policies: ViewPolicy[]; countingNodes: string[] } {
  const { byPolicy, counting } = policyPackets(nodes);
  const selected = (k: string, dir: 'ingressPolicies' | 'egressPolicies') => pods.filter((p) => p[dir].includes(k)).map((p) => `${p.namespace}/${p.name}`);
  const labels = new Map((input.namespaces ?? []).map((n) => [n.metadata.name!, n.metadata.labels ?? {}]));
  const nsLabels = (ns: string) => labels.get(ns) ?? { 'kubernetes.io/metadata.name': ns };
  const sortedPods = [...input.pods].sort(byKey);
  const admin = adminOrder([...(input.adminPolicies ?? [])]).map((p) => ({ ...viewAdminPolicy('AdminNetworkPolicy', p, sortedPods, nsLabels, byPolicy), priority: p.spec?.priority }));
  const baseline = (input.baselinePolicies ?? []).filter((b) => b.metadata.name === 'default').map((p) => viewAdminPolicy('BaselineAdminNetworkPolicy', p, sortedPods, nsLabels, byPolicy));
  return {
    countingNodes: counting,
    policies: [
      ...admin,
      ...policies.map((p): ViewPolicy => ({
        kind: 'NetworkPolicy', namespace: p.metadata.namespace ?? '', name: p.metadata.name ?? '', policyTypes: policyTypes(p),
        packets: byPolicy.get(key(p)) ?? noPackets(false),
        ingressPods: selected(key(p), 'ingressPolicies'), egressPods: selected(key(p), 'egressPolicies'),
      })),
      ...baseline,
    ],
  };
}

export function buildView(input: ViewInput): ViewModel {
  const policies = [...input.policies].sort(byKey);
  const pods = [...input.pods].sort(byKey);
  const nodes = [...input.nodes].sort(byKey);
  const podsByKey = new Map(pods.map((p) => [key(p), p]));
  const viewNodes: ViewNode[] = nodes.map((n) => ({
    name: n.metadata.name!, internalIP: internalIP(n), uplink: publishedUplink(n) && n.metadata.annotations?.[ANNOTATION_UPLINK],
    podCIDR: n.spec?.podCIDR && parseCidr(n.spec.podCIDR) ? n.spec.podCIDR : undefined,
    ready: n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false, pods: [],
  }));
  const nodeByName = new Map(viewNodes.map((n) => [n.name, n]));
  const pending: ViewPod[] = [];
  const all: ViewPod[] = [];
  for (const p of pods) {
    const vp = viewPod(p, policies);
    all.push(vp);
    const n = vp.node ? nodeByName.get(vp.node) : undefined;
    (n ? n.pods : pending).push(vp);
  }
  const elements = nftElementsByService(input.services, input.slices);
  return {
    nodes: viewNodes, pending,
    links: nodes.length <= MAX_LINKED_NODES ? nodeLinks(nodes) : [],
    ...(nodes.length > MAX_LINKED_NODES ? { linksOmitted: `${nodes.length} nodes: paths are drawn for at most ${MAX_LINKED_NODES}` } : {}),
    services: [...input.services].sort(byKey).map((s) => viewService(s, input.slices, podsByKey, elements)),
    ...viewPolicies(input, policies, all, nodes),
  };
}
