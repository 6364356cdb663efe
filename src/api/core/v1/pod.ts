// core/v1 Pod, its spec and the pod-level settings (security, DNS, host aliases), and Binding.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType } from '../../schema.js';
import { listMeta, objectMeta, quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Pod', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: core('PodSpec', 'Desired behaviour of the pod.'),
  status: core('PodStatus', 'Most recently observed state of the pod, written by the kubelet.'),
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
  volumes: arr(core('Volume'), 'Volumes the pod\'s containers may mount.', { patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', listType: 'map', listMapKeys: ['name'] }),
  initContainers: keyedList(core('Container'), 'name', 'Containers run to completion, one after another, before the app containers start.'),
  containers: keyedList(core('Container'), 'name', 'The application containers; at least one.'),
  ephemeralContainers: keyedList(core('EphemeralContainer'), 'name', 'Debugging containers added to a running pod through the ephemeralcontainers subresource.'),
  restartPolicy: str('When containers are restarted: Always (default), OnFailure or Never.', { enum: ['Always', 'OnFailure', 'Never'] }),
  terminationGracePeriodSeconds: int64('Seconds between the termination signal and the kill; default 30.'),
  activeDeadlineSeconds: int64('Seconds the pod may be active before the system fails it.'),
  dnsPolicy: str('How the pod\'s DNS is configured: ClusterFirst (default), ClusterFirstWithHostNet, Default or None.', { enum: ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] }),
  nodeSelector: map(str(), 'Labels a node must have for the pod to be scheduled onto it.'),
  serviceAccountName: str('The service account the pod runs as.'),
  serviceAccount: str('Deprecated alias of serviceAccountName.'),
  automountServiceAccountToken: bool('Whether a service account token is mounted automatically.'),
  nodeName: str('The node the pod is bound to; set by the scheduler, or by the user to bypass it.'),
  hostNetwork: bool('Use the node\'s network namespace instead of a pod network.'),
  hostPID: bool('Use the node\'s PID namespace.'),
  hostIPC: bool('Use the node\'s IPC namespace.'),
  shareProcessNamespace: bool('Let the containers see each other\'s processes.'),
  securityContext: core('PodSecurityContext', 'Security settings for the whole pod.'),
  imagePullSecrets: keyedList(core('LocalObjectReference'), 'name', 'Secrets holding registry credentials for pulling the images.'),
  hostname: str('The pod\'s hostname; defaults to the pod name.'),
  subdomain: str('With hostname, gives the pod the DNS name <hostname>.<subdomain>.<namespace>.svc.'),
  affinity: core('Affinity', 'Node and inter-pod scheduling constraints.'),
  schedulerName: str('The scheduler responsible for this pod.'),
  tolerations: arr(core('Toleration'), 'Taints the pod tolerates.', { listType: 'atomic' }),
  hostAliases: keyedList(core('HostAlias'), 'ip', 'Extra entries for the pod\'s /etc/hosts.'),
  priorityClassName: str('Name of the PriorityClass that sets the pod\'s priority.'),
  priority: int32('The pod\'s priority, resolved from priorityClassName by admission.'),
  dnsConfig: core('PodDNSConfig', 'DNS settings merged into those chosen by dnsPolicy.'),
  readinessGates: arr(core('PodReadinessGate'), 'Extra conditions that must be True for the pod to be Ready.', { listType: 'atomic' }),
  runtimeClassName: str('The RuntimeClass used to run the pod.'),
  enableServiceLinks: bool('Whether service environment variables are injected; default true.'),
  preemptionPolicy: str('Whether this pod may preempt lower-priority pods.', { enum: ['PreemptLowerPriority', 'Never'] }),
  overhead: map(quantityRef(), 'Resources the pod sandbox itself uses, added to the containers\' requests.'),
  topologySpreadConstraints: arr(core('TopologySpreadConstraint'), 'How the pods of a group spread across topology domains.', { patchMergeKey: 'topologyKey', patchStrategy: 'merge', listType: 'map', listMapKeys: ['topologyKey', 'whenUnsatisfiable'] }),
  setHostnameAsFQDN: bool('Set the hostname to the fully qualified domain name.'),
  os: core('PodOS', 'The operating system the pod\'s containers need.'),
  hostUsers: bool('Whether the pod uses the host user namespace; false gives it its own.'),
  schedulingGates: keyedList(core('PodSchedulingGate'), 'name', 'While any gate is present the pod is not scheduled.'),
  resourceClaims: arr(core('PodResourceClaim'), 'Dynamic resource claims the pod uses.', { patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', listType: 'map', listMapKeys: ['name'] }),
  resources: core('ResourceRequirements', 'Resources for the pod as a whole.'),
}, 'Desired state of a pod: its containers, volumes and scheduling constraints.', { required: ['containers'] }));

defineType('io.k8s.api.core.v1.PodTemplateSpec', obj({
  metadata: objectMeta(),
  spec: core('PodSpec', 'Specification of the pods created from this template.'),
}, 'The pod a controller creates: metadata and spec.'));

defineType('io.k8s.api.core.v1.PodSecurityContext', obj({
  seLinuxOptions: core('SELinuxOptions'),
  windowsOptions: core('WindowsSecurityContextOptions'),
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  supplementalGroups: arr(int64(), undefined, { listType: 'atomic' }),
  supplementalGroupsPolicy: str(undefined, { enum: ['Merge', 'Strict'] }),
  fsGroup: int64(),
  sysctls: arr(core('Sysctl'), undefined, { listType: 'atomic' }),
  fsGroupChangePolicy: str(undefined, { enum: ['OnRootMismatch', 'Always'] }),
  seccompProfile: core('SeccompProfile'),
  appArmorProfile: core('AppArmorProfile'),
  seLinuxChangePolicy: str(),
}));

defineType('io.k8s.api.core.v1.Sysctl', obj({
  name: str(),
  value: str(),
}, undefined, { required: ['name', 'value'] }));

defineType('io.k8s.api.core.v1.SeccompProfile', obj({
  type: str(undefined, { enum: ['Unconfined', 'RuntimeDefault', 'Localhost'] }),
  localhostProfile: str(),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.core.v1.AppArmorProfile', obj({
  type: str(undefined, { enum: ['Unconfined', 'RuntimeDefault', 'Localhost'] }),
  localhostProfile: str(),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.core.v1.SELinuxOptions', obj({
  user: str(),
  role: str(),
  type: str(),
  level: str(),
}));

defineType('io.k8s.api.core.v1.WindowsSecurityContextOptions', obj({
  gmsaCredentialSpecName: str(),
  gmsaCredentialSpec: str(),
  runAsUserName: str(),
  hostProcess: bool(),
}));

defineType('io.k8s.api.core.v1.HostAlias', obj({
  ip: str(),
  hostnames: arr(str(), undefined, { listType: 'atomic' }),
}, undefined, { required: ['ip'] }));

defineType('io.k8s.api.core.v1.PodDNSConfig', obj({
  nameservers: arr(str(), undefined, { listType: 'atomic' }),
  searches: arr(str(), undefined, { listType: 'atomic' }),
  options: arr(core('PodDNSConfigOption'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.PodDNSConfigOption', obj({
  name: str(),
  value: str(),
}));

defineType('io.k8s.api.core.v1.PodReadinessGate', obj({
  conditionType: str(),
}, undefined, { required: ['conditionType'] }));

defineType('io.k8s.api.core.v1.PodOS', obj({
  name: str(),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.PodSchedulingGate', obj({
  name: str(),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.core.v1.PodResourceClaim', obj({
  name: str(),
  resourceClaimName: str(),
  resourceClaimTemplateName: str(),
}, undefined, { required: ['name'] }));
