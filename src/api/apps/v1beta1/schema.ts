// apps/v1beta1 Deployment as that version served it: apps/v1 plus spec.rollbackTo, and its Scale.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType } from '../../schema.js';
import { intOrStringRef, labelSelector, listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { appsV1beta1 } from './names.js';
import { core } from '../../core/v1/names.js';

defineType('io.k8s.api.apps.v1beta1.Deployment', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: appsV1beta1('DeploymentSpec', 'Desired state of the deployment.'),
  status: appsV1beta1('DeploymentStatus', 'Most recently observed state of the deployment.'),
}, 'Declarative updates for pods through ReplicaSets (apps/v1beta1; deprecated, use apps/v1).', { gvk: [{ group: 'apps', version: 'v1beta1', kind: 'Deployment' }] }));

defineType('io.k8s.api.apps.v1beta1.DeploymentList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(appsV1beta1('Deployment'), 'The objects in the list.'),
}, 'A list of deployments.', { required: ['items'], gvk: [{ group: 'apps', version: 'v1beta1', kind: 'DeploymentList' }] }));

defineType('io.k8s.api.apps.v1beta1.Scale', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: appsV1beta1('ScaleSpec', 'Desired scale.'),
  status: appsV1beta1('ScaleStatus', 'Current scale.'),
}, 'The scale subresource of a scalable resource (apps/v1beta1).', { gvk: [{ group: 'apps', version: 'v1beta1', kind: 'Scale' }] }));

defineType('io.k8s.api.apps.v1beta1.DeploymentSpec', obj({
  replicas: int32('Desired number of pods; default 1.'),
  selector: labelSelector('Label selector for the pods the deployment manages; must match the template labels. Immutable in apps/v1.'),
  template: core('PodTemplateSpec', 'Template of the pods to create.'),
  strategy: appsV1beta1('DeploymentStrategy', 'How old pods are replaced by new ones.'),
  minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
  revisionHistoryLimit: int32('Number of old ReplicaSets kept for rollback; default 10.'),
  paused: bool('While true, template changes do not start a rollout.'),
  rollbackTo: appsV1beta1('RollbackConfig', 'Deprecated: the revision to roll back to; cleared once done.'),
  progressDeadlineSeconds: int32('Seconds without progress before the rollout is reported as failed; default 600.'),
}, 'Desired state of a deployment.', { required: ['template'] }));

defineType('io.k8s.api.apps.v1beta1.DeploymentStatus', obj({
  observedGeneration: int64('The generation the controller last acted on.'),
  replicas: int32('Pods targeted by the deployment.'),
  updatedReplicas: int32('Pods with the current template.'),
  readyReplicas: int32('Pods that are ready.'),
  availableReplicas: int32('Pods ready for at least minReadySeconds.'),
  unavailableReplicas: int32('Pods still needed for full availability.'),
  conditions: keyedList(appsV1beta1('DeploymentCondition'), 'type', 'Latest observations: Available, Progressing, ReplicaFailure.'),
  collisionCount: int32('Used to avoid name collisions between ReplicaSets.'),
}, 'Observed state of a deployment.'));

defineType('io.k8s.api.apps.v1beta1.ScaleSpec', obj({
  replicas: int32('Desired number of instances.'),
}));

defineType('io.k8s.api.apps.v1beta1.ScaleStatus', obj({
  replicas: int32('Observed number of instances.'),
  selector: map(str(), 'Label selector of the pods counted, in query-string form.'),
  targetSelector: str('Label selector of the pods counted, in query-string form.'),
}, undefined, { required: ['replicas'] }));

defineType('io.k8s.api.apps.v1beta1.DeploymentStrategy', obj({
  type: str('Recreate kills all old pods first; RollingUpdate (default) replaces them gradually.'),
  rollingUpdate: appsV1beta1('RollingUpdateDeployment', 'Parameters of a RollingUpdate; only with that type.'),
}, 'How a deployment replaces its pods.'));

defineType('io.k8s.api.apps.v1beta1.RollbackConfig', obj({
  revision: int64('The revision; 0 means the previous one.'),
}, 'Which revision to roll back to.'));

defineType('io.k8s.api.apps.v1beta1.DeploymentCondition', obj({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastUpdateTime: timeRef('When the condition was last updated.'),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable detail.'),
}, 'One aspect of a deployment\'s state.', { required: ['type', 'status'] }));

defineType('io.k8s.api.apps.v1beta1.RollingUpdateDeployment', obj({
  maxUnavailable: intOrStringRef('How many pods (number or percentage of replicas) may be unavailable during the update; default 25%.'),
  maxSurge: intOrStringRef('How many pods (number or percentage of replicas) may exist above the desired count; default 25%.'),
}, 'Bounds of a rolling update.'));
