// core/v1 Volume and the volume sources a pod commonly uses.
import { str, int32, int64, bool, obj, map, arr, defineType, withDefault, pb } from '../../schema.js';
import { labelSelector, objectMeta, quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Volume', obj({
  name: pb(1, str('Name of the volume, unique in the pod.'), 'keepZero'),
  hostPath: pb(1, core('HostPathVolumeSource', 'A file or directory of the node.'), { in: 'VolumeSource' }),
  emptyDir: pb(2, core('EmptyDirVolumeSource', 'An empty directory that lives as long as the pod.'), { in: 'VolumeSource' }),
  gcePersistentDisk: core('GCEPersistentDiskVolumeSource'),
  awsElasticBlockStore: core('AWSElasticBlockStoreVolumeSource'),
  gitRepo: core('GitRepoVolumeSource'),
  secret: pb(6, core('SecretVolumeSource', 'The keys of a Secret as files.'), { in: 'VolumeSource' }),
  nfs: core('NFSVolumeSource', 'An NFS export.'),
  iscsi: core('ISCSIVolumeSource'),
  glusterfs: core('GlusterfsVolumeSource'),
  persistentVolumeClaim: pb(10, core('PersistentVolumeClaimVolumeSource', 'A persistent volume claimed in the same namespace.'), { in: 'VolumeSource' }),
  rbd: core('RBDVolumeSource'),
  flexVolume: core('FlexVolumeSource'),
  cinder: core('CinderVolumeSource'),
  cephfs: core('CephFSVolumeSource'),
  flocker: core('FlockerVolumeSource'),
  downwardAPI: pb(16, core('DownwardAPIVolumeSource', 'Pod fields as files.'), { in: 'VolumeSource' }),
  fc: core('FCVolumeSource'),
  azureFile: core('AzureFileVolumeSource'),
  configMap: pb(19, core('ConfigMapVolumeSource', 'The keys of a ConfigMap as files.'), { in: 'VolumeSource' }),
  vsphereVolume: core('VsphereVirtualDiskVolumeSource'),
  quobyte: core('QuobyteVolumeSource'),
  azureDisk: core('AzureDiskVolumeSource'),
  photonPersistentDisk: core('PhotonPersistentDiskVolumeSource'),
  projected: pb(26, core('ProjectedVolumeSource', 'Several sources (secrets, configmaps, downward API, tokens) in one directory.'), { in: 'VolumeSource' }),
  portworxVolume: core('PortworxVolumeSource'),
  scaleIO: core('ScaleIOVolumeSource'),
  storageos: core('StorageOSVolumeSource'),
  csi: core('CSIVolumeSource', 'A volume provided by a CSI driver.'),
  ephemeral: core('EphemeralVolumeSource', 'A volume provisioned for the pod and deleted with it.'),
  image: core('ImageVolumeSource', 'The content of an OCI image or artifact, read-only.'),
}, 'A named volume; exactly one source is set.', { required: ['name'], protoEmbeds: { VolumeSource: 2 } }));

defineType('io.k8s.api.core.v1.KeyToPath', obj({
  key: pb(1, str(), 'keepZero'),
  path: pb(2, str(), 'keepZero'),
  mode: pb(3, int32(), 'keepZero'),
}, undefined, { required: ['key', 'path'] }));

defineType('io.k8s.api.core.v1.HostPathVolumeSource', obj({
  path: pb(1, str(), 'keepZero'),
  type: pb(2, str(undefined, { enum: ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'] }), 'keepZero'),
}, undefined, { required: ['path'] }));

defineType('io.k8s.api.core.v1.EmptyDirVolumeSource', obj({
  medium: pb(1, str()),
  sizeLimit: pb(2, quantityRef()),
}));

defineType('io.k8s.api.core.v1.SecretVolumeSource', obj({
  secretName: pb(1, str()),
  items: pb(2, arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' })),
  defaultMode: pb(3, int32(), 'keepZero'),
  optional: pb(4, bool(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.ConfigMapVolumeSource', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  items: pb(2, arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' })),
  defaultMode: pb(3, int32(), 'keepZero'),
  optional: pb(4, bool(), 'keepZero'),
}, undefined, { protoEmbeds: { LocalObjectReference: 1 } }));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource', obj({
  claimName: pb(1, str(), 'keepZero'),
  readOnly: pb(2, bool()),
}, undefined, { required: ['claimName'] }));

