// networking.k8s.io/v1 NetworkPolicy (k8s.io/api networking/v1 at v1.32).
import { str, int32, obj, arr, defineType } from '../../schema.js';
import { intOrStringRef, labelSelector, listMeta, objectMeta } from '../../meta/v1/names.js';
import { networking } from './names.js';

const gvk = (kind: string) => ({ gvk: [{ group: 'networking.k8s.io', version: 'v1', kind }] });

defineType('io.k8s.api.networking.v1.NetworkPolicy', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: networking('NetworkPolicySpec', 'Which pods the policy selects and the traffic it allows them.'),
}, 'Which network traffic the selected pods may send and receive.', gvk('NetworkPolicy')));

defineType('io.k8s.api.networking.v1.NetworkPolicyList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(networking('NetworkPolicy'), 'The objects in the list.'),
}, 'A list of network policies.', { required: ['items'], ...gvk('NetworkPolicyList') }));

defineType('io.k8s.api.networking.v1.NetworkPolicySpec', obj({
  podSelector: labelSelector('The pods of this namespace the policy applies to; empty: all of them.'),
  ingress: arr(networking('NetworkPolicyIngressRule'), 'Traffic allowed in; a selected pod with no rule allowing a connection refuses it.', { listType: 'atomic' }),
  egress: arr(networking('NetworkPolicyEgressRule'), 'Traffic allowed out.', { listType: 'atomic' }),
  policyTypes: arr(str(undefined, { enum: ['Ingress', 'Egress'] }), 'Ingress, Egress or both; default Ingress, plus Egress when egress rules are present.', { listType: 'atomic' }),
}));

defineType('io.k8s.api.networking.v1.NetworkPolicyIngressRule', obj({
  ports: arr(networking('NetworkPolicyPort'), 'Destination ports allowed; empty: every port.', { listType: 'atomic' }),
  from: arr(networking('NetworkPolicyPeer'), 'Sources allowed; empty: every source.', { listType: 'atomic' }),
}));

defineType('io.k8s.api.networking.v1.NetworkPolicyEgressRule', obj({
  ports: arr(networking('NetworkPolicyPort'), 'Destination ports allowed; empty: every port.', { listType: 'atomic' }),
  to: arr(networking('NetworkPolicyPeer'), 'Destinations allowed; empty: every destination.', { listType: 'atomic' }),
}));

defineType('io.k8s.api.networking.v1.NetworkPolicyPeer', obj({
  podSelector: labelSelector('Pods (in the policy\'s namespace, or in the namespaces namespaceSelector picks).'),
  namespaceSelector: labelSelector('Namespaces whose pods (all, or those podSelector picks) are peers.'),
  ipBlock: networking('IPBlock', 'An address range; cannot be combined with the selectors.'),
}));

defineType('io.k8s.api.networking.v1.IPBlock', obj({
  cidr: str('The range, e.g. 192.168.1.0/24.'),
  except: arr(str(), 'Ranges inside cidr that are not part of the block.', { listType: 'atomic' }),
}, undefined, { required: ['cidr'] }));

defineType('io.k8s.api.networking.v1.NetworkPolicyPort', obj({
  protocol: str('TCP (default), UDP or SCTP.', { enum: ['SCTP', 'TCP', 'UDP'] }),
  port: intOrStringRef('A port number or a named container port; absent: every port.'),
  endPort: int32('With a numeric port, the last port of the range port..endPort.'),
}));
