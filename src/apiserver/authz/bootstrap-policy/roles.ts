// The cluster roles every cluster starts with, after upstream's bootstrappolicy/policy.go
// (facts: names, rules, aggregation labels, bindings).
import { eventsRule, Read, ReadWrite, rule, urls, Write } from './rule.js';
import type { PolicyRule } from '../rbac/rules.js';

export interface BootstrapClusterRole {
  name: string;
  rules: PolicyRule[];
  labels?: Record<string, string>;
  /** Label selectors (matchLabels) of an aggregated role; its rules are the aggregation controller's. */
  aggregateFrom?: Record<string, string>[];
}

const AGG = 'rbac.authorization.k8s.io/aggregate-to-';
const core = [''];

export const clusterRoles: BootstrapClusterRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'system:discovery', rules: [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])] },
  { name: 'system:monitoring', rules: [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])] },
  {
    name: 'system:basic-user', rules: [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ],
  },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  { name: 'admin', rules: [], aggregateFrom: [{ [`${AGG}admin`]: 'true' }] },
  { name: 'edit', rules: [], labels: { [`${AGG}admin`]: 'true' }, aggregateFrom: [{ [`${AGG}edit`]: 'true' }] },
  { name: 'view', rules: [], labels: { [`${AGG}edit`]: 'true' }, aggregateFrom: [{ [`${AGG}view`]: 'true' }] },
  // metrics-server's manifest adds this role; capstan serves metrics.k8s.io itself.
  {
    name: 'system:aggregated-metrics-reader', labels: { [`${AGG}view`]: 'true', [`${AGG}edit`]: 'true', [`${AGG}admin`]: 'true' }, rules: [
      rule(Read, ['metrics.k8s.io'], ['pods', 'nodes']),
    ],
  },
  {
    name: 'system:aggregate-to-admin', labels: { [`${AGG}admin`]: 'true' }, rules: [
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      rule(ReadWrite, ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
    ],
  },
  {
    name: 'system:aggregate-to-edit', labels: { [`${AGG}edit`]: 'true' }, rules: [
      rule(['impersonate'], core, ['serviceaccounts']),
      rule(Write, core, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], core, ['pods/eviction']),
      rule(Write, core, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets']),
      rule(['create'], core, ['serviceaccounts/token']),
      rule(Write, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(Write, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(Write, ['batch'], ['jobs', 'cronjobs']),
      rule(Write, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(Write, ['policy'], ['poddisruptionbudgets']),
      rule(Write, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      rule(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], ['coordination.k8s.io'], ['leases']),
      rule(Read, core, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
    ],
  },
  {
    name: 'system:aggregate-to-view', labels: { [`${AGG}view`]: 'true' }, rules: [
      rule(Read, core, ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(Read, core, ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      rule(Read, core, ['namespaces']),
      rule(Read, ['discovery.k8s.io'], ['endpointslices']),
      rule(Read, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/scale', 'statefulsets/status', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status']),
      rule(Read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(Read, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(Read, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(Read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(Read, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      rule(Read, ['events.k8s.io'], ['events']),
    ],
  },
  {
    name: 'system:node', rules: [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
      rule(Read, core, ['services']),
      rule(['create', 'get', 'list', 'watch', 'patch', 'update'], core, ['nodes']),
      rule(['patch', 'update'], core, ['nodes/status']),
      eventsRule(),
      rule(Read, core, ['pods']),
      rule(['create', 'delete'], core, ['pods']),
      rule(['update', 'patch'], core, ['pods/status']),
      rule(['create'], core, ['pods/eviction']),
      rule(Read, core, ['secrets', 'configmaps']),
      rule(['get'], core, ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['get'], core, ['endpoints']),
      rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update', 'patch'], core, ['persistentvolumeclaims/status']),
      rule(['create'], core, ['serviceaccounts/token']),
      rule(Read, ['discovery.k8s.io'], ['endpointslices']),
    ],
  },
  { name: 'system:node-proxier', rules: [rule(['list', 'watch'], core, ['services', 'endpoints']), rule(Read, core, ['nodes']), eventsRule(), rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices'])] },
  // capstan's own node components (src/cli/node-identities.ts), as upstream's system:kube-dns.
  { name: 'system:capstan-dns', rules: [rule(Read, core, ['services', 'pods', 'namespaces']), rule(Read, ['discovery.k8s.io'], ['endpointslices']), rule(['get'], core, ['nodes'])] },
  { name: 'system:capstan-network-agent', rules: [rule(['get', 'list', 'watch', 'patch'], core, ['nodes']), rule(['list', 'watch'], core, ['pods', 'namespaces']), rule(['list', 'watch'], ['networking.k8s.io'], ['networkpolicies']), rule(['list', 'watch'], ['policy.networking.k8s.io'], ['adminnetworkpolicies', 'baselineadminnetworkpolicies']), eventsRule()] },
  {
    name: 'system:kubelet-api-admin', rules: [
      rule(['get', 'list', 'watch'], core, ['nodes']), rule(['proxy'], core, ['nodes']),
      rule(['*'], core, ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log', 'nodes/healthz', 'nodes/pods', 'nodes/spec']),
    ],
  },
  { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])] },
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  {
    name: 'system:kube-controller-manager', rules: [
      eventsRule(),
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      rule(['create'], core, ['secrets', 'serviceaccounts']),
      rule(['delete'], core, ['secrets']),
      rule(['get'], core, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], core, ['secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], core, ['serviceaccounts/token']),
    ],
  },
  {
    name: 'system:kube-scheduler', rules: [
      eventsRule(),
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
      rule(Read, core, ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], core, ['pods']),
      rule(['create'], core, ['pods/binding', 'bindings']),
      rule(['patch', 'update'], core, ['pods/status']),
      rule(Read, core, ['services', 'replicationcontrollers']),
      rule(Read, ['apps', 'extensions'], ['replicasets']),
      rule(Read, ['apps'], ['statefulsets']),
      rule(Read, ['policy'], ['poddisruptionbudgets']),
      rule(Read, core, ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(Read, ['storage.k8s.io'], ['csinodes', 'csidrivers', 'csistoragecapacities']),
      rule(Read, core, ['namespaces']),
    ],
  },
  {
    name: 'system:volume-scheduler', rules: [
      rule(['get', 'list', 'patch', 'update', 'watch'], core, ['persistentvolumes']),
      rule(Read, ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'list', 'patch', 'update', 'watch'], core, ['persistentvolumeclaims']),
    ],
  },
  { name: 'system:service-account-issuer-discovery', rules: [urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])] },
];