defineType('io.k8s.api.core.v1.DownwardAPIVolumeSource', obj({
  items: pb(1, arr(core('DownwardAPIVolumeFile'), 'The objects in the list.', { listType: 'atomic' })),
  defaultMode: pb(2, int32(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.DownwardAPIVolumeFile', obj({
  path: pb(1, str(), 'keepZero'),
  fieldRef: pb(2, core('ObjectFieldSelector')),
  resourceFieldRef: pb(3, core('ResourceFieldSelector')),
  mode: pb(4, int32(), 'keepZero'),
}, undefined, { required: ['path'] }));

defineType('io.k8s.api.core.v1.ProjectedVolumeSource', obj({
  sources: pb(1, arr(core('VolumeProjection'), undefined, { listType: 'atomic' })),
  defaultMode: pb(2, int32(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.VolumeProjection', obj({
  secret: pb(1, core('SecretProjection')),
  downwardAPI: pb(2, core('DownwardAPIProjection')),
  configMap: pb(3, core('ConfigMapProjection')),
  serviceAccountToken: pb(4, core('ServiceAccountTokenProjection')),
  clusterTrustBundle: core('ClusterTrustBundleProjection'),
}));

defineType('io.k8s.api.core.v1.SecretProjection', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  items: pb(2, arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' })),
  optional: pb(4, bool(), 'keepZero'),
}, undefined, { protoEmbeds: { LocalObjectReference: 1 } }));

defineType('io.k8s.api.core.v1.ConfigMapProjection', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  items: pb(2, arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' })),
  optional: pb(4, bool(), 'keepZero'),
}, undefined, { protoEmbeds: { LocalObjectReference: 1 } }));

defineType('io.k8s.api.core.v1.DownwardAPIProjection', obj({
  items: pb(1, arr(core('DownwardAPIVolumeFile'), 'The objects in the list.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.ServiceAccountTokenProjection', obj({
  audience: pb(1, str()),
  expirationSeconds: pb(2, int64(), 'keepZero'),
  path: pb(3, str(), 'keepZero'),
}, undefined, { required: ['path'] }));

defineType('io.k8s.api.core.v1.ClusterTrustBundleProjection', obj({
  name: str(),
  signerName: str(),
  labelSelector: labelSelector(),
  optional: bool(),
  path: str(),
}, undefined, { required: ['path'] }));

defineType('io.k8s.api.core.v1.CSIVolumeSource', obj({
  driver: str(),
  readOnly: bool(),
  fsType: str(),
  volumeAttributes: map(str()),
  nodePublishSecretRef: core('LocalObjectReference'),
}, undefined, { required: ['driver'] }));

defineType('io.k8s.api.core.v1.EphemeralVolumeSource', obj({
  volumeClaimTemplate: core('PersistentVolumeClaimTemplate'),
}));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimTemplate', obj({
  metadata: objectMeta(),
  spec: core('PersistentVolumeClaimSpec'),
}, undefined, { required: ['spec'] }));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimSpec', obj({
  accessModes: arr(str(undefined, { enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] }), undefined, { listType: 'atomic' }),
  selector: labelSelector(),
  resources: core('VolumeResourceRequirements'),
  volumeName: str(),
  storageClassName: str(),
  volumeMode: str(undefined, { enum: ['Block', 'Filesystem'] }),
  dataSource: core('TypedLocalObjectReference'),
  dataSourceRef: core('TypedObjectReference'),
  volumeAttributesClassName: str(),
}));

defineType('io.k8s.api.core.v1.VolumeResourceRequirements', obj({
  limits: map(quantityRef()),
  requests: map(quantityRef()),
}));

// Numbered for networking's IngressBackend.resource; PersistentVolumeClaimSpec is not numbered yet.
defineType('io.k8s.api.core.v1.TypedLocalObjectReference', obj({
  apiGroup: pb(1, str(), 'keepZero'),
  kind: pb(2, str('The type of this object in CamelCase, e.g. Deployment.'), 'keepZero'),
  name: pb(3, str(), 'keepZero'),
}, undefined, { required: ['kind', 'name'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.TypedObjectReference', obj({
  apiGroup: str(),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  name: str(),
  namespace: str(),
}, undefined, { required: ['kind', 'name'] }));

defineType('io.k8s.api.core.v1.ImageVolumeSource', obj({
  reference: str(),
  pullPolicy: str(undefined, { enum: ['Always', 'Never', 'IfNotPresent'] }),
}));

defineType('io.k8s.api.core.v1.NFSVolumeSource', obj({
  server: pb(1, str(), 'keepZero'),
  path: pb(2, str(), 'keepZero'),
  readOnly: pb(3, bool()),
}, undefined, { required: ['server', 'path'] }));
