// The lab view's model and "follow a packet", from objects alone (no cluster): paths between
// nodes as the network agents route them, element counts as the proxy builds them, policies
// per pod, and the hops of a connection to a Service.
import t from 'tap';
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, EndpointSlice, Namespace, NetworkPolicy, Node, Pod, Service } from '../../src/api/kinds.js';
import { buildView, followPacket } from '../../src/labview/index.js';
import {
  ANNOTATION_ADMIN_POLICY_PACKETS, ANNOTATION_POLICY_PACKETS, adminCountsByPolicy, countsByPolicy, parsePublishedAdminCounts, parsePublishedCounts,
} from '../../src/network/policy/published-counts.js';
import { ANNOTATION_DEFAULT_ENCAPSULATION, ANNOTATION_TUNNEL_ADDR, ANNOTATION_TUNNEL_MAC, ANNOTATION_UPLINK, vtepMac } from '../../src/network/routes/index.js';

const node = (name: string, ip: string, prefix: number, cidr: string, tunnel: string, published = true): Node => ({
  apiVersion: 'v1', kind: 'Node',
  metadata: { name, annotations: published ? {
    [ANNOTATION_UPLINK]: `${ip}/${prefix}`, [ANNOTATION_DEFAULT_ENCAPSULATION]: 'CrossSubnet',
    [ANNOTATION_TUNNEL_MAC]: vtepMac(name), [ANNOTATION_TUNNEL_ADDR]: tunnel,
  } : {} },
  spec: { podCIDR: cidr },
  status: { addresses: [{ type: 'InternalIP', address: ip }], conditions: [{ type: 'Ready', status: 'True' }] },
}) as Node;

const pod = (ns: string, name: string, nodeName: string | undefined, ip: string | undefined, labels: Record<string, string> = {}): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, name, labels },
  spec: { containers: [{ name: 'c', image: 'x' }], ...(nodeName ? { nodeName } : {}) },
  status: { phase: ip ? 'Running' : 'Pending', ...(ip ? { podIP: ip } : {}), conditions: [{ type: 'Ready', status: ip ? 'True' : 'False' }] },
}) as Pod;

const nodes = [
  node('n1', '10.0.0.11', 24, '10.244.1.0/24', '10.244.1.1'),
  node('n2', '10.0.0.12', 24, '10.244.2.0/24', '10.244.2.1'),
  node('n3', '10.0.1.13', 24, '10.244.3.0/24', '10.244.3.1'),
  node('n4', '10.0.1.14', 24, '10.244.4.0/24', '10.244.4.1', false),
];
const pods = [
  pod('app', 'client', 'n1', '10.244.1.5', { role: 'client' }),
  pod('app', 'web-a', 'n2', '10.244.2.5', { app: 'web' }),
  pod('app', 'web-b', 'n3', '10.244.3.5', { app: 'web' }),
  pod('app', 'waiting', undefined, undefined),
];
const service: Service = {
  apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'app', name: 'web' },
  spec: { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] },
} as Service;
const slice: EndpointSlice = {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
  metadata: { namespace: 'app', name: 'web-x', labels: { 'kubernetes.io/service-name': 'web' } },
  ports: [{ port: 8080, protocol: 'TCP', name: '' }],
  endpoints: [
    { addresses: ['10.244.2.5'], nodeName: 'n2', conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'app', name: 'web-a' } },
    { addresses: ['10.244.3.5'], nodeName: 'n3', conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'app', name: 'web-b' } },
  ],
} as EndpointSlice;
const policy: NetworkPolicy = {
  apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: 'app', name: 'web-in' },
  spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }] },
} as NetworkPolicy;

const view = buildView({ nodes, pods, services: [service], slices: [slice], policies: [policy] });

t.test('nodes and pods', async (t) => {
  t.same(view.nodes.map((n) => [n.name, n.pods.map((p) => p.name)]), [['n1', ['client']], ['n2', ['web-a']], ['n3', ['web-b']], ['n4', []]]);
  t.same(view.pending.map((p) => p.name), ['waiting'], 'an unscheduled pod is pending, under no node');
  t.match(view.nodes[0]!.pods[0]!.veth, /^cap[0-9a-f]{11}$/, "a pod's host veth is named as the CNI plugin names it");
  t.same(view.nodes[1]!.pods[0]!.ingressPolicies, ['app/web-in'], 'the policy selecting web pods isolates them for ingress');
  t.same(view.nodes[0]!.pods[0]!.ingressPolicies, [], 'and not the client');
});

