// Who the bootstrap cluster roles are granted to, after upstream's ClusterRoleBindings().
import type { Subject } from '../rbac/policy-index.js';
import { controllerRoles, controllerServiceAccount } from './controllers.js';

export interface BootstrapBinding {
  name: string;
  role: string;
  subjects: Subject[];
}

const RBAC = 'rbac.authorization.k8s.io';
const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC, name });
const sa = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';

export const clusterRoleBindings: BootstrapBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [group('system:monitoring')] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  { name: 'system:node-proxier', role: 'system:node-proxier', subjects: [user('system:kube-proxy')] },
  // kubeadm's binding for the API server's kubelet client certificate (pods/log, exec, attach).
  { name: 'kube-apiserver-kubelet-client', role: 'system:kubelet-api-admin', subjects: [user('kube-apiserver-kubelet-client')] },
  { name: 'system:capstan-dns', role: 'system:capstan-dns', subjects: [sa('kube-system', 'capstan-dns')] },
  { name: 'system:capstan-network-agent', role: 'system:capstan-network-agent', subjects: [user('system:capstan-network-agent')] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [user(CONTROLLER_MANAGER_USER)] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [user('system:kube-scheduler')] },
  { name: 'system:volume-scheduler', role: 'system:volume-scheduler', subjects: [user('system:kube-scheduler')] },
  // Upstream keeps this binding without subjects: nodes are authorized by the Node authorizer.
  { name: 'system:node', role: 'system:node', subjects: [] },
  { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', subjects: [group('system:serviceaccounts')] },
  ...controllerRoles.map((r) => ({ name: r.name, role: r.name, subjects: [sa('kube-system', controllerServiceAccount(r.name)), user(CONTROLLER_MANAGER_USER)] })),
];
