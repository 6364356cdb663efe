// Brings the bootstrap policy into storage at API server start, as upstream's RBAC
// post-start hook: missing roles and bindings are created; existing ones annotated
// `rbac.authorization.kubernetes.io/autoupdate: "true"` (or not annotated) get missing rules,
// selectors, labels and subjects added, never removed; "false" leaves an object alone. A
// binding whose roleRef differs is recreated (roleRef is immutable).
import type { Fields, KubeObject } from '../../../api/object.js';
import { StatusError } from '../../errors.js';
import type { GenericRegistry, Registries, RequestContext } from '../../registry/index.js';
import { uncovered, type PolicyRule } from '../rbac/rules.js';
import type { Subject } from '../rbac/policy-index.js';
import { clusterRoles, type BootstrapClusterRole } from './roles.js';
import { controllerRoles } from './controllers.js';
import { clusterRoleBindings } from './bindings.js';
import { namespacedRoleBindings, namespacedRoles } from './namespaced.js';

export const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
export const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const RBAC = 'rbac.authorization.k8s.io';

const meta = (name: string, namespace: string | undefined, labels: Record<string, string> = {}) =>
  ({ name, ...(namespace ? { namespace } : {}), labels: { ...BOOTSTRAP_LABELS, ...labels }, annotations: { [AUTOUPDATE]: 'true' } });

function roleObject(r: BootstrapClusterRole, namespace?: string): KubeObject {
  const o: KubeObject = { metadata: meta(r.name, namespace, r.labels), rules: r.rules };
  if (r.aggregateFrom) o.aggregationRule = { clusterRoleSelectors: r.aggregateFrom.map((matchLabels) => ({ matchLabels })) };
  return o;
}

const protectedObject = (o: KubeObject): boolean => o.metadata.annotations?.[AUTOUPDATE] === 'false';

function mergeMeta(existing: KubeObject, expected: KubeObject): void {
  existing.metadata.labels = { ...expected.metadata.labels, ...existing.metadata.labels };
  existing.metadata.annotations = { ...expected.metadata.annotations, ...existing.metadata.annotations };
}

async function createIfMissing(create: () => Promise<unknown>): Promise<boolean> {
  try {
    await create();
    return true;
  } catch (e) {
    if (e instanceof StatusError && e.reason === 'AlreadyExists') return false;
    throw e;
  }
}

async function reconcileRole(reg: GenericRegistry, expected: KubeObject, ctx: RequestContext): Promise<void> {
  if (await createIfMissing(() => reg.create(expected, ctx))) return;
  await reg.update(expected.metadata.namespace, expected.metadata.name!, (existing) => {
    if (protectedObject(existing)) return existing;
    mergeMeta(existing, expected);
    if (expected.aggregationRule) {
      // The aggregation controller owns the rules; only the selectors are the policy's.
      const have: Fields[] = existing.aggregationRule?.clusterRoleSelectors ?? [];
      const add = (expected.aggregationRule.clusterRoleSelectors as Fields[]).filter((s) => !have.some((h) => JSON.stringify(h) === JSON.stringify(s)));
      existing.aggregationRule = { clusterRoleSelectors: [...have, ...add] };
    } else {
      existing.rules = [...(existing.rules ?? []), ...uncovered((existing.rules ?? []) as PolicyRule[], expected.rules as PolicyRule[])];
    }
    return existing;
  }, ctx);
}

function hasSubject(list: Fields[] | undefined, s: Subject): boolean {
  return (list ?? []).some((x) => x.kind === s.kind && x.name === s.name && (x.namespace ?? '') === (s.namespace ?? ''));
}

async function reconcileBinding(reg: GenericRegistry, expected: KubeObject, ctx: RequestContext): Promise<void> {
  if (await createIfMissing(() => reg.create(expected, ctx))) return;
  const { namespace, name } = expected.metadata as { namespace?: string; name: string };
  const existing = await reg.get(namespace, name);
  if (protectedObject(existing)) return;
  const want = expected.subjects as Subject[];
  if (JSON.stringify(existing.roleRef) !== JSON.stringify(expected.roleRef)) {
    await reg.delete(namespace, name, {}, ctx);
    const subjects = [...(existing.subjects ?? []), ...want.filter((s) => !hasSubject(existing.subjects, s))];
    await createIfMissing(() => reg.create({ ...expected, metadata: { ...expected.metadata, labels: { ...expected.metadata.labels, ...existing.metadata.labels } }, subjects }, ctx));
    return;
  }
  await reg.update(namespace, name, (o) => {
    mergeMeta(o, expected);
    o.subjects = [...(o.subjects ?? []), ...want.filter((s) => !hasSubject(o.subjects, s))];
    return o;
  }, ctx);
}

export async function reconcileBootstrapPolicy(registries: Registries, ctx: RequestContext): Promise<void> {
  const reg = (resource: string) => registries.get(RBAC, resource)!;
  for (const r of [...clusterRoles, ...controllerRoles]) await reconcileRole(reg('clusterroles'), roleObject(r), ctx);
  for (const b of clusterRoleBindings) {
    await reconcileBinding(reg('clusterrolebindings'), { metadata: meta(b.name, undefined), roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: b.role }, subjects: b.subjects }, ctx);
  }
  for (const r of namespacedRoles) await reconcileRole(reg('roles'), roleObject(r, r.namespace), ctx);
  for (const b of namespacedRoleBindings) {
    await reconcileBinding(reg('rolebindings'), { metadata: meta(b.name, b.namespace), roleRef: { apiGroup: RBAC, kind: 'Role', name: b.role }, subjects: b.subjects }, ctx);
  }
}