t.test('paths between nodes as the agents route them', async (t) => {
  const path = (from: string, to: string) => view.links.find((l) => l.from === from && l.to === to);
  t.match(path('n1', 'n2'), { path: 'direct', via: '10.0.0.12' }, 'same subnet: direct via the InternalIP');
  t.match(path('n1', 'n3'), { path: 'vxlan', via: '10.244.3.1', dev: 'vxlan.capstan' }, 'across subnets: VXLAN to the tunnel address');
  t.match(path('n4', 'n1'), { path: 'none', reason: /not published its uplink/ }, 'an agent that published nothing is shown as such');
  t.match(path('n3', 'n4'), { path: 'direct', via: '10.0.1.14' }, 'a peer on the same subnet needs no annotation of its own');
  t.match(path('n1', 'n4'), { path: 'none', reason: /VXLAN/ }, 'across subnets it needs its tunnel published');
});

t.test('nftables elements per Service, as the proxy builds them', async (t) => {
  // cluster-ips (1) + the verdict in service-ips (1) + one endpoint slot per endpoint (2).
  t.equal(view.services[0]!.nftElements, 4);
  t.same(view.services[0]!.endpoints.map((e) => `${e.ip}:${e.port}@${e.node}`), ['10.244.2.5:8080@n2', '10.244.3.5:8080@n3']);
});

t.test('follow a packet to the Service', async (t) => {
  const r = followPacket(view, 'app/client', 'app/web', 80);
  t.notOk(r.error);
  const byEndpoint = Object.fromEntries(r.paths.map((p) => [p.endpoint, p.hops.map((h) => h.kind)]));
  t.same(byEndpoint['10.244.2.5:8080'], ['pod', 'veth', 'dnat', 'direct', 'route', 'policy', 'pod'], 'to n2: direct, then judged by the ingress policy');
  t.same(byEndpoint['10.244.3.5:8080'], ['pod', 'veth', 'dnat', 'vxlan', 'route', 'policy', 'pod'], 'to n3: through VXLAN');
  t.match(followPacket(view, 'app/waiting', 'app/web').error, /not running on a node/);
  t.match(followPacket(view, 'app/client', 'app/none').error, /no service app\/none/);
  t.match(followPacket(view, 'app/client', 'app/web', 81).error, /has no port 81/);
});

t.test('policy decisions from the counters the agents published on their Nodes', async (t) => {
  const published = (n: Node, value: string): Node => ({ ...n, metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, [ANNOTATION_POLICY_PACKETS]: value } } });
  // n2 and n3 each hold a web pod; n1's agent sees no traffic of the policy; n4 publishes nothing.
  const counted = [
    published(nodes[0]!, '{}'),
    published(nodes[1]!, JSON.stringify(countsByPolicy({ allowed: [{ policy: 'app/web-in', direction: 'ingress', packets: 5 }], denied: [{ pod: 'app/web-a', direction: 'ingress', packets: 2, policies: ['app/web-in'] }], admin: [] }))),
    published(nodes[2]!, '{"app/web-in":{"ingress":[1,7]},"bad":{"ingress":[1,1]},"app/x":{"egress":[-1,2]}}'),
    nodes[3]!,
  ];
  const v = buildView({ nodes: counted, pods, services: [service], slices: [slice], policies: [policy] });
  t.same(v.policies[0]!.packets, { ingress: { allowed: 6, denied: 9 }, egress: { allowed: 0, denied: 0 }, nodes: ['n2', 'n3'] }, 'summed over the nodes that counted it');
  t.same(v.countingNodes, ['n1', 'n2', 'n3'], 'n4 published no counters');
  t.same(v.policies[0]!.ingressPods, ['app/web-a', 'app/web-b'], 'the pods it selects');
  t.same(v.policies[0]!.egressPods, []);
  t.same(view.policies[0]!.packets.ingress, { allowed: 0, denied: 0 }, 'no counters published: zeros');
  t.equal(parsePublishedCounts('not json'), undefined, 'a malformed annotation is ignored');
  t.same(parsePublishedCounts('{"a/b":{"ingress":[1,2],"egress":[1.5,2]}}'), { 'a/b': { ingress: [1, 2] } }, 'only whole non-negative counts are kept');
});

