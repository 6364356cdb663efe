// The wire form of policy.networking.k8s.io/v1alpha1 (kubernetes-types has no such group).
import type { LabelSelector } from '../../labels.js';

export type AdminNetworkPolicyAction = 'Allow' | 'Deny' | 'Pass';
export interface NamespacedPod { namespaceSelector: LabelSelector; podSelector: LabelSelector }
export interface AdminNetworkPolicySubject { namespaces?: LabelSelector; pods?: NamespacedPod }
export interface AdminNetworkPolicyPort {
  portNumber?: { protocol?: string; port: number };
  namedPort?: string;
  portRange?: { protocol?: string; start: number; end: number };
}
export interface AdminNetworkPolicyPeer {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
  /** Egress only. */
  nodes?: LabelSelector;
  networks?: string[];
  domainNames?: string[];
}
export interface AdminNetworkPolicyRule {
  name?: string;
  action: AdminNetworkPolicyAction;
  from?: AdminNetworkPolicyPeer[];
  to?: AdminNetworkPolicyPeer[];
  ports?: AdminNetworkPolicyPort[];
}
export interface AdminNetworkPolicySpec {
  priority: number;
  subject: AdminNetworkPolicySubject;
  ingress?: AdminNetworkPolicyRule[];
  egress?: AdminNetworkPolicyRule[];
}
export interface BaselineAdminNetworkPolicySpec {
  subject: AdminNetworkPolicySubject;
  ingress?: AdminNetworkPolicyRule[];
  egress?: AdminNetworkPolicyRule[];
}
export interface AdminNetworkPolicyStatus { conditions?: unknown[] }
