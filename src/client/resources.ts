// The resources capstan's components use, by group/version/resource. Each carries the static
// type of its objects, so clients, informers and listers built from it are typed.
import type { KubeObject, ObjectBase } from '../api/object.js';
import type * as k from '../api/kinds.js';

export interface ResourceType<T extends ObjectBase = KubeObject> {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Never set: carries T for type inference only. */
  readonly object?: T;
}

const r = <T extends ObjectBase>(group: string, version: string, resource: string, kind: string, namespaced: boolean): ResourceType<T> =>
  ({ group, version, resource, kind, namespaced });

export const resources = {
  namespaces: r<k.Namespace>('', 'v1', 'namespaces', 'Namespace', false),
  nodes: r<k.Node>('', 'v1', 'nodes', 'Node', false),
  pods: r<k.Pod>('', 'v1', 'pods', 'Pod', true),
  services: r<k.Service>('', 'v1', 'services', 'Service', true),
  endpoints: r<k.Endpoints>('', 'v1', 'endpoints', 'Endpoints', true),
  configmaps: r<k.ConfigMap>('', 'v1', 'configmaps', 'ConfigMap', true),
  secrets: r<k.Secret>('', 'v1', 'secrets', 'Secret', true),
  serviceaccounts: r<k.ServiceAccount>('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  events: r<k.Event>('', 'v1', 'events', 'Event', true),
  deployments: r<k.Deployment>('apps', 'v1', 'deployments', 'Deployment', true),
  replicasets: r<k.ReplicaSet>('apps', 'v1', 'replicasets', 'ReplicaSet', true),
  statefulsets: r<k.StatefulSet>('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  daemonsets: r<k.DaemonSet>('apps', 'v1', 'daemonsets', 'DaemonSet', true),
  controllerrevisions: r<k.ControllerRevision>('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true),
  persistentvolumeclaims: r<k.PersistentVolumeClaim>('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  persistentvolumes: r<k.PersistentVolume>('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  storageclasses: r<k.StorageClass>('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
  endpointslices: r<k.EndpointSlice>('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  leases: r<k.Lease>('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  roles: r<k.Role>('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  clusterroles: r<k.ClusterRole>('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  rolebindings: r<k.RoleBinding>('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
  clusterrolebindings: r<k.ClusterRoleBinding>('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  networkpolicies: r<k.NetworkPolicy>('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true),
  adminnetworkpolicies: r<k.AdminNetworkPolicy>('policy.networking.k8s.io', 'v1alpha1', 'adminnetworkpolicies', 'AdminNetworkPolicy', false),
  baselineadminnetworkpolicies: r<k.BaselineAdminNetworkPolicy>('policy.networking.k8s.io', 'v1alpha1', 'baselineadminnetworkpolicies', 'BaselineAdminNetworkPolicy', false),
  certificatesigningrequests: r<k.CertificateSigningRequest>('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  jobs: r<k.Job>('batch', 'v1', 'jobs', 'Job', true),
  cronjobs: r<k.CronJob>('batch', 'v1', 'cronjobs', 'CronJob', true),
  resourcequotas: r<k.ResourceQuota>('', 'v1', 'resourcequotas', 'ResourceQuota', true),
  horizontalpodautoscalers: r<k.HorizontalPodAutoscaler>('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true),
  poddisruptionbudgets: r<k.PodDisruptionBudget>('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true),
} as const;

export function apiVersion(t: ResourceType<ObjectBase>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** `/api/v1/namespaces/ns/pods/name/status` and friends. */
export function resourcePath(t: ResourceType<ObjectBase>, namespace?: string, name?: string, subresource?: string): string {
  let p = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  if (t.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${t.resource}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}