t.test('AdminNetworkPolicy and BaselineAdminNetworkPolicy decisions, in the order they judge', async (t) => {
  const anp = (name: string, priority: number): AdminNetworkPolicy => ({
    apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name },
    spec: { priority, subject: { pods: { namespaceSelector: { matchLabels: { tier: 'apps' } }, podSelector: { matchLabels: { app: 'web' } } } },
      ingress: [{ name: 'no-client', action: 'Deny', from: [{ namespaces: {} }] }] },
  }) as AdminNetworkPolicy;
  const banp: BaselineAdminNetworkPolicy = {
    apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' },
    spec: { subject: { namespaces: { matchLabels: { 'kubernetes.io/metadata.name': 'app' } } }, egress: [{ action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] }] },
  } as BaselineAdminNetworkPolicy;
  const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app', labels: { 'kubernetes.io/metadata.name': 'app', tier: 'apps' } } } as Namespace;
  const withCounts = (n: Node, np: string, admin: string): Node => ({ ...n, metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, [ANNOTATION_POLICY_PACKETS]: np, [ANNOTATION_ADMIN_POLICY_PACKETS]: admin } } });
  const counts = { allowed: [], denied: [], admin: [
    { kind: 'AdminNetworkPolicy' as const, policy: 'deny-web', action: 'Deny' as const, direction: 'ingress' as const, packets: 4 },
    { kind: 'AdminNetworkPolicy' as const, policy: 'deny-web', action: 'Pass' as const, direction: 'ingress' as const, packets: 1 },
    { kind: 'BaselineAdminNetworkPolicy' as const, policy: 'default', action: 'Deny' as const, direction: 'egress' as const, packets: 2 },
  ] };
  t.same(adminCountsByPolicy(counts), { 'AdminNetworkPolicy/deny-web': { ingress: [0, 4, 1] }, 'BaselineAdminNetworkPolicy/default': { egress: [0, 2, 0] } }, 'published per kind and name: [allowed, denied, passed]');
  const counted = [
    withCounts(nodes[0]!, '{}', JSON.stringify(adminCountsByPolicy(counts))),
    withCounts(nodes[1]!, '{}', '{"AdminNetworkPolicy/deny-web":{"ingress":[3,1,0]},"app/web-in":{"ingress":[1,1,1]},"AdminNetworkPolicy/x":{"ingress":[1,1]}}'),
    nodes[2]!, nodes[3]!,
  ];
  const v = buildView({ nodes: counted, pods, services: [service], slices: [slice], policies: [policy], namespaces: [ns], adminPolicies: [anp('deny-web', 20), anp('first', 10)], baselinePolicies: [banp] });
  t.same(v.policies.map((p) => `${p.kind} ${p.namespace}/${p.name}`), ['AdminNetworkPolicy /first', 'AdminNetworkPolicy /deny-web', 'NetworkPolicy app/web-in', 'BaselineAdminNetworkPolicy /default'],
    'admin policies by priority, then NetworkPolicies, then the baseline');
  const denyWeb = v.policies[1]!;
  t.equal(denyWeb.priority, 20);
  t.same(denyWeb.packets, { ingress: { allowed: 3, denied: 5, passed: 1 }, egress: { allowed: 0, denied: 0, passed: 0 }, nodes: ['n1', 'n2'] }, 'summed over the nodes that counted it');
  t.same(denyWeb.ingressPods, ['app/web-a', 'app/web-b'], 'its subject: the web pods of namespaces labelled tier=apps');
  t.same(denyWeb.policyTypes, ['Ingress']);
  t.same(v.policies[0]!.packets.ingress, { allowed: 0, denied: 0, passed: 0 }, 'an admin policy no agent counted: zeros');
  t.same(v.policies[2]!.packets.ingress, { allowed: 0, denied: 0 }, "a NetworkPolicy's counts come only from its own annotation");
  const baseline = v.policies[3]!;
  t.same(baseline.egressPods, ['app/client', 'app/waiting', 'app/web-a', 'app/web-b'], "the baseline's subject: every pod of namespace app");
  t.same(baseline.packets.egress, { allowed: 0, denied: 2, passed: 0 });
  const noNamespaces = buildView({ nodes, pods, services: [], slices: [], policies: [], adminPolicies: [anp('deny-web', 20)] });
  t.same(noNamespaces.policies[0]!.ingressPods, [], 'without Namespace objects only the name label is known: tier=apps selects nothing');
  t.same(parsePublishedAdminCounts('{"AdminNetworkPolicy/a":{"egress":[1,2,3],"ingress":[1,2]},"app/b":{"ingress":[1,2,3]}}'), { 'AdminNetworkPolicy/a': { egress: [1, 2, 3] } }, 'only admin kinds and three counts are kept');
});
