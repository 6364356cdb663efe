// core/v1 Container and the per-container settings: ports, mounts, resources, security.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType, withDefault } from '../../schema.js';
import { quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Container', obj({
  name: str('Name of the container, unique in the pod (a DNS label).'),
  image: str('Container image reference.'),
  command: arr(str(), 'Entrypoint array, replacing the image\'s ENTRYPOINT; $(VAR) references are expanded.', { listType: 'atomic' }),
  args: arr(str(), 'Arguments to the entrypoint, replacing the image\'s CMD.', { listType: 'atomic' }),
  workingDir: str('Working directory; defaults to the image\'s.'),
  ports: arr(core('ContainerPort'), 'Ports the container exposes; informational, except for naming them.', { patchMergeKey: 'containerPort', patchStrategy: 'merge', listType: 'map', listMapKeys: ['containerPort', 'protocol'] }),
  envFrom: arr(core('EnvFromSource'), 'Sources whose keys all become environment variables.', { listType: 'atomic' }),
  env: keyedList(core('EnvVar'), 'name', 'Environment variables to set.'),
  resources: core('ResourceRequirements', 'Compute resources the container requests and is limited to.'),
  resizePolicy: arr(core('ContainerResizePolicy'), 'How the container reacts to in-place resource changes.', { listType: 'atomic' }),
  restartPolicy: str('For init containers only: Always makes it a sidecar that keeps running.'),
  volumeMounts: keyedList(core('VolumeMount'), 'mountPath', 'Pod volumes to mount into the container\'s filesystem.'),
  volumeDevices: keyedList(core('VolumeDevice'), 'devicePath', 'Block devices the container uses.'),
  livenessProbe: core('Probe', 'Periodic check; the container is restarted when it fails.'),
  readinessProbe: core('Probe', 'Periodic check; the pod receives service traffic only while it succeeds.'),
  startupProbe: core('Probe', 'Check that must succeed before the other probes start.'),
  lifecycle: core('Lifecycle', 'Actions run after start and before stop.'),
  terminationMessagePath: str('File whose content becomes the termination message; default /dev/termination-log.'),
  terminationMessagePolicy: str('Where the termination message comes from.', { enum: ['File', 'FallbackToLogsOnError'] }),
  imagePullPolicy: str('When to pull the image: Always, Never or IfNotPresent.', { enum: ['Always', 'Never', 'IfNotPresent'] }),
  securityContext: core('SecurityContext', 'Security settings for this container.'),
  stdin: bool('Allocate a stdin buffer for the container.'),
  stdinOnce: bool('Close stdin after the first attach session ends.'),
  tty: bool('Allocate a TTY.'),
}, 'One container in a pod.', { required: ['name'] }));

defineType('io.k8s.api.core.v1.EphemeralContainer', obj({
  name: str(),
  image: str(),
  command: arr(str(), undefined, { listType: 'atomic' }),
  args: arr(str(), undefined, { listType: 'atomic' }),
  workingDir: str(),
  ports: arr(core('ContainerPort'), undefined, { patchMergeKey: 'containerPort', patchStrategy: 'merge', listType: 'map', listMapKeys: ['containerPort', 'protocol'] }),
  envFrom: arr(core('EnvFromSource'), undefined, { listType: 'atomic' }),
  env: keyedList(core('EnvVar'), 'name'),
  resources: core('ResourceRequirements'),
  resizePolicy: arr(core('ContainerResizePolicy'), undefined, { listType: 'atomic' }),
  restartPolicy: str(),
  volumeMounts: keyedList(core('VolumeMount'), 'mountPath'),
  volumeDevices: keyedList(core('VolumeDevice'), 'devicePath'),
  livenessProbe: core('Probe'),
  readinessProbe: core('Probe'),
  startupProbe: core('Probe'),
  lifecycle: core('Lifecycle'),
  terminationMessagePath: str(),
  terminationMessagePolicy: str(undefined, { enum: ['File', 'FallbackToLogsOnError'] }),
  imagePullPolicy: str(undefined, { enum: ['Always', 'Never', 'IfNotPresent'] }),
  securityContext: core('SecurityContext'),
  stdin: bool(),
  stdinOnce: bool(),
  tty: bool(),
  targetContainerName: str('Container whose namespaces the ephemeral container joins.'),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.ContainerPort', obj({
  name: str('A name services may refer to the port by (an IANA_SVC_NAME).'),
  hostPort: int32('Port number on the host to expose it on; rarely needed.'),
  containerPort: int32('Port number inside the container.'),
  protocol: withDefault(str('TCP (default), UDP or SCTP.', { enum: ['TCP', 'UDP', 'SCTP'] }), 'TCP'),
  hostIP: str('Host IP to bind the host port to.'),
}, 'A port a container exposes.', { required: ['containerPort'] }));

defineType('io.k8s.api.core.v1.ContainerResizePolicy', obj({
  resourceName: str(),
  restartPolicy: str(),
}, undefined, { required: ['resourceName', 'restartPolicy'] }));

defineType('io.k8s.api.core.v1.VolumeMount', obj({
  name: str('Name of the pod volume.'),
  readOnly: bool('Mount read-only.'),
  recursiveReadOnly: str(),
  mountPath: str('Path in the container to mount at.'),
  subPath: str('Path inside the volume to mount instead of its root.'),
  mountPropagation: str('How mounts propagate between host and container.', { enum: ['None', 'HostToContainer', 'Bidirectional'] }),
  subPathExpr: str('Like subPath, with $(VAR) references expanded from the environment.'),
}, 'Where a volume appears in a container.', { required: ['name', 'mountPath'] }));

defineType('io.k8s.api.core.v1.VolumeDevice', obj({
  name: str(),
  devicePath: str(),
}, undefined, { required: ['name', 'devicePath'] }));

defineType('io.k8s.api.core.v1.ResourceRequirements', obj({
  limits: map(quantityRef(), 'Maximum amount of each resource the container may use.'),
  requests: map(quantityRef(), 'Amount of each resource reserved for the container; defaults to the limit.'),
  claims: arr(core('ResourceClaim'), 'Names of pod resource claims this container uses.', { listType: 'map', listMapKeys: ['name'] }),
}, 'Compute resources: what is reserved and what is capped.'));

defineType('io.k8s.api.core.v1.ResourceClaim', obj({
  name: str(),
  request: str(),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.SecurityContext', obj({
  capabilities: core('Capabilities'),
  privileged: bool(),
  seLinuxOptions: core('SELinuxOptions'),
  windowsOptions: core('WindowsSecurityContextOptions'),
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  readOnlyRootFilesystem: bool(),
  allowPrivilegeEscalation: bool(),
  procMount: str(undefined, { enum: ['Default', 'Unmasked'] }),
  seccompProfile: core('SeccompProfile'),
  appArmorProfile: core('AppArmorProfile'),
}));

defineType('io.k8s.api.core.v1.Capabilities', obj({
  add: arr(str(), undefined, { listType: 'atomic' }),
  drop: arr(str(), undefined, { listType: 'atomic' }),
}));
