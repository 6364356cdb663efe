// core/v1 PersistentVolume: a piece of storage in the cluster, cluster-scoped, bound to at most
// one claim. Only the sources capstan's nodes mount are described (hostPath, local, nfs);
// the cloud and CSI sources are dropped as unknown fields.
import { str, obj, arr, map, defineType, pb } from '../../schema.js';
import { listMeta, objectMeta, quantityRef, timeRef } from '../../meta/v1/names.js';
import { core } from './names.js';

const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. PersistentVolume.'),
};

defineType('io.k8s.api.core.v1.PersistentVolume', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  spec: pb(2, core('PersistentVolumeSpec', 'The volume: its capacity, source, access modes and who may claim it.')),
  status: pb(3, core('PersistentVolumeStatus', 'The phase of the volume, maintained by the binder.')),
}, 'A storage resource provisioned by an administrator or a provisioner, analogous to a node.', { gvk: [{ group: '', version: 'v1', kind: 'PersistentVolume' }] }));

defineType('io.k8s.api.core.v1.PersistentVolumeList', obj({
  ...typeMeta,
  metadata: listMeta(),
  items: arr(core('PersistentVolume'), 'The objects in the list.'),
}, 'A list of PersistentVolumes.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeList' }] }));

defineType('io.k8s.api.core.v1.PersistentVolumeSpec', obj({
  capacity: pb(1, map(quantityRef(), 'The resources of the volume; `storage` is its size.')),
  hostPath: pb(3, core('HostPathVolumeSource', 'A directory on the node (single-node and test clusters).'), { in: 'PersistentVolumeSource' }),
  nfs: pb(5, core('NFSVolumeSource', 'An NFS export.'), { in: 'PersistentVolumeSource' }),
  local: pb(20, core('LocalVolumeSource', 'A directory or disk of one node; needs nodeAffinity.'), { in: 'PersistentVolumeSource' }),
  accessModes: pb(3, arr(str(undefined, { enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] }), 'The ways the volume can be mounted.', { listType: 'atomic' })),
  claimRef: pb(4, core('ObjectReference', 'The claim bound to the volume, or the one it is reserved for.')),
  persistentVolumeReclaimPolicy: pb(5, str('What happens when the claim is released: Retain, Delete or Recycle.', { enum: ['Delete', 'Recycle', 'Retain'] })),
  storageClassName: pb(6, str('The StorageClass the volume belongs to; empty: none.')),
  mountOptions: pb(7, arr(str(), 'Mount options, not validated.', { listType: 'atomic' })),
  volumeMode: pb(8, str('Filesystem (default) or Block.', { enum: ['Block', 'Filesystem'] })),
  nodeAffinity: pb(9, core('VolumeNodeAffinity', 'The nodes the volume can be used from.')),
  volumeAttributesClassName: pb(10, str()),
}, 'The specification of a persistent volume.', { protoEmbeds: { PersistentVolumeSource: 2 } }));

defineType('io.k8s.api.core.v1.LocalVolumeSource', obj({
  path: pb(1, str('Full path of the directory or device on the node.'), 'keepZero'),
  fsType: pb(2, str()),
}, 'Directly-attached storage of one node.', { required: ['path'] }));

defineType('io.k8s.api.core.v1.VolumeNodeAffinity', obj({
  required: pb(1, core('NodeSelector', 'Nodes that may use the volume.')),
}, 'The nodes a volume can be accessed from.'));

defineType('io.k8s.api.core.v1.PersistentVolumeStatus', obj({
  phase: pb(1, str('Pending, Available, Bound, Released or Failed.', { enum: ['Available', 'Bound', 'Failed', 'Pending', 'Released'] })),
  message: pb(2, str('Why the volume is in this phase.')),
  reason: pb(3, str('A CamelCase reason for a failure.')),
  lastPhaseTransitionTime: pb(4, timeRef('When the phase last changed.')),
}, 'Observed state of a persistent volume.'));

// StorageClasses' allowedTopologies.
defineType('io.k8s.api.core.v1.TopologySelectorTerm', obj({
  matchLabelExpressions: pb(1, arr(core('TopologySelectorLabelRequirement'), undefined, { listType: 'atomic' })),
}, 'A topology term: its label requirements are ANDed.', { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.TopologySelectorLabelRequirement', obj({
  key: pb(1, str('The label key.'), 'keepZero'),
  values: pb(2, arr(str(), 'The values, one of which must match.', { listType: 'atomic' })),
}, undefined, { required: ['key', 'values'] }));
