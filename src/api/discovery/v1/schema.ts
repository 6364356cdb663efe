// discovery.k8s.io/v1 EndpointSlice.
import { str, int32, bool, obj, map, arr, defineType } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';
import { core } from '../../core/v1/names.js';
import { discovery } from './names.js';

defineType('io.k8s.api.discovery.v1.EndpointSlice', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  addressType: str('IPv4, IPv6 or FQDN; every endpoint of the slice has this type.', { enum: [] }),
  endpoints: arr(discovery('Endpoint'), 'The endpoints; at most 1000.', { listType: 'atomic' }),
  ports: arr(discovery('EndpointPort'), 'Ports exposed by every endpoint.', { listType: 'atomic' }),
}, 'A subset of the endpoints implementing a service.', { required: ['addressType', 'endpoints'], gvk: [{ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' }] }));

defineType('io.k8s.api.discovery.v1.EndpointSliceList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(discovery('EndpointSlice'), 'The objects in the list.'),
}, 'A list of EndpointSlices.', { required: ['items'], gvk: [{ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSliceList' }] }));

defineType('io.k8s.api.discovery.v1.Endpoint', obj({
  addresses: arr(str(), 'Addresses of the endpoint; consumers use the first.', { listType: 'set' }),
  conditions: discovery('EndpointConditions', 'Readiness of the endpoint.'),
  hostname: str('Hostname of the endpoint, for DNS.'),
  targetRef: core('ObjectReference', 'Object providing the endpoint, usually a pod.'),
  deprecatedTopology: map(str()),
  nodeName: str('Node hosting the endpoint.'),
  zone: str('Zone the endpoint is in.'),
  hints: discovery('EndpointHints', 'Hints for topology-aware routing.'),
}, 'One backend of a service.', { required: ['addresses'] }));

defineType('io.k8s.api.discovery.v1.EndpointPort', obj({
  name: str(),
  protocol: str(undefined, { enum: ['TCP', 'UDP', 'SCTP'] }),
  port: int32(),
  appProtocol: str(),
}, undefined, { mapType: 'atomic' }));

defineType('io.k8s.api.discovery.v1.EndpointConditions', obj({
  ready: bool('The endpoint should receive traffic (serving and not terminating).'),
  serving: bool('The endpoint can serve, regardless of terminating.'),
  terminating: bool('The endpoint is being shut down.'),
}));

defineType('io.k8s.api.discovery.v1.EndpointHints', obj({
  forZones: arr(discovery('ForZone'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.discovery.v1.ForZone', obj({
  name: str(),
}, undefined, { required: ['name'] }));
