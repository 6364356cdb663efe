// core/v1 Endpoints.
import { str, int32, obj, arr, defineType } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Endpoints', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  subsets: arr(core('EndpointSubset'), undefined, { listType: 'atomic' }),
}, 'The addresses behind a service, grouped into subsets.', { gvk: [{ group: '', version: 'v1', kind: 'Endpoints' }] }));

defineType('io.k8s.api.core.v1.EndpointsList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Endpoints'), 'The objects in the list.'),
}, 'A list of Endpoints objects.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'EndpointsList' }] }));

defineType('io.k8s.api.core.v1.EndpointSubset', obj({
  addresses: arr(core('EndpointAddress'), 'Ready addresses.', { listType: 'atomic' }),
  notReadyAddresses: arr(core('EndpointAddress'), 'Addresses that are not ready yet.', { listType: 'atomic' }),
  ports: arr(core('EndpointPort'), 'Ports available on every address.', { listType: 'atomic' }),
}, 'Addresses that all share the same ports.'));

defineType('io.k8s.api.core.v1.EndpointAddress', obj({
  ip: str('The endpoint IP.'),
  hostname: str(),
  nodeName: str('Node hosting the endpoint.'),
  targetRef: core('ObjectReference', 'Object providing the endpoint, usually a pod.'),
}, undefined, { required: ['ip'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.EndpointPort', obj({
  name: str(),
  port: int32(),
  protocol: str(undefined, { enum: ['TCP', 'UDP', 'SCTP'] }),
  appProtocol: str(),
}, undefined, { required: ['port'], mapType: 'atomic' }));
