// k8s.io/api core/v1, apart from pods (pod.ts).
import { msg, type Messages } from '../schema.js';

export const core: Messages = {
  Namespace: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'NamespaceSpec'], 3: ['status', 'NamespaceStatus'] }),
  NamespaceSpec: msg({ 1: ['finalizers', '[]string'] }),
  NamespaceStatus: msg({ 1: ['phase', 'string'], 2: ['conditions', '[]NamespaceCondition'] }),
  NamespaceCondition: msg({
    1: ['type', 'string!'], 2: ['status', 'string!'], 4: ['lastTransitionTime', 'Time'], 5: ['reason', 'string'], 6: ['message', 'string'],
  }),

  ConfigMap: msg({ 1: ['metadata', 'ObjectMeta'], 4: ['immutable', '*bool'], 2: ['data', 'map<string>'], 3: ['binaryData', 'map<bytes>'] }),
  Secret: msg({
    1: ['metadata', 'ObjectMeta'], 5: ['immutable', '*bool'], 2: ['data', 'map<bytes>'], 4: ['stringData', 'map<string>'], 3: ['type', 'string'],
  }),

  ServiceAccount: msg({
    1: ['metadata', 'ObjectMeta'], 2: ['secrets', '[]ObjectReference'], 3: ['imagePullSecrets', '[]LocalObjectReference'],
    4: ['automountServiceAccountToken', '*bool'],
  }),
  ObjectReference: msg({
    1: ['kind', 'string'], 2: ['namespace', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'],
    6: ['resourceVersion', 'string'], 7: ['fieldPath', 'string'],
  }),
  LocalObjectReference: msg({ 1: ['name', 'string'] }),

  Service: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ServiceSpec'], 3: ['status', 'ServiceStatus'] }),
  ServiceSpec: msg({
    1: ['ports', '[]ServicePort'], 2: ['selector', 'map<string>'], 3: ['clusterIP', 'string'], 18: ['clusterIPs', '[]string'],
    4: ['type', 'string'], 5: ['externalIPs', '[]string'], 7: ['sessionAffinity', 'string'], 8: ['loadBalancerIP', 'string'],
    9: ['loadBalancerSourceRanges', '[]string'], 10: ['externalName', 'string'], 11: ['externalTrafficPolicy', 'string'],
    12: ['healthCheckNodePort', 'int32'], 13: ['publishNotReadyAddresses', 'bool'], 14: ['sessionAffinityConfig', '*SessionAffinityConfig'],
    19: ['ipFamilies', '[]string'], 17: ['ipFamilyPolicy', '*string'], 20: ['allocateLoadBalancerNodePorts', '*bool'],
    21: ['loadBalancerClass', '*string'], 22: ['internalTrafficPolicy', '*string'], 23: ['trafficDistribution', '*string'],
  }),
  ServicePort: msg({
    1: ['name', 'string'], 2: ['protocol', 'string'], 6: ['appProtocol', '*string'], 3: ['port', 'int32!'],
    4: ['targetPort', 'IntOrString'], 5: ['nodePort', 'int32'],
  }),
  SessionAffinityConfig: msg({ 1: ['clientIP', '*ClientIPConfig'] }),
  ClientIPConfig: msg({ 1: ['timeoutSeconds', '*int32'] }),
  ServiceStatus: msg({ 1: ['loadBalancer', 'LoadBalancerStatus'], 2: ['conditions', '[]Condition'] }),
  LoadBalancerStatus: msg({ 1: ['ingress', '[]LoadBalancerIngress'] }),
  LoadBalancerIngress: msg({ 1: ['ip', 'string'], 2: ['hostname', 'string'], 3: ['ipMode', '*string'], 4: ['ports', '[]PortStatus'] }),
  PortStatus: msg({ 1: ['port', 'int32!'], 2: ['protocol', 'string!'], 3: ['error', '*string'] }),

  ResourceQuota: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ResourceQuotaSpec'], 3: ['status', 'ResourceQuotaStatus'] }),
  ResourceQuotaSpec: msg({ 1: ['hard', 'map<Quantity>'], 2: ['scopes', '[]string'], 3: ['scopeSelector', '*ScopeSelector'] }),
  ScopeSelector: msg({ 1: ['matchExpressions', '[]ScopedResourceSelectorRequirement'] }),
  ScopedResourceSelectorRequirement: msg({ 1: ['scopeName', 'string!'], 2: ['operator', 'string!'], 3: ['values', '[]string'] }),
  ResourceQuotaStatus: msg({ 1: ['hard', 'map<Quantity>'], 2: ['used', 'map<Quantity>'] }),
};
