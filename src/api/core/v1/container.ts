// core/v1 Container and the per-container settings: ports, mounts, resources, security.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType, withDefault, pb } from '../../schema.js';
import { quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Container', obj({
  name: pb(1, str('Name of the container, unique in the pod (a DNS label).'), 'keepZero'),
  image: pb(2, str('Container image reference.')),
  command: pb(3, arr(str(), 'Entrypoint array, replacing the image\'s ENTRYPOINT; $(VAR) references are expanded.', { listType: 'atomic' })),
  args: pb(4, arr(str(), 'Arguments to the entrypoint, replacing the image\'s CMD.', { listType: 'atomic' })),
  workingDir: pb(5, str('Working directory; defaults to the image\'s.')),
  ports: pb(6, arr(core('ContainerPort'), 'Ports the container exposes; informational, except for naming them.', { patchMergeKey: 'containerPort', patchStrategy: 'merge', listType: 'map', listMapKeys: ['containerPort', 'protocol'] })),
  envFrom: pb(19, arr(core('EnvFromSource'), 'Sources whose keys all become environment variables.', { listType: 'atomic' })),
  env: pb(7, keyedList(core('EnvVar'), 'name', 'Environment variables to set.')),
  resources: pb(8, core('ResourceRequirements', 'Compute resources the container requests and is limited to.')),
  resizePolicy: pb(23, arr(core('ContainerResizePolicy'), 'How the container reacts to in-place resource changes.', { listType: 'atomic' })),
  restartPolicy: pb(24, str('For init containers only: Always makes it a sidecar that keeps running.'), 'keepZero'),
  volumeMounts: pb(9, keyedList(core('VolumeMount'), 'mountPath', 'Pod volumes to mount into the container\'s filesystem.')),
  volumeDevices: pb(21, keyedList(core('VolumeDevice'), 'devicePath', 'Block devices the container uses.')),
  livenessProbe: pb(10, core('Probe', 'Periodic check; the container is restarted when it fails.')),
  readinessProbe: pb(11, core('Probe', 'Periodic check; the pod receives service traffic only while it succeeds.')),
  startupProbe: pb(22, core('Probe', 'Check that must succeed before the other probes start.')),
  lifecycle: pb(12, core('Lifecycle', 'Actions run after start and before stop.')),
  terminationMessagePath: pb(13, str('File whose content becomes the termination message; default /dev/termination-log.')),
  terminationMessagePolicy: pb(20, str('Where the termination message comes from.', { enum: ['File', 'FallbackToLogsOnError'] })),
  imagePullPolicy: pb(14, str('When to pull the image: Always, Never or IfNotPresent.', { enum: ['Always', 'Never', 'IfNotPresent'] })),
  securityContext: pb(15, core('SecurityContext', 'Security settings for this container.')),
  stdin: pb(16, bool('Allocate a stdin buffer for the container.')),
  stdinOnce: pb(17, bool('Close stdin after the first attach session ends.')),
  tty: pb(18, bool('Allocate a TTY.')),
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
  name: pb(1, str('A name services may refer to the port by (an IANA_SVC_NAME).')),
  hostPort: pb(2, int32('Port number on the host to expose it on; rarely needed.')),
  containerPort: pb(3, int32('Port number inside the container.'), 'keepZero'),
  protocol: pb(4, withDefault(str('TCP (default), UDP or SCTP.', { enum: ['TCP', 'UDP', 'SCTP'] }), 'TCP')),
  hostIP: pb(5, str('Host IP to bind the host port to.')),
}, 'A port a container exposes.', { required: ['containerPort'] }));

defineType('io.k8s.api.core.v1.ContainerResizePolicy', obj({
  resourceName: pb(1, str(), 'keepZero'),
  restartPolicy: pb(2, str(), 'keepZero'),
}, undefined, { required: ['resourceName', 'restartPolicy'] }));

defineType('io.k8s.api.core.v1.VolumeMount', obj({
  name: pb(1, str('Name of the pod volume.'), 'keepZero'),
  readOnly: pb(2, bool('Mount read-only.')),
  recursiveReadOnly: pb(7, str(), 'keepZero'),
  mountPath: pb(3, str('Path in the container to mount at.'), 'keepZero'),
  subPath: pb(4, str('Path inside the volume to mount instead of its root.')),
  mountPropagation: pb(5, str('How mounts propagate between host and container.', { enum: ['None', 'HostToContainer', 'Bidirectional'] }), 'keepZero'),
  subPathExpr: pb(6, str('Like subPath, with $(VAR) references expanded from the environment.')),
}, 'Where a volume appears in a container.', { required: ['name', 'mountPath'] }));

defineType('io.k8s.api.core.v1.VolumeDevice', obj({
  name: pb(1, str(), 'keepZero'),
  devicePath: pb(2, str(), 'keepZero'),
}, undefined, { required: ['name', 'devicePath'] }));

defineType('io.k8s.api.core.v1.ResourceRequirements', obj({
  limits: pb(1, map(quantityRef(), 'Maximum amount of each resource the container may use.')),
  requests: pb(2, map(quantityRef(), 'Amount of each resource reserved for the container; defaults to the limit.')),
  claims: pb(3, arr(core('ResourceClaim'), 'Names of pod resource claims this container uses.', { listType: 'map', listMapKeys: ['name'] })),
}, 'Compute resources: what is reserved and what is capped.'));

defineType('io.k8s.api.core.v1.ResourceClaim', obj({
  name: pb(1, str(), 'keepZero'),
  request: pb(2, str()),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.SecurityContext', obj({
  capabilities: pb(1, core('Capabilities')),
  privileged: pb(2, bool(), 'keepZero'),
  seLinuxOptions: pb(3, core('SELinuxOptions')),
  windowsOptions: pb(10, core('WindowsSecurityContextOptions')),
  runAsUser: pb(4, int64(), 'keepZero'),
  runAsGroup: pb(8, int64(), 'keepZero'),
  runAsNonRoot: pb(5, bool(), 'keepZero'),
  readOnlyRootFilesystem: pb(6, bool(), 'keepZero'),
  allowPrivilegeEscalation: pb(7, bool(), 'keepZero'),
  procMount: pb(9, str(undefined, { enum: ['Default', 'Unmasked'] }), 'keepZero'),
  seccompProfile: pb(11, core('SeccompProfile')),
  appArmorProfile: pb(12, core('AppArmorProfile')),
}));

defineType('io.k8s.api.core.v1.Capabilities', obj({
  add: pb(1, arr(str(), undefined, { listType: 'atomic' })),
  drop: pb(2, arr(str(), undefined, { listType: 'atomic' })),
}));
