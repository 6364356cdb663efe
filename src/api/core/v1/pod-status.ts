// core/v1 PodStatus: conditions, container states and the addresses the kubelet reports.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType, pb } from '../../schema.js';
import { quantityRef, timeRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.PodStatus', obj({
  phase: pb(1, str('Summary of where the pod is in its lifecycle.', { enum: ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] })),
  conditions: keyedList(core('PodCondition'), 'type', 'Current service state of the pod (PodScheduled, Initialized, ContainersReady, Ready...).'),
  message: pb(3, str('Human-readable detail on why the pod is in this state.')),
  reason: pb(4, str('Short CamelCase reason for the pod\'s state, e.g. Evicted.')),
  nominatedNodeName: pb(11, str('Node the pod will likely run on once preemption completes.')),
  hostIP: pb(5, str('Primary IP address of the node the pod runs on.')),
  hostIPs: arr(core('HostIP'), 'IP addresses of the node, primary first.', { patchMergeKey: 'ip', patchStrategy: 'merge', listType: 'atomic' }),
  podIP: pb(6, str('Primary IP address of the pod.')),
  podIPs: keyedList(core('PodIP'), 'ip', 'IP addresses of the pod, at most one per family, primary first.'),
  startTime: pb(7, timeRef('When the kubelet acknowledged the pod.')),
  initContainerStatuses: arr(core('ContainerStatus'), 'Status of each init container.', { listType: 'atomic' }),
  containerStatuses: arr(core('ContainerStatus'), 'Status of each app container.', { listType: 'atomic' }),
  qosClass: pb(9, str('Quality of service class from the resource requests and limits: Guaranteed, Burstable or BestEffort.', { enum: ['Guaranteed', 'Burstable', 'BestEffort'] })),
  ephemeralContainerStatuses: arr(core('ContainerStatus'), 'Status of each ephemeral container.', { listType: 'atomic' }),
  resize: str(),
  resourceClaimStatuses: arr(core('PodResourceClaimStatus'), undefined, { patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', listType: 'map', listMapKeys: ['name'] }),
}, 'Observed state of a pod.'));

defineType('io.k8s.api.core.v1.PodCondition', obj({
  type: str('Which aspect: PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate.'),
  status: str('True, False or Unknown.'),
  lastProbeTime: timeRef(),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable detail.'),
}, 'One aspect of a pod\'s state.', { required: ['type', 'status'] }));

defineType('io.k8s.api.core.v1.HostIP', obj({
  ip: str(),
}, undefined, { required: ['ip'] }));

defineType('io.k8s.api.core.v1.PodIP', obj({
  ip: str(),
}, undefined, { required: ['ip'] }));

defineType('io.k8s.api.core.v1.ContainerStatus', obj({
  name: str('Name of the container, matching the spec.'),
  state: core('ContainerState', 'Current state.'),
  lastState: core('ContainerState', 'State of the previous run, if it terminated.'),
  ready: bool('Whether the container passes its readiness probe.'),
  restartCount: int32('How many times the container was restarted.'),
  image: str('The image the container runs.'),
  imageID: str('The image\'s ID as reported by the runtime.'),
  containerID: str('The runtime\'s ID, as <type>://<id>.'),
  started: bool('Whether the container passed its startup probe.'),
  allocatedResources: map(quantityRef()),
  resources: core('ResourceRequirements'),
  volumeMounts: keyedList(core('VolumeMountStatus'), 'mountPath'),
  user: core('ContainerUser'),
  allocatedResourcesStatus: keyedList(core('ResourceStatus'), 'name'),
}, 'Observed state of one container.', { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] }));

defineType('io.k8s.api.core.v1.ContainerState', obj({
  waiting: core('ContainerStateWaiting', 'The container has not started yet.'),
  running: core('ContainerStateRunning', 'The container is running.'),
  terminated: core('ContainerStateTerminated', 'The container ran and exited.'),
}, 'A container\'s state; exactly one member is set.'));

defineType('io.k8s.api.core.v1.ContainerStateWaiting', obj({
  reason: str(),
  message: str(),
}));

defineType('io.k8s.api.core.v1.ContainerStateRunning', obj({
  startedAt: timeRef(),
}));

defineType('io.k8s.api.core.v1.ContainerStateTerminated', obj({
  exitCode: int32('Exit status of the last run.'),
  signal: int32(),
  reason: str(),
  message: str(),
  startedAt: timeRef(),
  finishedAt: timeRef(),
  containerID: str(),
}, undefined, { required: ['exitCode'] }));

defineType('io.k8s.api.core.v1.VolumeMountStatus', obj({
  name: str(),
  mountPath: str(),
  readOnly: bool(),
  recursiveReadOnly: str(),
}, undefined, { required: ['name', 'mountPath'] }));

defineType('io.k8s.api.core.v1.ContainerUser', obj({
  linux: core('LinuxContainerUser'),
}));

defineType('io.k8s.api.core.v1.LinuxContainerUser', obj({
  uid: int64(),
  gid: int64(),
  supplementalGroups: arr(int64(), undefined, { listType: 'atomic' }),
}, undefined, { required: ['uid', 'gid'] }));

defineType('io.k8s.api.core.v1.ResourceStatus', obj({
  name: str(),
  resources: arr(core('ResourceHealth'), undefined, { listType: 'map', listMapKeys: ['resourceID'] }),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.ResourceHealth', obj({
  resourceID: str(),
  health: str(),
}, undefined, { required: ['resourceID'] }));

defineType('io.k8s.api.core.v1.PodResourceClaimStatus', obj({
  name: str(),
  resourceClaimName: str(),
}, undefined, { required: ['name'] }));
