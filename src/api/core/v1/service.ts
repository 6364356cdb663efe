// core/v1 Service.
import { str, int32, bool, obj, map, arr, keyedList, defineType, withDefault, pb } from '../../schema.js';
import { conditionRef, intOrStringRef, listMeta, objectMeta } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Service', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, core('ServiceSpec', 'Desired behaviour of the service.')),
  status: pb(3, core('ServiceStatus', 'Observed state, such as the load balancer\'s addresses.')),
}, 'A stable virtual IP and DNS name load-balancing to a set of pods.', { gvk: [{ group: '', version: 'v1', kind: 'Service' }] }));

defineType('io.k8s.api.core.v1.ServiceList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Service'), 'The objects in the list.'),
}, 'A list of services.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'ServiceList' }] }));

defineType('io.k8s.api.core.v1.ServiceSpec', obj({
  ports: pb(1, arr(core('ServicePort'), 'The ports the service exposes.', { patchMergeKey: 'port', patchStrategy: 'merge', listType: 'map', listMapKeys: ['port', 'protocol'] })),
  selector: pb(2, map(str(), 'Labels of the pods traffic is sent to; without it, endpoints are managed by hand.')),
  clusterIP: pb(3, str('The virtual IP; assigned when empty, "None" for a headless service. Immutable.')),
  clusterIPs: pb(18, arr(str(), 'The virtual IPs, one per family, clusterIP first.', { listType: 'atomic' })),
  type: pb(4, str('ClusterIP (default), NodePort, LoadBalancer or ExternalName.', { enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] })),
  externalIPs: pb(5, arr(str(), 'Extra IPs the nodes accept traffic for on the service ports.', { listType: 'atomic' })),
  sessionAffinity: pb(7, str('ClientIP keeps a client on one endpoint; None (default) does not.', { enum: ['ClientIP', 'None'] })),
  loadBalancerIP: pb(8, str('Deprecated: requested load balancer IP.')),
  loadBalancerSourceRanges: pb(9, arr(str(), 'Client CIDRs allowed through the load balancer.', { listType: 'atomic' })),
  externalName: pb(10, str('DNS name an ExternalName service aliases (a CNAME).')),
  externalTrafficPolicy: pb(11, str('Cluster (default) or Local: whether external traffic may go to endpoints on other nodes.', { enum: ['Cluster', 'Local'] })),
  healthCheckNodePort: pb(12, int32('Node port the load balancer health-checks when externalTrafficPolicy is Local.')),
  publishNotReadyAddresses: pb(13, bool('Publish endpoints of pods that are not ready.')),
  sessionAffinityConfig: pb(14, core('SessionAffinityConfig', 'Settings for session affinity.')),
  ipFamilies: pb(19, arr(str(undefined, { enum: ['IPv4', 'IPv6', ''] }), 'IP families (IPv4, IPv6) of the service, primary first.', { listType: 'atomic' })),
  ipFamilyPolicy: pb(17, str('SingleStack, PreferDualStack or RequireDualStack.', { enum: ['SingleStack', 'PreferDualStack', 'RequireDualStack'] }), 'keepZero'),
  allocateLoadBalancerNodePorts: pb(20, bool('Whether LoadBalancer services get node ports; default true.'), 'keepZero'),
  loadBalancerClass: pb(21, str('Which load balancer implementation handles the service.'), 'keepZero'),
  internalTrafficPolicy: pb(22, str('Cluster (default) or Local: whether in-cluster traffic may go to endpoints on other nodes.', { enum: ['Cluster', 'Local'] }), 'keepZero'),
  trafficDistribution: pb(23, str('Preference for how traffic is spread over endpoints, e.g. PreferClose.'), 'keepZero'),
}, 'Desired state of a service.'));

defineType('io.k8s.api.core.v1.ServiceStatus', obj({
  loadBalancer: pb(1, core('LoadBalancerStatus', 'Addresses of the load balancer, if any.')),
  conditions: pb(2, keyedList(conditionRef(), 'type')),
}, 'Observed state of a service.'));

defineType('io.k8s.api.core.v1.ServicePort', obj({
  name: pb(1, str('Name of the port; required when there is more than one.')),
  protocol: pb(2, withDefault(str('TCP (default), UDP or SCTP.', { enum: ['TCP', 'UDP', 'SCTP'] }), 'TCP')),
  appProtocol: pb(6, str('Application protocol hint, e.g. http or kubernetes.io/h2c.'), 'keepZero'),
  port: pb(3, int32('Port the service listens on.'), 'keepZero'),
  targetPort: pb(4, intOrStringRef('Port number or name on the pods; defaults to port.')),
  nodePort: pb(5, int32('Port on every node for NodePort and LoadBalancer services; allocated when empty.')),
}, 'A port a service exposes.', { required: ['port'] }));

defineType('io.k8s.api.core.v1.SessionAffinityConfig', obj({
  clientIP: pb(1, core('ClientIPConfig')),
}));

defineType('io.k8s.api.core.v1.ClientIPConfig', obj({
  timeoutSeconds: pb(1, int32(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.LoadBalancerStatus', obj({
  ingress: pb(1, arr(core('LoadBalancerIngress'), undefined, { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.LoadBalancerIngress', obj({
  ip: pb(1, str('IP address of the load balancer.')),
  hostname: pb(2, str('Hostname of the load balancer.')),
  ipMode: pb(3, str(), 'keepZero'),
  ports: pb(4, arr(core('PortStatus'), undefined, { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.PortStatus', obj({
  port: pb(1, int32(), 'keepZero'),
  protocol: pb(2, str(undefined, { enum: ['TCP', 'UDP', 'SCTP'] }), 'keepZero'),
  error: pb(3, str(), 'keepZero'),
}, undefined, { required: ['port', 'protocol'] }));
