// k8s.io/api networking/v1: Ingress, NetworkPolicy.
import { msg, type Messages } from '../schema.js';

export const networking: Messages = {
  Ingress: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'IngressSpec'], 3: ['status', 'IngressStatus'] }),
  IngressSpec: msg({ 4: ['ingressClassName', '*string'], 1: ['defaultBackend', '*IngressBackend'], 2: ['tls', '[]IngressTLS'], 3: ['rules', '[]IngressRule'] }),
  IngressTLS: msg({ 1: ['hosts', '[]string'], 2: ['secretName', 'string'] }),
  IngressRule: msg({ 1: ['host', 'string'], 2: ['', '...IngressRuleValue'] }),
  IngressRuleValue: msg({ 1: ['http', '*HTTPIngressRuleValue'] }),
  HTTPIngressRuleValue: msg({ 1: ['paths', '[]HTTPIngressPath'] }),
  HTTPIngressPath: msg({ 1: ['path', 'string'], 3: ['pathType', '*string'], 2: ['backend', 'IngressBackend'] }),
  IngressBackend: msg({ 4: ['service', '*IngressServiceBackend'], 3: ['resource', '*TypedLocalObjectReference'] }),
  IngressServiceBackend: msg({ 1: ['name', 'string!'], 2: ['port', 'ServiceBackendPort'] }),
  ServiceBackendPort: msg({ 1: ['name', 'string'], 2: ['number', 'int32'] }),
  TypedLocalObjectReference: msg({ 1: ['apiGroup', '*string'], 2: ['kind', 'string!'], 3: ['name', 'string!'] }),
  IngressStatus: msg({ 1: ['loadBalancer', 'IngressLoadBalancerStatus'] }),
  IngressLoadBalancerStatus: msg({ 1: ['ingress', '[]IngressLoadBalancerIngress'] }),
  NetworkPolicy: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'NetworkPolicySpec'] }),
  NetworkPolicySpec: msg({ 1: ['podSelector', 'LabelSelector'], 2: ['ingress', '[]NetworkPolicyIngressRule'], 3: ['egress', '[]NetworkPolicyEgressRule'], 4: ['policyTypes', '[]string'] }),
  NetworkPolicyIngressRule: msg({ 1: ['ports', '[]NetworkPolicyPort'], 2: ['from', '[]NetworkPolicyPeer'] }),
  NetworkPolicyEgressRule: msg({ 1: ['ports', '[]NetworkPolicyPort'], 2: ['to', '[]NetworkPolicyPeer'] }),
  NetworkPolicyPeer: msg({ 1: ['podSelector', '*LabelSelector'], 2: ['namespaceSelector', '*LabelSelector'], 3: ['ipBlock', '*IPBlock'] }),
  IPBlock: msg({ 1: ['cidr', 'string'], 2: ['except', '[]string'] }),
  NetworkPolicyPort: msg({ 1: ['protocol', '*string'], 2: ['port', '*IntOrString'], 3: ['endPort', '*int32'] }),
  IngressLoadBalancerIngress: msg({ 1: ['ip', 'string'], 2: ['hostname', 'string'] }),
};
