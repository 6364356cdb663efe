// A served-resource table like the API server's, for tests of the OpenAPI documents.
import type { ServedResource } from '../../src/api/openapi.js';

const CRUD = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS = ['get', 'patch', 'update'];

const status = (group: string, version: string, kind: string) => ({ name: 'status', group, version, kind, verbs: STATUS });

export const served: ServedResource[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: CRUD.filter((v) => v !== 'deletecollection'),
    subresources: [status('', 'v1', 'Namespace')] },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, verbs: CRUD, subresources: [
    status('', 'v1', 'Pod'),
    { name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] },
    { name: 'log', group: '', version: 'v1', kind: 'Pod', verbs: ['get'] },
    { name: 'exec', group: '', version: 'v1', kind: 'PodExecOptions', verbs: ['create', 'get'] },
  ] },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, verbs: CRUD, subresources: [status('', 'v1', 'Service')] },
  { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true, verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, verbs: CRUD, subresources: [status('', 'v1', 'Node')] },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, verbs: CRUD, subresources: [] },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, verbs: CRUD, subresources: [] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: CRUD, subresources: [
    status('apps', 'v1', 'Deployment'),
    { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: STATUS },
  ] },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, verbs: CRUD, subresources: [
    status('apps', 'v1', 'ReplicaSet'),
    { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: STATUS },
  ] },
  { group: 'apps', version: 'v1beta1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: CRUD, subresources: [
    status('apps', 'v1beta1', 'Deployment'),
    { name: 'scale', group: 'apps', version: 'v1beta1', kind: 'Scale', verbs: STATUS },
  ] },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true, verbs: CRUD, subresources: [] },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, verbs: CRUD, subresources: [] },
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, verbs: CRUD, subresources: [] },
];
