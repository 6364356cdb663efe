// policy.networking.k8s.io/v1alpha1 AdminNetworkPolicy and BaselineAdminNetworkPolicy, the
// cluster-scoped kinds of kubernetes-sigs/network-policy-api (apis/v1alpha1). Upstream ships
// them as CRDs; capstan serves them itself (src/network/DESIGN.md says why), so they have no
// protobuf form: kubectl, which does not know them, speaks JSON.
import { str, int32, obj, arr, defineType, ref } from '../../schema.js';
import { conditionRef, labelSelector, listMeta, objectMeta } from '../../meta/v1/names.js';

const P = 'io.k8s.networking.policy.v1alpha1';
const t = (name: string, description?: string) => ref(`${P}.${name}`, description);
const gvk = (kind: string) => [{ group: 'policy.networking.k8s.io', version: 'v1alpha1', kind }];
const typeMeta = {
  apiVersion: str('The versioned schema of this object: policy.networking.k8s.io/v1alpha1.'),
  kind: str('The type of this object in CamelCase.'),
};
const protocol = () => str('TCP (default), UDP or SCTP.', { enum: ['SCTP', 'TCP', 'UDP'] });

defineType(`${P}.NamespacedPod`, obj({
  namespaceSelector: labelSelector('The namespaces whose pods are considered; empty: all namespaces.'),
  podSelector: labelSelector('The pods of those namespaces; empty: all of them.'),
}, 'Pods picked by a namespace selector and a pod selector together.', { required: ['namespaceSelector', 'podSelector'] }));

defineType(`${P}.AdminNetworkPolicySubject`, obj({
  namespaces: labelSelector('Every pod of the namespaces this selects.'),
  pods: t('NamespacedPod', 'The pods these selectors pick.'),
}, 'The pods a policy applies to; exactly one field is set.'));

defineType(`${P}.Port`, obj({ protocol: protocol(), port: int32('The destination port, 1–65535.') }, undefined, { required: ['port'] }));
defineType(`${P}.PortRange`, obj({ protocol: protocol(), start: int32('First port of the range.'), end: int32('Last port of the range (inclusive).') }, undefined, { required: ['start', 'end'] }));
defineType(`${P}.AdminNetworkPolicyPort`, obj({
  portNumber: t('Port', 'One port of one protocol.'),
  namedPort: str('A container port by name, on the pod receiving the traffic.'),
  portRange: t('PortRange', 'An inclusive range of ports of one protocol.'),
}, 'A destination port; exactly one field is set.'));

defineType(`${P}.AdminNetworkPolicyIngressPeer`, obj({
  namespaces: labelSelector('Every pod of the namespaces this selects.'),
  pods: t('NamespacedPod', 'The pods these selectors pick.'),
}, 'A source of incoming traffic; exactly one field is set.'));

defineType(`${P}.AdminNetworkPolicyEgressPeer`, obj({
  namespaces: labelSelector('Every pod of the namespaces this selects.'),
  pods: t('NamespacedPod', 'The pods these selectors pick.'),
  nodes: labelSelector('The addresses of the nodes this selects.'),
  networks: arr(str(), 'Address blocks (CIDRs), 1–25.', { listType: 'set' }),
  domainNames: arr(str(), 'DNS names (not enforced by capstan).', { listType: 'set' }),
}, 'A destination of outgoing traffic; exactly one field is set.'));

const rule = (name: string, peers: 'from' | 'to', peer: string, actions: string[]) => defineType(`${P}.${name}`, obj({
  name: str('An identifier for the rule, at most 100 characters.'),
  action: str(`What matching traffic meets: ${actions.join(', ')}.`, { enum: actions }),
  [peers]: arr(t(peer), `The ${peers === 'from' ? 'sources' : 'destinations'} this rule applies to (OR), 1–100.`),
  ports: arr(t('AdminNetworkPolicyPort'), 'Destination ports (OR), 1–100; absent: every port.'),
}, undefined, { required: ['action', peers] }));
rule('AdminNetworkPolicyIngressRule', 'from', 'AdminNetworkPolicyIngressPeer', ['Allow', 'Deny', 'Pass']);
rule('AdminNetworkPolicyEgressRule', 'to', 'AdminNetworkPolicyEgressPeer', ['Allow', 'Deny', 'Pass']);
rule('BaselineAdminNetworkPolicyIngressRule', 'from', 'AdminNetworkPolicyIngressPeer', ['Allow', 'Deny']);
rule('BaselineAdminNetworkPolicyEgressRule', 'to', 'AdminNetworkPolicyEgressPeer', ['Allow', 'Deny']);

defineType(`${P}.AdminNetworkPolicyStatus`, obj({
  conditions: arr(conditionRef(), 'What implementations report about the policy.', { listType: 'map', listMapKeys: ['type'] }),
}));

defineType(`${P}.AdminNetworkPolicySpec`, obj({
  priority: int32('0–1000; lower numbers are judged first.'),
  subject: t('AdminNetworkPolicySubject', 'The pods the policy applies to.'),
  ingress: arr(t('AdminNetworkPolicyIngressRule'), 'Rules for traffic to the subject, in order, before any NetworkPolicy; at most 100.'),
  egress: arr(t('AdminNetworkPolicyEgressRule'), 'Rules for traffic from the subject, in order, before any NetworkPolicy; at most 100.'),
}, undefined, { required: ['priority', 'subject'] }));

defineType(`${P}.BaselineAdminNetworkPolicySpec`, obj({
  subject: t('AdminNetworkPolicySubject', 'The pods the policy applies to.'),
  ingress: arr(t('BaselineAdminNetworkPolicyIngressRule'), 'Rules for traffic to the subject no NetworkPolicy isolates it for; at most 100.'),
  egress: arr(t('BaselineAdminNetworkPolicyEgressRule'), 'Rules for traffic from the subject no NetworkPolicy isolates it for; at most 100.'),
}, undefined, { required: ['subject'] }));

for (const [kind, description] of [
  ['AdminNetworkPolicy', 'Cluster-wide rules judged before NetworkPolicies, ordered by priority.'],
  ['BaselineAdminNetworkPolicy', 'Cluster-wide default rules judged after NetworkPolicies (one, named default).'],
] as const) {
  defineType(`${P}.${kind}`, obj({
    ...typeMeta,
    metadata: objectMeta(),
    spec: t(`${kind}Spec`),
    status: t('AdminNetworkPolicyStatus'),
  }, description, { required: ['spec'], gvk: gvk(kind) }));
  defineType(`${P}.${kind}List`, obj({
    ...typeMeta,
    metadata: listMeta(),
    items: arr(t(kind), 'The objects in the list.'),
  }, undefined, { required: ['items'], gvk: gvk(`${kind}List`) }));
}
