// The system:controller:* roles of the controllers capstan's controller-manager runs, after
// upstream's bootstrappolicy/controller_policy.go. Upstream binds each to its controller's
// ServiceAccount in kube-system; capstan runs every controller with the controller-manager's
// own credential (upstream's --use-service-account-credentials=false), so that user is a
// subject of each binding too.
import { eventsRule, Read, rule } from './rule.js';
import type { BootstrapClusterRole } from './roles.js';

const core = [''];
const PREFIX = 'system:controller:';

export const controllerRoles: BootstrapClusterRole[] = [
  {
    name: 'clusterrole-aggregation-controller', rules: [
      rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], ['rbac.authorization.k8s.io'], ['clusterroles']),
    ],
  },
  {
    name: 'deployment-controller', rules: [
      rule(['get', 'list', 'watch', 'update'], ['apps'], ['deployments']),
      rule(['update'], ['apps'], ['deployments/status', 'deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['apps'], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], core, ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'replicaset-controller', rules: [
      rule(['get', 'list', 'watch', 'update'], ['apps'], ['replicasets']),
      rule(['update'], ['apps'], ['replicasets/status', 'replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], core, ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'statefulset-controller', rules: [
      rule(['list', 'watch'], core, ['pods']),
      rule(['get', 'list', 'watch'], ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status']),
      rule(['update'], ['apps'], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], core, ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
      rule(['get', 'create'], core, ['persistentvolumeclaims']),
      rule(['update', 'delete'], core, ['persistentvolumeclaims']),
      eventsRule(),
    ],
  },
  {
    name: 'daemon-set-controller', rules: [
      rule(['get', 'list', 'watch'], ['extensions', 'apps'], ['daemonsets']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/status']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], core, ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], core, ['pods']),
      rule(['create'], core, ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
      eventsRule(),
    ],
  },
  {
    // Quota counts anything, so it may list and watch everything.
    name: 'resourcequota-controller', rules: [
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['update'], core, ['resourcequotas/status']),
      eventsRule(),
    ],
  },
  { name: 'generic-garbage-collector', rules: [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*'])] },
  {
    name: 'endpoint-controller', rules: [
      rule(Read, core, ['services', 'pods']),
      rule(['get', 'list', 'create', 'update', 'delete'], core, ['endpoints']),
      rule(['create'], core, ['endpoints/restricted']),
      eventsRule(),
    ],
  },
  {
    name: 'endpointslice-controller', rules: [
      rule(Read, core, ['services', 'pods', 'nodes']),
      rule(['update'], core, ['services/finalizers']),
      rule(['create', 'update', 'delete', 'get', 'list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
      eventsRule(),
    ],
  },
  {
    name: 'namespace-controller', rules: [
      rule(['get', 'list', 'watch', 'delete'], core, ['namespaces']),
      rule(['update'], core, ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  },
  {
    name: 'node-controller', rules: [
      rule(['get', 'list', 'update', 'delete', 'patch'], core, ['nodes']),
      rule(['patch', 'update'], core, ['nodes/status']),
      rule(['patch', 'update'], core, ['pods/status']),
      rule(['list', 'delete'], core, ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'service-account-controller', rules: [
      rule(['create'], core, ['serviceaccounts']),
      eventsRule(),
    ],
  },
  {
    name: 'pod-garbage-collector', rules: [
      rule(['list', 'watch', 'delete'], core, ['pods']),
      rule(['get', 'list'], core, ['nodes']),
      rule(['patch'], core, ['pods/status']),
    ],
  },
  {
    name: 'root-ca-cert-publisher', rules: [
      rule(['create', 'update'], core, ['configmaps']),
      eventsRule(),
    ],
  },
  {
    name: 'certificate-controller', rules: [
      rule(['delete', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      // capstan's approver also grants kubelet serving and node component client requests.
      rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
      rule(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      eventsRule(),
    ],
  },
  // Upstream's tokens controller runs with the controller-manager's root credential and has
  // no role; capstan names what it does (legacy ServiceAccount token Secrets).
  {
    name: 'serviceaccount-token-controller', rules: [
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], core, ['secrets']),
      rule(['get', 'list', 'watch', 'update'], core, ['serviceaccounts']),
    ],
  },
  {
    name: 'job-controller', rules: [
      rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['jobs/status']),
      rule(['update'], ['batch'], ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], core, ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'cronjob-controller', rules: [
      rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['cronjobs/status']),
      rule(['update'], ['batch'], ['cronjobs/finalizers']),
      rule(['list', 'delete'], core, ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'horizontal-pod-autoscaler', rules: [
      rule(['get', 'list', 'watch'], ['autoscaling'], ['horizontalpodautoscalers']),
      rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list'], core, ['pods']),
      rule(['get'], core, ['services/proxy'], ['https:heapster:', 'http:heapster:']),
      rule(['list'], ['metrics.k8s.io'], ['pods']),
      rule(['get', 'list'], ['custom.metrics.k8s.io'], ['*']),
      rule(['get', 'list'], ['external.metrics.k8s.io'], ['*']),
      eventsRule(),
    ],
  },
  {
    name: 'persistent-volume-binder', rules: [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], core, ['persistentvolumes']),
      rule(['update'], core, ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], core, ['persistentvolumeclaims']),
      rule(['update'], core, ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], core, ['pods']),
      rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'list'], core, ['nodes']),
      rule(['watch'], core, ['events']),
      eventsRule(),
    ],
  },
  // capstan's built-in local provisioner (upstream has none; rancher's local-path-provisioner
  // asks for the same): volumes for claims, helper pods that empty a volume's directory.
  {
    name: 'local-path-provisioner', rules: [
      rule(['get', 'list', 'watch', 'create', 'delete'], core, ['persistentvolumes']),
      rule(['get', 'list', 'watch'], core, ['persistentvolumeclaims', 'nodes']),
      rule(['get', 'list', 'watch', 'create', 'delete'], core, ['pods']),
      rule(['get', 'list', 'watch', 'create'], ['storage.k8s.io'], ['storageclasses']),
      eventsRule(),
    ],
  },
  {
    name: 'disruption-controller', rules: [
      rule(['get', 'list', 'watch'], ['extensions', 'apps'], ['deployments']),
      rule(['get', 'list', 'watch'], ['apps', 'extensions'], ['replicasets']),
      rule(['get', 'list', 'watch'], core, ['replicationcontrollers']),
      rule(['get', 'list', 'watch'], ['policy'], ['poddisruptionbudgets']),
      rule(['get', 'list', 'watch'], ['apps'], ['statefulsets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      rule(['get'], ['*'], ['*/scale']),
      rule(['patch', 'update'], core, ['pods/status']),
      eventsRule(),
    ],
  },
  {
    name: 'ttl-after-finished-controller', rules: [
      rule(['delete', 'get', 'list', 'watch'], ['batch'], ['jobs']),
      eventsRule(),
    ],
  },
].map((r) => ({ ...r, name: `${PREFIX}${r.name}` }));

/** kube-system ServiceAccount names, as upstream binds each controller role. */
export const controllerServiceAccount = (roleName: string): string => roleName.slice(PREFIX.length);
