// coordination.k8s.io/v1 Lease.
import { str, int32, obj, arr, defineType } from '../../schema.js';
import { listMeta, microTimeRef, objectMeta } from '../../meta/v1/names.js';
import { coordination } from './names.js';

defineType('io.k8s.api.coordination.v1.Lease', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: coordination('LeaseSpec', 'The lease itself.'),
}, 'A lease held by one holder; used for leader election and node heartbeats.', { gvk: [{ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }] }));

defineType('io.k8s.api.coordination.v1.LeaseList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(coordination('Lease'), 'The objects in the list.'),
}, 'A list of leases.', { required: ['items'], gvk: [{ group: 'coordination.k8s.io', version: 'v1', kind: 'LeaseList' }] }));

defineType('io.k8s.api.coordination.v1.LeaseSpec', obj({
  holderIdentity: str('Identity of the current holder.'),
  leaseDurationSeconds: int32('Seconds candidates wait after the last renew before taking the lease over.'),
  acquireTime: microTimeRef('When the current holder acquired the lease.'),
  renewTime: microTimeRef('When the holder last renewed the lease.'),
  leaseTransitions: int32('How many times the lease changed holders.'),
  strategy: str(),
  preferredHolder: str(),
}));
