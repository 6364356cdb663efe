// apps/v1 StatefulSet: pods with stable ordinal identities and per-ordinal volume claims.
import { str, int32, int64, obj, arr, keyedList, defineType } from '../../schema.js';
import { intOrStringRef, labelSelector, listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { apps } from './names.js';
import { core } from '../../core/v1/names.js';

defineType('io.k8s.api.apps.v1.StatefulSet', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. StatefulSet.'),
  metadata: objectMeta(),
  spec: apps('StatefulSetSpec', 'Desired identities of the pods in this set.'),
  status: apps('StatefulSetStatus', 'Most recently observed state of the set.'),
}, 'Pods with consistent identities: a stable network name and stable storage per ordinal.', { gvk: [{ group: 'apps', version: 'v1', kind: 'StatefulSet' }] }));

defineType('io.k8s.api.apps.v1.StatefulSetList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. StatefulSetList.'),
  metadata: listMeta(),
  items: arr(apps('StatefulSet'), 'The objects in the list.'),
}, 'A list of StatefulSets.', { required: ['items'], gvk: [{ group: 'apps', version: 'v1', kind: 'StatefulSetList' }] }));

defineType('io.k8s.api.apps.v1.StatefulSetSpec', obj({
  replicas: int32('Desired number of pods; default 1.'),
  selector: labelSelector('Label query over the pods; must match the template labels.'),
  template: core('PodTemplateSpec', 'Pods are created from this template, each with a unique identity.'),
  volumeClaimTemplates: arr(core('PersistentVolumeClaim'), 'Claims each pod gets one of, named <template>-<pod>.', { listType: 'atomic' }),
  serviceName: str('The headless Service that governs the set: pods get DNS names <pod>.<serviceName>.'),
  podManagementPolicy: str('OrderedReady (default) creates and deletes pods one at a time in order; Parallel does not wait.', { enum: ['OrderedReady', 'Parallel'] }),
  updateStrategy: apps('StatefulSetUpdateStrategy', 'How template changes reach the pods.'),
  revisionHistoryLimit: int32('ControllerRevisions kept; default 10.'),
  minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
  persistentVolumeClaimRetentionPolicy: apps('StatefulSetPersistentVolumeClaimRetentionPolicy', 'What happens to claims when the set is deleted or scaled down.'),
  ordinals: apps('StatefulSetOrdinals', 'Numbering of the pods.'),
}, 'Desired state of a StatefulSet.', { required: ['selector', 'template'] }));

defineType('io.k8s.api.apps.v1.StatefulSetUpdateStrategy', obj({
  type: str('RollingUpdate (default) or OnDelete.', { enum: ['OnDelete', 'RollingUpdate'] }),
  rollingUpdate: apps('RollingUpdateStatefulSetStrategy', 'Parameters of a RollingUpdate.'),
}, 'How the controller replaces pods after a template change.'));

defineType('io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy', obj({
  partition: int32('Ordinals at or above this are updated; below it they keep the old revision.'),
  maxUnavailable: intOrStringRef('Pods (number or percentage) that may be unavailable during the update; default 1.'),
}, 'Bounds of a StatefulSet rolling update.'));

defineType('io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy', obj({
  whenDeleted: str('Retain (default) or Delete the claims when the set is deleted.'),
  whenScaled: str('Retain (default) or Delete the claims of pods removed by a scale-down.'),
}, 'Lifecycle of the claims created from volumeClaimTemplates.'));

defineType('io.k8s.api.apps.v1.StatefulSetOrdinals', obj({
  start: int32('The number of the first pod; default 0.'),
}, 'Numbering of a StatefulSet\'s pods.'));

defineType('io.k8s.api.apps.v1.StatefulSetStatus', obj({
  observedGeneration: int64('The generation the controller last acted on.'),
  replicas: int32('Pods created by the controller.'),
  readyReplicas: int32('Pods with a Ready condition.'),
  currentReplicas: int32('Pods at currentRevision.'),
  updatedReplicas: int32('Pods at updateRevision.'),
  currentRevision: str('The revision pods ordinals below the partition run.'),
  updateRevision: str('The revision of the current template.'),
  collisionCount: int32('Used to avoid name collisions between ControllerRevisions.'),
  conditions: keyedList(apps('StatefulSetCondition'), 'type', 'Latest observations of the set\'s state.'),
  availableReplicas: int32('Pods ready for at least minReadySeconds.'),
}, 'Observed state of a StatefulSet.', { required: ['replicas'] }));

defineType('io.k8s.api.apps.v1.StatefulSetCondition', obj({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable detail.'),
}, undefined, { required: ['type', 'status'] }));
