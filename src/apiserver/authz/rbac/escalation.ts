// Escalation prevention, after k8s.io/kubernetes pkg/registry/rbac: a user may write a role
// only with rules the user already holds (or with `escalate` on it), and bind a role only if
// the user holds its rules (or has `bind` on it). system:masters is exempt.
import type { UserInfo } from '../../authn/index.js';
import type { KubeObject } from '../../../api/object.js';
import { forbidden, notFound, type StatusError } from '../../errors.js';
import { forbiddenWording, SUPERUSER_GROUP, type Authorizer } from '../index.js';
import type { RBACAuthorizer } from './authorizer.js';
import type { RoleRef } from './policy-index.js';
import { compactString, uncovered, type PolicyRule } from './rules.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];

export class EscalationGuard {
  /** The server's authorizer is set once it is built (it needs the registries this guard serves). */
  authorizer?: Authorizer;

  constructor(private rbac: RBACAuthorizer) {}

  private async allowed(user: UserInfo, verb: 'escalate' | 'bind', resource: string, namespace: string, name: string): Promise<boolean> {
    if (!this.authorizer) return false;
    const v = await this.authorizer.decide(user, { isResourceRequest: true, path: '', verb, group: RBAC_GROUP, namespace, resource, subresource: '', name });
    return v.decision === 'allow';
  }

  /** Creating or changing a Role (namespace set) or ClusterRole: throws 403 unless allowed. */
  async checkRole(resource: 'roles' | 'clusterroles', obj: KubeObject, user: UserInfo, old?: KubeObject): Promise<void> {
    if (old && same(obj.rules, old.rules) && same(obj.aggregationRule, old.aggregationRule)) return;
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    if (user.groups.includes(SUPERUSER_GROUP) || await this.allowed(user, 'escalate', resource, namespace, name)) return;
    const err = this.escalation(user, namespace, (obj.rules ?? []) as PolicyRule[]);
    if (err) throw denied(resource, name, err);
    if (obj.aggregationRule && this.escalation(user, namespace, FULL_AUTHORITY)) {
      throw denied(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
  }

  /** Creating or changing a RoleBinding (namespace set) or ClusterRoleBinding. */
  async checkBinding(resource: 'rolebindings' | 'clusterrolebindings', obj: KubeObject, user: UserInfo, old?: KubeObject): Promise<void> {
    if (old && same(obj.subjects, old.subjects) && same(obj.roleRef, old.roleRef)) return;
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const ref = obj.roleRef as RoleRef;
    if (user.groups.includes(SUPERUSER_GROUP)) return;
    if (await this.allowed(user, 'bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', namespace, ref.name)) return;
    const rules = this.rbac.index.roleRules(ref, namespace);
    if (!rules) throw denied(resource, name, notFound(ref.kind === 'Role' ? 'roles' : 'clusterroles', RBAC_GROUP, ref.name).message);
    const err = this.escalation(user, namespace, rules);
    if (err) throw denied(resource, name, err);
  }

  /** The refusal text when `user` does not hold every rule, or undefined. */
  private escalation(user: UserInfo, namespace: string, rules: PolicyRule[]): string | undefined {
    const missing = uncovered(this.rbac.rules(user, namespace), rules);
    if (!missing.length) return undefined;
    const lines = [...new Set(compact(missing).map(compactString))].sort();
    const groups = `[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
    return `user ${JSON.stringify(user.username)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  }
}

/** Simple rules differing only in their verb, merged (upstream's CompactRules). */
function compact(rules: PolicyRule[]): PolicyRule[] {
  const byTarget = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroups, r.resources, r.resourceNames, r.nonResourceURLs]);
    const seen = byTarget.get(key);
    if (seen) { if (!seen.verbs.includes(r.verbs[0])) seen.verbs.push(r.verbs[0]); } else byTarget.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...byTarget.values()];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function denied(resource: string, name: string, why: string): StatusError {
  return forbidden(forbiddenWording(resource, RBAC_GROUP, name, why), { name, group: RBAC_GROUP, kind: resource });
}
