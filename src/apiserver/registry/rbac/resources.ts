// rbac.authorization.k8s.io: Role, ClusterRole, RoleBinding, ClusterRoleBinding, served as v1
// (stored) and v1beta1 (same shape, deprecated: every request gets a Warning). Writes pass the
// escalation guard before they are stored.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef, TableColumn, VersionDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import type { EscalationGuard } from '../../authz/rbac/escalation.js';
import { defaultSubjects, rbacName, RBAC_GROUP, validateAggregationRule, validateBinding, validateRoleRefUnchanged, validateRules } from './validation.js';

function versions(kind: string, defaults?: (o: KubeObject) => void): VersionDef[] {
  return [
    identityVersion('v1', `io.k8s.api.rbac.v1.${kind}`, defaults),
    {
      ...identityVersion('v1beta1', `io.k8s.api.rbac.v1beta1.${kind}`, defaults),
      deprecationWarning: `${RBAC_GROUP}/v1beta1 ${kind} is deprecated in v1.17+, unavailable in v1.22+; use ${RBAC_GROUP}/v1 ${kind}`,
    },
  ];
}

const createdAt: TableColumn = col('Created At', 'When the object was created.', (o) => o.metadata.creationTimestamp ?? '', 0, 'date');
const roleColumn = col('Role', 'The role the binding grants.', (o) => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`);
const subjectsOf = (kind: string) => (o: KubeObject) =>
  ((o.subjects ?? []) as Fields[]).filter((s) => s.kind === kind).map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name)).join(', ');
const bindingColumns: TableColumn[] = [
  roleColumn,
  ageColumn,
  col('Users', 'Users the role is granted to.', subjectsOf('User'), 1),
  col('Groups', 'Groups the role is granted to.', subjectsOf('Group'), 1),
  col('ServiceAccounts', 'Service accounts the role is granted to.', subjectsOf('ServiceAccount'), 1),
];

const base = { group: RBAC_GROUP, storageVersion: 'v1', nameValidator: rbacName };

export function rbacResources(guard: EscalationGuard): ResourceDef[] {
  const roles: ResourceDef = {
    ...base, resource: 'roles', singular: 'role', kind: 'Role', listKind: 'RoleList', namespaced: true,
    versions: versions('Role'),
    strategy: { validate: (o) => validateRules(o.rules, true) },
    hooks: { checkWrite: (o, old, ctx) => guard.checkRole('roles', o, ctx.user, old) },
    columns: [createdAt],
  };
  const clusterroles: ResourceDef = {
    ...base, resource: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', listKind: 'ClusterRoleList', namespaced: false,
    versions: versions('ClusterRole'),
    strategy: { validate: (o) => [...validateRules(o.rules, false), ...validateAggregationRule(o.aggregationRule)] },
    hooks: { checkWrite: (o, old, ctx) => guard.checkRole('clusterroles', o, ctx.user, old) },
    columns: [createdAt],
  };
  const binding = (namespaced: boolean): ResourceDef => {
    const kind = namespaced ? 'RoleBinding' : 'ClusterRoleBinding';
    const resource = namespaced ? 'rolebindings' : 'clusterrolebindings';
    return {
      ...base, resource, singular: resource.slice(0, -1), kind, listKind: `${kind}List`, namespaced,
      versions: versions(kind, defaultSubjects),
      strategy: {
        defaults: defaultSubjects,
        validate: (o) => validateBinding(o, namespaced),
        validateUpdate: validateRoleRefUnchanged,
      },
      hooks: { checkWrite: (o, old, ctx) => guard.checkBinding(resource, o, ctx.user, old) },
      columns: bindingColumns,
    };
  };
  return [roles, clusterroles, binding(true), binding(false)];
}
