// core/v1 Volume and the volume sources a pod commonly uses.
import { str, int32, int64, bool, obj, map, arr, defineType, withDefault } from '../../schema.js';
import { labelSelector, objectMeta, quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Volume', obj({
  name: str('Name of the volume, unique in the pod.'),
  hostPath: core('HostPathVolumeSource', 'A file or directory of the node.'),
  emptyDir: core('EmptyDirVolumeSource', 'An empty directory that lives as long as the pod.'),
  gcePersistentDisk: core('GCEPersistentDiskVolumeSource'),
  awsElasticBlockStore: core('AWSElasticBlockStoreVolumeSource'),
  gitRepo: core('GitRepoVolumeSource'),
  secret: core('SecretVolumeSource', 'The keys of a Secret as files.'),
  nfs: core('NFSVolumeSource', 'An NFS export.'),
  iscsi: core('ISCSIVolumeSource'),
  glusterfs: core('GlusterfsVolumeSource'),
  persistentVolumeClaim: core('PersistentVolumeClaimVolumeSource', 'A persistent volume claimed in the same namespace.'),
  rbd: core('RBDVolumeSource'),
  flexVolume: core('FlexVolumeSource'),
  cinder: core('CinderVolumeSource'),
  cephfs: core('CephFSVolumeSource'),
  flocker: core('FlockerVolumeSource'),
  downwardAPI: core('DownwardAPIVolumeSource', 'Pod fields as files.'),
  fc: core('FCVolumeSource'),
  azureFile: core('AzureFileVolumeSource'),
  configMap: core('ConfigMapVolumeSource', 'The keys of a ConfigMap as files.'),
  vsphereVolume: core('VsphereVirtualDiskVolumeSource'),
  quobyte: core('QuobyteVolumeSource'),
  azureDisk: core('AzureDiskVolumeSource'),
  photonPersistentDisk: core('PhotonPersistentDiskVolumeSource'),
  projected: core('ProjectedVolumeSource', 'Several sources (secrets, configmaps, downward API, tokens) in one directory.'),
  portworxVolume: core('PortworxVolumeSource'),
  scaleIO: core('ScaleIOVolumeSource'),
  storageos: core('StorageOSVolumeSource'),
  csi: core('CSIVolumeSource', 'A volume provided by a CSI driver.'),
  ephemeral: core('EphemeralVolumeSource', 'A volume provisioned for the pod and deleted with it.'),
  image: core('ImageVolumeSource', 'The content of an OCI image or artifact, read-only.'),
}, 'A named volume; exactly one source is set.', { required: ['name'] }));

defineType('io.k8s.api.core.v1.KeyToPath', obj({
  key: str(),
  path: str(),
  mode: int32(),
}, undefined, { required: ['key', 'path'] }));

defineType('io.k8s.api.core.v1.HostPathVolumeSource', obj({
  path: str(),
  type: str(undefined, { enum: ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'] }),
}, undefined, { required: ['path'] }));

defineType('io.k8s.api.core.v1.EmptyDirVolumeSource', obj({
  medium: str(),
  sizeLimit: quantityRef(),
}));

defineType('io.k8s.api.core.v1.SecretVolumeSource', obj({
  secretName: str(),
  items: arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' }),
  defaultMode: int32(),
  optional: bool(),
}));

defineType('io.k8s.api.core.v1.ConfigMapVolumeSource', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  items: arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' }),
  defaultMode: int32(),
  optional: bool(),
}));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource', obj({
  claimName: str(),
  readOnly: bool(),
}, undefined, { required: ['claimName'] }));

defineType('io.k8s.api.core.v1.DownwardAPIVolumeSource', obj({
  items: arr(core('DownwardAPIVolumeFile'), 'The objects in the list.', { listType: 'atomic' }),
  defaultMode: int32(),
}));

defineType('io.k8s.api.core.v1.DownwardAPIVolumeFile', obj({
  path: str(),
  fieldRef: core('ObjectFieldSelector'),
  resourceFieldRef: core('ResourceFieldSelector'),
  mode: int32(),
}, undefined, { required: ['path'] }));

defineType('io.k8s.api.core.v1.ProjectedVolumeSource', obj({
  sources: arr(core('VolumeProjection'), undefined, { listType: 'atomic' }),
  defaultMode: int32(),
}));

defineType('io.k8s.api.core.v1.VolumeProjection', obj({
  secret: core('SecretProjection'),
  downwardAPI: core('DownwardAPIProjection'),
  configMap: core('ConfigMapProjection'),
  serviceAccountToken: core('ServiceAccountTokenProjection'),
  clusterTrustBundle: core('ClusterTrustBundleProjection'),
}));

defineType('io.k8s.api.core.v1.SecretProjection', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  items: arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' }),
  optional: bool(),
}));

defineType('io.k8s.api.core.v1.ConfigMapProjection', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  items: arr(core('KeyToPath'), 'The objects in the list.', { listType: 'atomic' }),
  optional: bool(),
}));

defineType('io.k8s.api.core.v1.DownwardAPIProjection', obj({
  items: arr(core('DownwardAPIVolumeFile'), 'The objects in the list.', { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.ServiceAccountTokenProjection', obj({
  audience: str(),
  expirationSeconds: int64(),
  path: str(),
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

defineType('io.k8s.api.core.v1.TypedLocalObjectReference', obj({
  apiGroup: str(),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  name: str(),
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
  server: str(),
  path: str(),
  readOnly: bool(),
}, undefined, { required: ['server', 'path'] }));
