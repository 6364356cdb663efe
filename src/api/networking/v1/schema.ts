// networking.k8s.io/v1 NetworkPolicy (k8s.io/api networking/v1 at v1.32), and Ingress as far as
// `kubectl create ingress` sends it (its protobuf decode table); the server serves no ingresses yet.
import { str, int32, obj, arr, pb, defineType } from '../../schema.js';
import { intOrStringRef, labelSelector, listMeta, objectMeta } from '../../meta/v1/names.js';
import { core } from '../../core/v1/names.js';
import { networking } from './names.js';

const gvk = (kind: string) => ({ gvk: [{ group: 'networking.k8s.io', version: 'v1', kind }] });

defineType('io.k8s.api.networking.v1.NetworkPolicy', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, networking('NetworkPolicySpec', 'Which pods the policy selects and the traffic it allows them.')),
}, 'Which network traffic the selected pods may send and receive.', gvk('NetworkPolicy')));

defineType('io.k8s.api.networking.v1.NetworkPolicyList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(networking('NetworkPolicy'), 'The objects in the list.'),
}, 'A list of network policies.', { required: ['items'], ...gvk('NetworkPolicyList') }));

defineType('io.k8s.api.networking.v1.NetworkPolicySpec', obj({
  podSelector: pb(1, labelSelector('The pods of this namespace the policy applies to; empty: all of them.')),
  ingress: pb(2, arr(networking('NetworkPolicyIngressRule'), 'Traffic allowed in; a selected pod with no rule allowing a connection refuses it.', { listType: 'atomic' })),
  egress: pb(3, arr(networking('NetworkPolicyEgressRule'), 'Traffic allowed out.', { listType: 'atomic' })),
  policyTypes: pb(4, arr(str(undefined, { enum: ['Ingress', 'Egress'] }), 'Ingress, Egress or both; default Ingress, plus Egress when egress rules are present.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.networking.v1.NetworkPolicyIngressRule', obj({
  ports: pb(1, arr(networking('NetworkPolicyPort'), 'Destination ports allowed; empty: every port.', { listType: 'atomic' })),
  from: pb(2, arr(networking('NetworkPolicyPeer'), 'Sources allowed; empty: every source.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.networking.v1.NetworkPolicyEgressRule', obj({
  ports: pb(1, arr(networking('NetworkPolicyPort'), 'Destination ports allowed; empty: every port.', { listType: 'atomic' })),
  to: pb(2, arr(networking('NetworkPolicyPeer'), 'Destinations allowed; empty: every destination.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.networking.v1.NetworkPolicyPeer', obj({
  podSelector: pb(1, labelSelector('Pods (in the policy\'s namespace, or in the namespaces namespaceSelector picks).')),
  namespaceSelector: pb(2, labelSelector('Namespaces whose pods (all, or those podSelector picks) are peers.')),
  ipBlock: pb(3, networking('IPBlock', 'An address range; cannot be combined with the selectors.')),
}));

defineType('io.k8s.api.networking.v1.IPBlock', obj({
  cidr: pb(1, str('The range, e.g. 192.168.1.0/24.')),
  except: pb(2, arr(str(), 'Ranges inside cidr that are not part of the block.', { listType: 'atomic' })),
}, undefined, { required: ['cidr'] }));

defineType('io.k8s.api.networking.v1.NetworkPolicyPort', obj({
  protocol: pb(1, str('TCP (default), UDP or SCTP.', { enum: ['SCTP', 'TCP', 'UDP'] }), 'keepZero'),
  port: pb(2, intOrStringRef('A port number or a named container port; absent: every port.'), 'keepZero'),
  endPort: pb(3, int32('With a numeric port, the last port of the range port..endPort.'), 'keepZero'),
}));

defineType('io.k8s.api.networking.v1.Ingress', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, networking('IngressSpec', 'The rules routing HTTP traffic to services.')),
  status: pb(3, networking('IngressStatus', 'The load balancer serving the ingress.')),
}, 'Routes HTTP traffic from outside the cluster to services.', gvk('Ingress')));

defineType('io.k8s.api.networking.v1.IngressSpec', obj({
  ingressClassName: pb(4, str('The IngressClass of the controller that implements the ingress.'), 'keepZero'),
  defaultBackend: pb(1, networking('IngressBackend', 'Where requests no rule matches go.')),
  tls: pb(2, arr(networking('IngressTLS'), 'TLS for the listed hosts.', { listType: 'atomic' })),
  rules: pb(3, arr(networking('IngressRule'), 'Host and path rules; empty: everything goes to the default backend.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.networking.v1.IngressTLS', obj({
  hosts: pb(1, arr(str(), 'Hosts the certificate covers.', { listType: 'atomic' })),
  secretName: pb(2, str('The Secret holding the certificate and key.')),
}));

// IngressRuleValue is an embedded struct in Go that JSON inlines.
defineType('io.k8s.api.networking.v1.IngressRule', obj({
  host: pb(1, str('Fully qualified host name, or a wildcard *.example.com; empty: every host.')),
  http: pb(1, networking('HTTPIngressRuleValue', 'Paths to backends.'), { in: 'IngressRuleValue' }),
}, undefined, { protoEmbeds: { IngressRuleValue: 2 } }));

defineType('io.k8s.api.networking.v1.HTTPIngressRuleValue', obj({
  paths: pb(1, arr(networking('HTTPIngressPath'), 'Paths, each to a backend.', { listType: 'atomic' })),
}, undefined, { required: ['paths'] }));

defineType('io.k8s.api.networking.v1.HTTPIngressPath', obj({
  path: pb(1, str('Matched against the request path.')),
  pathType: pb(3, str('Exact, Prefix or ImplementationSpecific.', { enum: ['Exact', 'ImplementationSpecific', 'Prefix'] }), 'keepZero'),
  backend: pb(2, networking('IngressBackend', 'Where matching requests go.')),
}, undefined, { required: ['pathType', 'backend'] }));

defineType('io.k8s.api.networking.v1.IngressBackend', obj({
  service: pb(4, networking('IngressServiceBackend', 'A service; not with resource.')),
  resource: pb(3, core('TypedLocalObjectReference', 'An object of this namespace; not with service.')),
}));

defineType('io.k8s.api.networking.v1.IngressServiceBackend', obj({
  name: pb(1, str('The service, in the ingress\'s namespace.'), 'keepZero'),
  port: pb(2, networking('ServiceBackendPort', 'The service port.')),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.networking.v1.ServiceBackendPort', obj({
  name: pb(1, str('The port\'s name; not with number.')),
  number: pb(2, int32('The port number; not with name.')),
}));

defineType('io.k8s.api.networking.v1.IngressStatus', obj({
  loadBalancer: pb(1, networking('IngressLoadBalancerStatus', 'The load balancer\'s addresses.')),
}));

defineType('io.k8s.api.networking.v1.IngressLoadBalancerStatus', obj({
  ingress: pb(1, arr(networking('IngressLoadBalancerIngress'), 'The addresses of the load balancer.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.networking.v1.IngressLoadBalancerIngress', obj({
  ip: pb(1, str('An IP address.')),
  hostname: pb(2, str('A DNS name.')),
}));
