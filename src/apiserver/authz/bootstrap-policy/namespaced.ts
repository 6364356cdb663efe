// The namespaced roles and bindings every cluster starts with, after upstream's
// bootstrappolicy/namespace_policy.go: leader-locking and authentication-config readers in
// kube-system, the bootstrap signer's and token cleaner's access, cluster-info in kube-public.
import { eventsRule, Read, rule } from './rule.js';
import type { BootstrapClusterRole } from './roles.js';
import type { Subject } from '../rbac/policy-index.js';

export interface BootstrapRole extends BootstrapClusterRole {
  namespace: string;
}

export interface BootstrapRoleBinding {
  namespace: string;
  name: string;
  role: string;
  subjects: Subject[];
}

const core = [''];
const user = (name: string): Subject => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });
const sa = (name: string): Subject => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });

export const namespacedRoles: BootstrapRole[] = [
  { namespace: 'kube-system', name: 'extension-apiserver-authentication-reader', rules: [rule(Read, core, ['configmaps'], ['extension-apiserver-authentication'])] },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-controller-manager', rules: [rule(['watch'], core, ['configmaps']), rule(['get', 'update'], core, ['configmaps'], ['kube-controller-manager'])] },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-scheduler', rules: [rule(['watch'], core, ['configmaps']), rule(['get', 'update'], core, ['configmaps'], ['kube-scheduler'])] },
  { namespace: 'kube-system', name: 'system:controller:bootstrap-signer', rules: [rule(Read, core, ['secrets'])] },
  { namespace: 'kube-system', name: 'system:controller:token-cleaner', rules: [rule(['delete', ...Read], core, ['secrets']), eventsRule()] },
  // capstan's DNS publishes its Service and a slice per node in kube-system.
  { namespace: 'kube-system', name: 'system:capstan-dns', rules: [rule(['create', 'update', 'patch', 'delete'], core, ['services']), rule(['create', 'update', 'patch', 'delete'], ['discovery.k8s.io'], ['endpointslices'])] },
  { namespace: 'kube-public', name: 'system:controller:bootstrap-signer', rules: [rule(Read, core, ['configmaps']), rule(['update'], core, ['configmaps'], ['cluster-info']), eventsRule()] },
];

export const namespacedRoleBindings: BootstrapRoleBinding[] = [
  { namespace: 'kube-system', name: 'system::extension-apiserver-authentication-reader', role: 'extension-apiserver-authentication-reader', subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler')] },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-controller-manager', role: 'system::leader-locking-kube-controller-manager', subjects: [user('system:kube-controller-manager'), sa('kube-controller-manager')] },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-scheduler', role: 'system::leader-locking-kube-scheduler', subjects: [user('system:kube-scheduler'), sa('kube-scheduler')] },
  // capstan runs every controller as system:kube-controller-manager (see bindings.ts).
  { namespace: 'kube-system', name: 'system:controller:bootstrap-signer', role: 'system:controller:bootstrap-signer', subjects: [sa('bootstrap-signer'), user('system:kube-controller-manager')] },
  { namespace: 'kube-system', name: 'system:controller:token-cleaner', role: 'system:controller:token-cleaner', subjects: [sa('token-cleaner'), user('system:kube-controller-manager')] },
  { namespace: 'kube-system', name: 'system:capstan-dns', role: 'system:capstan-dns', subjects: [sa('capstan-dns')] },
  { namespace: 'kube-public', name: 'system:controller:bootstrap-signer', role: 'system:controller:bootstrap-signer', subjects: [sa('bootstrap-signer')] },
];
