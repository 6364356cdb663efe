// core/v1 in-tree storage driver volume sources. Most are deprecated, but manifests still carry them,
// and strict field validation would reject a pod using one if it were left out.
import { str, int32, bool, obj, map, arr, defineType, withDefault } from '../../schema.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.GCEPersistentDiskVolumeSource', obj({
  pdName: str(),
  fsType: str(),
  partition: int32(),
  readOnly: bool(),
}, undefined, { required: ['pdName'] }));

defineType('io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource', obj({
  volumeID: str(),
  fsType: str(),
  partition: int32(),
  readOnly: bool(),
}, undefined, { required: ['volumeID'] }));

defineType('io.k8s.api.core.v1.GitRepoVolumeSource', obj({
  repository: str(),
  revision: str(),
  directory: str(),
}, undefined, { required: ['repository'] }));

defineType('io.k8s.api.core.v1.ISCSIVolumeSource', obj({
  targetPortal: str(),
  iqn: str(),
  lun: int32(),
  iscsiInterface: withDefault(str(), 'default'),
  fsType: str(),
  readOnly: bool(),
  portals: arr(str(), undefined, { listType: 'atomic' }),
  chapAuthDiscovery: bool(),
  chapAuthSession: bool(),
  secretRef: core('LocalObjectReference'),
  initiatorName: str(),
}, undefined, { required: ['targetPortal', 'iqn', 'lun'] }));

defineType('io.k8s.api.core.v1.GlusterfsVolumeSource', obj({
  endpoints: str(),
  path: str(),
  readOnly: bool(),
}, undefined, { required: ['endpoints', 'path'] }));

defineType('io.k8s.api.core.v1.RBDVolumeSource', obj({
  monitors: arr(str(), undefined, { listType: 'atomic' }),
  image: str(),
  fsType: str(),
  pool: withDefault(str(), 'rbd'),
  user: withDefault(str(), 'admin'),
  keyring: str(),
  secretRef: core('LocalObjectReference'),
  readOnly: bool(),
}, undefined, { required: ['monitors', 'image'] }));

defineType('io.k8s.api.core.v1.FlexVolumeSource', obj({
  driver: str(),
  fsType: str(),
  secretRef: core('LocalObjectReference'),
  readOnly: bool(),
  options: map(str()),
}, undefined, { required: ['driver'] }));

defineType('io.k8s.api.core.v1.CinderVolumeSource', obj({
  volumeID: str(),
  fsType: str(),
  readOnly: bool(),
  secretRef: core('LocalObjectReference'),
}, undefined, { required: ['volumeID'] }));

defineType('io.k8s.api.core.v1.CephFSVolumeSource', obj({
  monitors: arr(str(), undefined, { listType: 'atomic' }),
  path: str(),
  user: str(),
  secretFile: str(),
  secretRef: core('LocalObjectReference'),
  readOnly: bool(),
}, undefined, { required: ['monitors'] }));

defineType('io.k8s.api.core.v1.FlockerVolumeSource', obj({
  datasetName: str(),
  datasetUUID: str(),
}));

defineType('io.k8s.api.core.v1.FCVolumeSource', obj({
  targetWWNs: arr(str(), undefined, { listType: 'atomic' }),
  lun: int32(),
  fsType: str(),
  readOnly: bool(),
  wwids: arr(str(), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.AzureFileVolumeSource', obj({
  secretName: str(),
  shareName: str(),
  readOnly: bool(),
}, undefined, { required: ['secretName', 'shareName'] }));

defineType('io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource', obj({
  volumePath: str(),
  fsType: str(),
  storagePolicyName: str(),
  storagePolicyID: str(),
}, undefined, { required: ['volumePath'] }));

defineType('io.k8s.api.core.v1.QuobyteVolumeSource', obj({
  registry: str(),
  volume: str(),
  readOnly: bool(),
  user: str(),
  group: str(),
  tenant: str(),
}, undefined, { required: ['registry', 'volume'] }));

defineType('io.k8s.api.core.v1.AzureDiskVolumeSource', obj({
  diskName: str(),
  diskURI: str(),
  cachingMode: str(undefined, { enum: ['None', 'ReadOnly', 'ReadWrite'] }),
  fsType: withDefault(str(), 'ext4'),
  readOnly: withDefault(bool(), false),
  kind: str('The type of this object in CamelCase, e.g. Deployment.', { enum: ['Shared', 'Dedicated', 'Managed'] }),
}, undefined, { required: ['diskName', 'diskURI'] }));

defineType('io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource', obj({
  pdID: str(),
  fsType: str(),
}, undefined, { required: ['pdID'] }));

defineType('io.k8s.api.core.v1.PortworxVolumeSource', obj({
  volumeID: str(),
  fsType: str(),
  readOnly: bool(),
}, undefined, { required: ['volumeID'] }));

defineType('io.k8s.api.core.v1.ScaleIOVolumeSource', obj({
  gateway: str(),
  system: str(),
  secretRef: core('LocalObjectReference'),
  sslEnabled: bool(),
  protectionDomain: str(),
  storagePool: str(),
  storageMode: withDefault(str(), 'ThinProvisioned'),
  volumeName: str(),
  fsType: withDefault(str(), 'xfs'),
  readOnly: bool(),
}, undefined, { required: ['gateway', 'system', 'secretRef'] }));

defineType('io.k8s.api.core.v1.StorageOSVolumeSource', obj({
  volumeName: str(),
  volumeNamespace: str(),
  fsType: str(),
  readOnly: bool(),
  secretRef: core('LocalObjectReference'),
}));
