// storage.k8s.io/v1 StorageClass: how claims of a class are provisioned (provisioner,
// parameters), when they bind (volumeBindingMode) and what happens to their volumes after.
import { str, bool, obj, arr, map, defineType, ref, pb } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';

const gvk = (kind: string) => [{ group: 'storage.k8s.io', version: 'v1', kind }];
const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. storage.k8s.io/v1.'),
  kind: str('The type of this object in CamelCase, e.g. StorageClass.'),
};

defineType('io.k8s.api.storage.v1.StorageClass', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  provisioner: pb(2, str('The volume plugin or external provisioner that creates volumes of this class.'), 'keepZero'),
  parameters: pb(3, map(str(), 'Provisioner-specific parameters.')),
  reclaimPolicy: pb(4, str('Reclaim policy of provisioned volumes: Delete (default) or Retain.', { enum: ['Delete', 'Recycle', 'Retain'] })),
  mountOptions: pb(5, arr(str(), 'Mount options of provisioned volumes.', { listType: 'atomic' })),
  allowVolumeExpansion: pb(6, bool('Whether claims of this class may grow.'), 'keepZero'),
  volumeBindingMode: pb(7, str('Immediate (default) or WaitForFirstConsumer: bind and provision once a pod using the claim is scheduled.', { enum: ['Immediate', 'WaitForFirstConsumer'] })),
  allowedTopologies: pb(8, arr(ref('io.k8s.api.core.v1.TopologySelectorTerm'), 'Where volumes may be provisioned.', { listType: 'atomic' })),
}, 'A class of storage: its provisioner and parameters. Not namespaced.', { required: ['provisioner'], gvk: gvk('StorageClass') }));

defineType('io.k8s.api.storage.v1.StorageClassList', obj({
  ...typeMeta,
  metadata: listMeta(),
  items: arr(ref('io.k8s.api.storage.v1.StorageClass'), 'The objects in the list.'),
}, 'A list of StorageClasses.', { required: ['items'], gvk: gvk('StorageClassList') }));
