// Brings the bootstrap policy into storage at API server start, as upstream's RBAC
// post-start hook: missing roles and bindings are created; existing ones annotated
// `rbac.authorization.kubernetes.io/autoupdate: "true"` (or not annotated) get missing rules,
// selectors, labels and subjects added, never removed; "false" leaves an object alone. A
// binding whose roleRef differs is recreated (roleRef is immutable).
import type { Fields, KubeObject } from '../../../api/object.js';
import { StatusError } from '../../errors.js';
import type { Registries, RequestContext } from '../../registry/index.js';
import { uncovered, type PolicyRule } from '../rbac/rules.js';
import { clusterRoles, type BootstrapClusterRole } from './roles.js';
import { controllerRoles } from './controllers.js';
import { clusterRoleBindings, type BootstrapBinding } from './bindings.js';

export const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
export const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const RBAC = 'rbac.authorization.k8s.io';

function roleObject(r: BootstrapClusterRole): KubeObject {
  const o: KubeObject = {
    metadata: { name: r.name, labels: { ...BOOTSTRAP_LABELS, ...r.labels }, annotations: { [AUTOUPDATE]: 'true' } },
    rules: r.rules,
  };
  if (r.aggregateFrom) o.aggregationRule = { clusterRoleSelectors: r.aggregateFrom.map((matchLabels) => ({ matchLabels })) };
  return o;
}

function bindingObject(b: BootstrapBinding): KubeObject {
  return {
    metadata: { name: b.name, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTOUPDATE]: 'true' } },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: b.role },
    subjects: b.subjects,
  };
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

export async function reconcileBootstrapPolicy(registries: Registries, ctx: RequestContext): Promise<void> {
  const roles = registries.get(RBAC, 'clusterroles')!;
  const bindings = registries.get(RBAC, 'clusterrolebindings')!;
  for (const r of [...clusterRoles, ...controllerRoles]) {
    const expected = roleObject(r);
    if (await createIfMissing(() => roles.create(expected, ctx))) continue;
    await roles.update(undefined, r.name, (existing) => {
      if (protectedObject(existing)) return existing;
      mergeMeta(existing, expected);
      if (expected.aggregationRule) {
        // The aggregation controller owns the rules; only the selectors are the policy's.
        const have: Fields[] = existing.aggregationRule?.clusterRoleSelectors ?? [];
        const add = (expected.aggregationRule.clusterRoleSelectors as Fields[]).filter((s) => !have.some((h) => JSON.stringify(h) === JSON.stringify(s)));
        existing.aggregationRule = { clusterRoleSelectors: [...have, ...add] };
      } else {
        existing.rules = [...(existing.rules ?? []), ...uncovered((existing.rules ?? []) as PolicyRule[], r.rules)];
      }
      return existing;
    }, ctx);
  }
  for (const b of clusterRoleBindings) {
    const expected = bindingObject(b);
    if (await createIfMissing(() => bindings.create(expected, ctx))) continue;
    const existing = await bindings.get(undefined, b.name);
    if (protectedObject(existing)) continue;
    if (JSON.stringify(existing.roleRef) !== JSON.stringify(expected.roleRef)) {
      await bindings.delete(undefined, b.name, {}, ctx);
      const subjects = [...(existing.subjects ?? []), ...b.subjects.filter((s) => !hasSubject(existing.subjects, s))];
      await createIfMissing(() => bindings.create({ ...expected, metadata: { ...expected.metadata, labels: { ...expected.metadata.labels, ...existing.metadata.labels } }, subjects }, ctx));
      continue;
    }
    await bindings.update(undefined, b.name, (o) => {
      mergeMeta(o, expected);
      o.subjects = [...(o.subjects ?? []), ...b.subjects.filter((s) => !hasSubject(o.subjects, s))];
      return o;
    }, ctx);
  }
}

function hasSubject(list: Fields[] | undefined, s: Fields): boolean {
  return (list ?? []).some((x) => x.kind === s.kind && x.name === s.name && (x.namespace ?? '') === (s.namespace ?? ''));
}
