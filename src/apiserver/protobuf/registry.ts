// Which message a body holds, by the apiVersion and kind in its envelope.
import type { Messages } from './schema.js';
import { affinity } from './tables/affinity.js';
import { apps } from './tables/apps.js';
import { auth } from './tables/auth.js';
import { autoscaling } from './tables/autoscaling.js';
import { batch } from './tables/batch.js';
import { certificates } from './tables/certificates.js';
import { core } from './tables/core.js';
import { meta } from './tables/meta.js';
import { networking } from './tables/networking.js';
import { pod } from './tables/pod.js';
import { policy } from './tables/policy.js';
import { rbac } from './tables/rbac.js';

function merge(...groups: Messages[]): Messages {
  const all: Messages = {};
  for (const g of groups) {
    for (const [name, def] of Object.entries(g)) {
      if (name in all) throw new Error(`protobuf tables: message ${name} defined twice`);
      all[name] = def;
    }
  }
  return all;
}

export const messages = merge(meta, core, pod, affinity, apps, autoscaling, batch, networking, auth, rbac, policy, certificates);

const byGroupVersion: Record<string, string[]> = {
  v1: ['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Pod', 'ResourceQuota'],
  'apps/v1': ['Deployment'],
  'authentication.k8s.io/v1': ['TokenRequest', 'TokenReview', 'SelfSubjectReview'],
  'authorization.k8s.io/v1': ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview', 'LocalSubjectAccessReview'],
  'autoscaling/v1': ['Scale'],
  'batch/v1': ['Job', 'CronJob'],
  'certificates.k8s.io/v1': ['CertificateSigningRequest'],
  'networking.k8s.io/v1': ['Ingress', 'NetworkPolicy'],
  'policy/v1': ['Eviction', 'PodDisruptionBudget'],
  'scheduling.k8s.io/v1': ['PriorityClass'],
  'rbac.authorization.k8s.io/v1': ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
  'rbac.authorization.k8s.io/v1beta1': ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
  // DeleteOptions is sent under the group of the resource being deleted.
  'meta.k8s.io/v1': ['DeleteOptions'],
};

/** The message for an apiVersion and kind, or undefined when we have no table for it. */
export function rootMessage(apiVersion: string, kind: string): string | undefined {
  if (kind === 'DeleteOptions') return 'DeleteOptions';
  return byGroupVersion[apiVersion]?.includes(kind) ? kind : undefined;
}
