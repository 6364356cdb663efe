// apps/v1 Deployment and ReplicaSet (StatefulSet, DaemonSet and ControllerRevision in their own files).
import './statefulset.js';
import './daemonset.js';
import './controllerrevision.js';
import { str, int32, int64, bool, obj, arr, keyedList, defineType, pb } from '../../schema.js';
import { intOrStringRef, labelSelector, listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { apps } from './names.js';
import { core } from '../../core/v1/names.js';

defineType('io.k8s.api.apps.v1.Deployment', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, apps('DeploymentSpec', 'Desired state of the deployment.')),
  status: pb(3, apps('DeploymentStatus', 'Most recently observed state of the deployment.')),
}, 'Declarative updates for pods through ReplicaSets.', { gvk: [{ group: 'apps', version: 'v1', kind: 'Deployment' }] }));

defineType('io.k8s.api.apps.v1.DeploymentList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(apps('Deployment'), 'The objects in the list.'),
}, 'A list of deployments.', { required: ['items'], gvk: [{ group: 'apps', version: 'v1', kind: 'DeploymentList' }] }));

defineType('io.k8s.api.apps.v1.ReplicaSet', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: apps('ReplicaSetSpec', 'Desired state of the ReplicaSet.'),
  status: apps('ReplicaSetStatus', 'Most recently observed state.'),
}, 'Keeps a given number of identical pods running.', { gvk: [{ group: 'apps', version: 'v1', kind: 'ReplicaSet' }] }));

defineType('io.k8s.api.apps.v1.ReplicaSetList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(apps('ReplicaSet'), 'The objects in the list.'),
}, 'A list of ReplicaSets.', { required: ['items'], gvk: [{ group: 'apps', version: 'v1', kind: 'ReplicaSetList' }] }));

defineType('io.k8s.api.apps.v1.DeploymentSpec', obj({
  replicas: pb(1, int32('Desired number of pods; default 1.'), 'keepZero'),
  selector: pb(2, labelSelector('Label selector for the pods the deployment manages; must match the template labels. Immutable in apps/v1.')),
  template: pb(3, core('PodTemplateSpec', 'Template of the pods to create.')),
  strategy: pb(4, apps('DeploymentStrategy', 'How old pods are replaced by new ones.')),
  minReadySeconds: pb(5, int32('Seconds a new pod must be ready before it counts as available.')),
  revisionHistoryLimit: pb(6, int32('Number of old ReplicaSets kept for rollback; default 10.'), 'keepZero'),
  paused: pb(7, bool('While true, template changes do not start a rollout.')),
  progressDeadlineSeconds: pb(9, int32('Seconds without progress before the rollout is reported as failed; default 600.'), 'keepZero'),
}, 'Desired state of a deployment.', { required: ['selector', 'template'] }));

defineType('io.k8s.api.apps.v1.DeploymentStatus', obj({
  observedGeneration: pb(1, int64('The generation the controller last acted on.')),
  replicas: pb(2, int32('Pods targeted by the deployment.')),
  updatedReplicas: pb(3, int32('Pods with the current template.')),
  readyReplicas: pb(7, int32('Pods that are ready.')),
  availableReplicas: pb(4, int32('Pods ready for at least minReadySeconds.')),
  unavailableReplicas: pb(5, int32('Pods still needed for full availability.')),
  conditions: pb(6, keyedList(apps('DeploymentCondition'), 'type', 'Latest observations: Available, Progressing, ReplicaFailure.')),
  collisionCount: pb(8, int32('Used to avoid name collisions between ReplicaSets.'), 'keepZero'),
}, 'Observed state of a deployment.'));

defineType('io.k8s.api.apps.v1.ReplicaSetSpec', obj({
  replicas: int32('Desired number of pods; default 1.'),
  minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
  selector: labelSelector('Label selector for the pods counted; must match the template labels.'),
  template: core('PodTemplateSpec', 'Template of the pods to create.'),
}, undefined, { required: ['selector'] }));

defineType('io.k8s.api.apps.v1.ReplicaSetStatus', obj({
  replicas: int32('Current number of pods.'),
  fullyLabeledReplicas: int32('Pods that carry all the template labels.'),
  readyReplicas: int32('Pods that are ready.'),
  availableReplicas: int32('Pods ready for at least minReadySeconds.'),
  observedGeneration: int64('The generation the controller last acted on.'),
  conditions: keyedList(apps('ReplicaSetCondition'), 'type'),
}, undefined, { required: ['replicas'] }));

defineType('io.k8s.api.apps.v1.DeploymentStrategy', obj({
  type: pb(1, str('Recreate kills all old pods first; RollingUpdate (default) replaces them gradually.', { enum: ['Recreate', 'RollingUpdate'] })),
  rollingUpdate: pb(2, apps('RollingUpdateDeployment', 'Parameters of a RollingUpdate; only with that type.')),
}, 'How a deployment replaces its pods.'));

defineType('io.k8s.api.apps.v1.DeploymentCondition', obj({
  type: pb(1, str('Type of the condition.'), 'keepZero'),
  status: pb(2, str('True, False or Unknown.'), 'keepZero'),
  lastUpdateTime: pb(6, timeRef('When the condition was last updated.')),
  lastTransitionTime: pb(7, timeRef('When the status last changed.')),
  reason: pb(4, str('CamelCase reason for the condition\'s last transition.')),
  message: pb(5, str('Human-readable detail.')),
}, 'One aspect of a deployment\'s state.', { required: ['type', 'status'] }));

defineType('io.k8s.api.apps.v1.ReplicaSetCondition', obj({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable detail.'),
}, undefined, { required: ['type', 'status'] }));

defineType('io.k8s.api.apps.v1.RollingUpdateDeployment', obj({
  maxUnavailable: pb(1, intOrStringRef('How many pods (number or percentage of replicas) may be unavailable during the update; default 25%.'), 'keepZero'),
  maxSurge: pb(2, intOrStringRef('How many pods (number or percentage of replicas) may exist above the desired count; default 25%.'), 'keepZero'),
}, 'Bounds of a rolling update.'));
