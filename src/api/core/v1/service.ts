// core/v1 Service.
import { str, int32, bool, obj, map, arr, keyedList, defineType, withDefault } from '../../schema.js';
import { conditionRef, intOrStringRef, listMeta, objectMeta } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Service', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: core('ServiceSpec', 'Desired behaviour of the service.'),
  status: core('ServiceStatus', 'Observed state, such as the load balancer\'s addresses.'),
}, 'A stable virtual IP and DNS name load-balancing to a set of pods.', { gvk: [{ group: '', version: 'v1', kind: 'Service' }] }));

defineType('io.k8s.api.core.v1.ServiceList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Service'), 'The objects in the list.'),
}, 'A list of services.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'ServiceList' }] }));

defineType('io.k8s.api.core.v1.ServiceSpec', obj({
  ports: arr(core('ServicePort'), 'The ports the service exposes.', { patchMergeKey: 'port', patchStrategy: 'merge', listType: 'map', listMapKeys: ['port', 'protocol'] }),
  selector: map(str(), 'Labels of the pods traffic is sent to; without it, endpoints are managed by hand.'),
  clusterIP: str('The virtual IP; assigned when empty, "None" for a headless service. Immutable.'),
  clusterIPs: arr(str(), 'The virtual IPs, one per family, clusterIP first.', { listType: 'atomic' }),
  type: str('ClusterIP (default), NodePort, LoadBalancer or ExternalName.', { enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] }),
  externalIPs: arr(str(), 'Extra IPs the nodes accept traffic for on the service ports.', { listType: 'atomic' }),
  sessionAffinity: str('ClientIP keeps a client on one endpoint; None (default) does not.', { enum: ['ClientIP', 'None'] }),
  loadBalancerIP: str('Deprecated: requested load balancer IP.'),
  loadBalancerSourceRanges: arr(str(), 'Client CIDRs allowed through the load balancer.', { listType: 'atomic' }),
  externalName: str('DNS name an ExternalName service aliases (a CNAME).'),
  externalTrafficPolicy: str('Cluster (default) or Local: whether external traffic may go to endpoints on other nodes.', { enum: ['Cluster', 'Local'] }),
  healthCheckNodePort: int32('Node port the load balancer health-checks when externalTrafficPolicy is Local.'),
  publishNotReadyAddresses: bool('Publish endpoints of pods that are not ready.'),
  sessionAffinityConfig: core('SessionAffinityConfig', 'Settings for session affinity.'),
  ipFamilies: arr(str(undefined, { enum: ['IPv4', 'IPv6', ''] }), 'IP families (IPv4, IPv6) of the service, primary first.', { listType: 'atomic' }),
  ipFamilyPolicy: str('SingleStack, PreferDualStack or RequireDualStack.', { enum: ['SingleStack', 'PreferDualStack', 'RequireDualStack'] }),
  allocateLoadBalancerNodePorts: bool('Whether LoadBalancer services get node ports; default true.'),
  loadBalancerClass: str('Which load balancer implementation handles the service.'),
  internalTrafficPolicy: str('Cluster (default) or Local: whether in-cluster traffic may go to endpoints on other nodes.', { enum: ['Cluster', 'Local'] }),
  trafficDistribution: str('Preference for how traffic is spread over endpoints, e.g. PreferClose.'),
}, 'Desired state of a service.'));

defineType('io.k8s.api.core.v1.ServiceStatus', obj({
  loadBalancer: core('LoadBalancerStatus', 'Addresses of the load balancer, if any.'),
  conditions: keyedList(conditionRef(), 'type'),
}, 'Observed state of a service.'));

defineType('io.k8s.api.core.v1.ServicePort', obj({
  name: str('Name of the port; required when there is more than one.'),
  protocol: withDefault(str('TCP (default), UDP or SCTP.', { enum: ['TCP', 'UDP', 'SCTP'] }), 'TCP'),
  appProtocol: str('Application protocol hint, e.g. http or kubernetes.io/h2c.'),
  port: int32('Port the service listens on.'),
  targetPort: intOrStringRef('Port number or name on the pods; defaults to port.'),
  nodePort: int32('Port on every node for NodePort and LoadBalancer services; allocated when empty.'),
}, 'A port a service exposes.', { required: ['port'] }));

defineType('io.k8s.api.core.v1.SessionAffinityConfig', obj({
  clientIP: core('ClientIPConfig'),
}));

defineType('io.k8s.api.core.v1.ClientIPConfig', obj({
  timeoutSeconds: int32(),
}));

defineType('io.k8s.api.core.v1.LoadBalancerStatus', obj({
  ingress: arr(core('LoadBalancerIngress'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.LoadBalancerIngress', obj({
  ip: str('IP address of the load balancer.'),
  hostname: str('Hostname of the load balancer.'),
  ipMode: str(),
  ports: arr(core('PortStatus'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.PortStatus', obj({
  port: int32(),
  protocol: str(undefined, { enum: ['TCP', 'UDP', 'SCTP'] }),
  error: str(),
}, undefined, { required: ['port', 'protocol'] }));
