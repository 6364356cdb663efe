// The resources capstan's components use, by group/version/resource.
export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

const r = (group: string, version: string, resource: string, kind: string, namespaced: boolean): ResourceType =>
  ({ group, version, resource, kind, namespaced });

export const resources = {
  namespaces: r('', 'v1', 'namespaces', 'Namespace', false),
  nodes: r('', 'v1', 'nodes', 'Node', false),
  pods: r('', 'v1', 'pods', 'Pod', true),
  services: r('', 'v1', 'services', 'Service', true),
  endpoints: r('', 'v1', 'endpoints', 'Endpoints', true),
  configmaps: r('', 'v1', 'configmaps', 'ConfigMap', true),
  secrets: r('', 'v1', 'secrets', 'Secret', true),
  serviceaccounts: r('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  events: r('', 'v1', 'events', 'Event', true),
  deployments: r('apps', 'v1', 'deployments', 'Deployment', true),
  replicasets: r('apps', 'v1', 'replicasets', 'ReplicaSet', true),
  endpointslices: r('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  leases: r('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
} as const;

export function apiVersion(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** `/api/v1/namespaces/ns/pods/name/status` and friends. */
export function resourcePath(t: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  let p = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  if (t.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${t.resource}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}
