// core/v1 Pod, its spec and the pod-level settings (security, DNS, host aliases), and Binding.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType, pb } from '../../schema.js';
import { listMeta, objectMeta, quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Pod', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, core('PodSpec', 'Desired behaviour of the pod.')),
  status: pb(3, core('PodStatus', 'Most recently observed state of the pod, written by the kubelet.')),
}, 'A group of containers that share network and storage and are scheduled onto one node together.', { gvk: [{ group: '', version: 'v1', kind: 'Pod' }] }));

defineType('io.k8s.api.core.v1.PodList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Pod'), 'The objects in the list.'),
}, 'A list of pods.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'PodList' }] }));

defineType('io.k8s.api.core.v1.Binding', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  target: core('ObjectReference', 'The node to bind to.'),
}, 'Binds a pod to a node; posted by the scheduler to pods/binding.', { required: ['target'], gvk: [{ group: '', version: 'v1', kind: 'Binding' }] }));

defineType('io.k8s.api.core.v1.PodSpec', obj({
  volumes: pb(1, arr(core('Volume'), 'Volumes the pod\'s containers may mount.', { patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', listType: 'map', listMapKeys: ['name'] })),
  initContainers: pb(20, keyedList(core('Container'), 'name', 'Containers run to completion, one after another, before the app containers start.')),
  containers: pb(2, keyedList(core('Container'), 'name', 'The application containers; at least one.')),
  ephemeralContainers: keyedList(core('EphemeralContainer'), 'name', 'Debugging containers added to a running pod through the ephemeralcontainers subresource.'),
  restartPolicy: pb(3, str('When containers are restarted: Always (default), OnFailure or Never.', { enum: ['Always', 'OnFailure', 'Never'] })),
  terminationGracePeriodSeconds: pb(4, int64('Seconds between the termination signal and the kill; default 30.'), 'keepZero'),
  activeDeadlineSeconds: pb(5, int64('Seconds the pod may be active before the system fails it.'), 'keepZero'),
  dnsPolicy: pb(6, str('How the pod\'s DNS is configured: ClusterFirst (default), ClusterFirstWithHostNet, Default or None.', { enum: ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] })),
  nodeSelector: pb(7, map(str(), 'Labels a node must have for the pod to be scheduled onto it.')),
  serviceAccountName: pb(8, str('The service account the pod runs as.')),
  serviceAccount: pb(9, str('Deprecated alias of serviceAccountName.')),
  automountServiceAccountToken: pb(21, bool('Whether a service account token is mounted automatically.'), 'keepZero'),
  nodeName: pb(10, str('The node the pod is bound to; set by the scheduler, or by the user to bypass it.')),
  hostNetwork: pb(11, bool('Use the node\'s network namespace instead of a pod network.')),
  hostPID: pb(12, bool('Use the node\'s PID namespace.')),
  hostIPC: pb(13, bool('Use the node\'s IPC namespace.')),
  shareProcessNamespace: pb(27, bool('Let the containers see each other\'s processes.'), 'keepZero'),
  securityContext: pb(14, core('PodSecurityContext', 'Security settings for the whole pod.')),
  imagePullSecrets: pb(15, keyedList(core('LocalObjectReference'), 'name', 'Secrets holding registry credentials for pulling the images.')),
  hostname: pb(16, str('The pod\'s hostname; defaults to the pod name.')),
  subdomain: pb(17, str('With hostname, gives the pod the DNS name <hostname>.<subdomain>.<namespace>.svc.')),
  affinity: pb(18, core('Affinity', 'Node and inter-pod scheduling constraints.')),
  schedulerName: pb(19, str('The scheduler responsible for this pod.')),
  tolerations: pb(22, arr(core('Toleration'), 'Taints the pod tolerates.', { listType: 'atomic' })),
  hostAliases: pb(23, keyedList(core('HostAlias'), 'ip', 'Extra entries for the pod\'s /etc/hosts.')),
  priorityClassName: pb(24, str('Name of the PriorityClass that sets the pod\'s priority.')),
  priority: pb(25, int32('The pod\'s priority, resolved from priorityClassName by admission.'), 'keepZero'),
  dnsConfig: pb(26, core('PodDNSConfig', 'DNS settings merged into those chosen by dnsPolicy.')),
  readinessGates: pb(28, arr(core('PodReadinessGate'), 'Extra conditions that must be True for the pod to be Ready.', { listType: 'atomic' })),
  runtimeClassName: pb(29, str('The RuntimeClass used to run the pod.'), 'keepZero'),
  enableServiceLinks: pb(30, bool('Whether service environment variables are injected; default true.'), 'keepZero'),
  preemptionPolicy: pb(31, str('Whether this pod may preempt lower-priority pods.', { enum: ['PreemptLowerPriority', 'Never'] }), 'keepZero'),
  overhead: pb(32, map(quantityRef(), 'Resources the pod sandbox itself uses, added to the containers\' requests.')),
  topologySpreadConstraints: pb(33, arr(core('TopologySpreadConstraint'), 'How the pods of a group spread across topology domains.', { patchMergeKey: 'topologyKey', patchStrategy: 'merge', listType: 'map', listMapKeys: ['topologyKey', 'whenUnsatisfiable'] })),
  setHostnameAsFQDN: pb(35, bool('Set the hostname to the fully qualified domain name.'), 'keepZero'),
  os: pb(36, core('PodOS', 'The operating system the pod\'s containers need.')),
  hostUsers: pb(37, bool('Whether the pod uses the host user namespace; false gives it its own.'), 'keepZero'),
  schedulingGates: pb(38, keyedList(core('PodSchedulingGate'), 'name', 'While any gate is present the pod is not scheduled.')),
  resourceClaims: arr(core('PodResourceClaim'), 'Dynamic resource claims the pod uses.', { patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', listType: 'map', listMapKeys: ['name'] }),
  resources: pb(40, core('ResourceRequirements', 'Resources for the pod as a whole.')),
}, 'Desired state of a pod: its containers, volumes and scheduling constraints.', { required: ['containers'] }));

defineType('io.k8s.api.core.v1.PodTemplateSpec', obj({
  metadata: pb(1, objectMeta()),
  spec: pb(2, core('PodSpec', 'Specification of the pods created from this template.')),
}, 'The pod a controller creates: metadata and spec.'));

defineType('io.k8s.api.core.v1.PodSecurityContext', obj({
  seLinuxOptions: pb(1, core('SELinuxOptions')),
  windowsOptions: pb(8, core('WindowsSecurityContextOptions')),
  runAsUser: pb(2, int64(), 'keepZero'),
  runAsGroup: pb(6, int64(), 'keepZero'),
  runAsNonRoot: pb(3, bool(), 'keepZero'),
  supplementalGroups: pb(4, arr(int64(), undefined, { listType: 'atomic' })),
  supplementalGroupsPolicy: pb(12, str(undefined, { enum: ['Merge', 'Strict'] }), 'keepZero'),
  fsGroup: pb(5, int64(), 'keepZero'),
  sysctls: pb(7, arr(core('Sysctl'), undefined, { listType: 'atomic' })),
  fsGroupChangePolicy: pb(9, str(undefined, { enum: ['OnRootMismatch', 'Always'] }), 'keepZero'),
  seccompProfile: pb(10, core('SeccompProfile')),
  appArmorProfile: pb(11, core('AppArmorProfile')),
  seLinuxChangePolicy: pb(13, str(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.Sysctl', obj({
  name: pb(1, str(), 'keepZero'),
  value: pb(2, str(), 'keepZero'),
}, undefined, { required: ['name', 'value'] }));

defineType('io.k8s.api.core.v1.SeccompProfile', obj({
  type: pb(1, str(undefined, { enum: ['Unconfined', 'RuntimeDefault', 'Localhost'] }), 'keepZero'),
  localhostProfile: pb(2, str(), 'keepZero'),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.core.v1.AppArmorProfile', obj({
  type: pb(1, str(undefined, { enum: ['Unconfined', 'RuntimeDefault', 'Localhost'] }), 'keepZero'),
  localhostProfile: pb(2, str(), 'keepZero'),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.core.v1.SELinuxOptions', obj({
  user: pb(1, str()),
  role: pb(2, str()),
  type: pb(3, str()),
  level: pb(4, str()),
}));

defineType('io.k8s.api.core.v1.WindowsSecurityContextOptions', obj({
  gmsaCredentialSpecName: pb(1, str(), 'keepZero'),
  gmsaCredentialSpec: pb(2, str(), 'keepZero'),
  runAsUserName: pb(3, str(), 'keepZero'),
  hostProcess: pb(4, bool(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.HostAlias', obj({
  ip: pb(1, str(), 'keepZero'),
  hostnames: pb(2, arr(str(), undefined, { listType: 'atomic' })),
}, undefined, { required: ['ip'] }));

defineType('io.k8s.api.core.v1.PodDNSConfig', obj({
  nameservers: pb(1, arr(str(), undefined, { listType: 'atomic' })),
  searches: pb(2, arr(str(), undefined, { listType: 'atomic' })),
  options: pb(3, arr(core('PodDNSConfigOption'), undefined, { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.PodDNSConfigOption', obj({
  name: pb(1, str()),
  value: pb(2, str(), 'keepZero'),
}));

defineType('io.k8s.api.core.v1.PodReadinessGate', obj({
  conditionType: pb(1, str(), 'keepZero'),
}, undefined, { required: ['conditionType'] }));

defineType('io.k8s.api.core.v1.PodOS', obj({
  name: pb(1, str(), 'keepZero'),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.PodSchedulingGate', obj({
  name: pb(1, str(), 'keepZero'),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.PodResourceClaim', obj({
  name: str(),
  resourceClaimName: str(),
  resourceClaimTemplateName: str(),
}, undefined, { required: ['name'] }));
