// apps/v1 DaemonSet: one pod on each eligible node.
import { str, int32, int64, obj, arr, keyedList, defineType } from '../../schema.js';
import { intOrStringRef, labelSelector, listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { apps } from './names.js';
import { core } from '../../core/v1/names.js';

defineType('io.k8s.api.apps.v1.DaemonSet', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. DaemonSet.'),
  metadata: objectMeta(),
  spec: apps('DaemonSetSpec', 'Desired behaviour of the daemon set.'),
  status: apps('DaemonSetStatus', 'Most recently observed state of the daemon set.'),
}, 'A pod on every eligible node.', { gvk: [{ group: 'apps', version: 'v1', kind: 'DaemonSet' }] }));

defineType('io.k8s.api.apps.v1.DaemonSetList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. DaemonSetList.'),
  metadata: listMeta(),
  items: arr(apps('DaemonSet'), 'The objects in the list.'),
}, 'A list of DaemonSets.', { required: ['items'], gvk: [{ group: 'apps', version: 'v1', kind: 'DaemonSetList' }] }));

defineType('io.k8s.api.apps.v1.DaemonSetSpec', obj({
  selector: labelSelector('Label query over the pods; must match the template labels.'),
  template: core('PodTemplateSpec', 'The pod each eligible node runs.'),
  updateStrategy: apps('DaemonSetUpdateStrategy', 'How template changes reach the pods.'),
  minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
  revisionHistoryLimit: int32('ControllerRevisions kept; default 10.'),
}, 'Desired state of a DaemonSet.', { required: ['selector', 'template'] }));

defineType('io.k8s.api.apps.v1.DaemonSetUpdateStrategy', obj({
  type: str('RollingUpdate (default) or OnDelete.', { enum: ['OnDelete', 'RollingUpdate'] }),
  rollingUpdate: apps('RollingUpdateDaemonSet', 'Parameters of a RollingUpdate.'),
}, 'How the controller replaces pods after a template change.'));

defineType('io.k8s.api.apps.v1.RollingUpdateDaemonSet', obj({
  maxUnavailable: intOrStringRef('Nodes (number or percentage) whose pod may be unavailable during the update; default 1.'),
  maxSurge: intOrStringRef('Nodes (number or percentage) that may run an old and a new pod at once; default 0.'),
}, 'Bounds of a DaemonSet rolling update.'));

defineType('io.k8s.api.apps.v1.DaemonSetStatus', obj({
  currentNumberScheduled: int32('Nodes running at least one daemon pod that should.'),
  numberMisscheduled: int32('Nodes running a daemon pod that should not.'),
  desiredNumberScheduled: int32('Nodes that should run the daemon pod.'),
  numberReady: int32('Nodes whose daemon pod is ready.'),
  observedGeneration: int64('The generation the controller last acted on.'),
  updatedNumberScheduled: int32('Nodes running the updated daemon pod.'),
  numberAvailable: int32('Nodes whose daemon pod is available (ready for minReadySeconds).'),
  numberUnavailable: int32('Nodes that should run the pod but have none available.'),
  collisionCount: int32('Used to avoid name collisions between ControllerRevisions.'),
  conditions: keyedList(apps('DaemonSetCondition'), 'type', 'Latest observations of the set\'s state.'),
}, 'Observed state of a DaemonSet.', { required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'] }));

defineType('io.k8s.api.apps.v1.DaemonSetCondition', obj({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable detail.'),
}, undefined, { required: ['type', 'status'] }));
