// Validation of RBAC objects, after k8s.io/kubernetes pkg/apis/rbac/validation: rules need
// verbs and either resources (with groups) or non-resource URLs (ClusterRoles only); bindings
// need a roleRef to a Role or ClusterRole of rbac.authorization.k8s.io and subjects of kind
// User, Group or ServiceAccount; roleRef never changes.
import type { Fields, KubeObject } from '../../../api/object.js';
import { fromLabelSelector, SelectorParseError } from '../../../api/labels.js';
import { invalidValue, isDNS1123Subdomain, notSupported, required, type FieldError } from '../../../api/validation.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** RBAC names are path segments (`system:controller:x` is valid), as upstream's ValidateRBACName. */
export function rbacName(name: string): string | null {
  if (name === '.' || name === '..') return `may not be '${name}'`;
  for (const c of ['/', '%']) if (name.includes(c)) return `may not contain '${c}'`;
  return null;
}

export function validateRules(rules: unknown, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, r] of ((rules ?? []) as Fields[]).entries()) {
    const p = `rules[${i}]`;
    if (!r?.verbs?.length) errs.push(required(`${p}.verbs`, 'verbs must contain at least one value'));
    const urls: string[] = r?.nonResourceURLs ?? [];
    if (urls.length) {
      if (namespaced) errs.push(invalidValue(`${p}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (r.apiGroups?.length || r.resources?.length || r.resourceNames?.length) errs.push(invalidValue(`${p}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      continue;
    }
    if (!r?.apiGroups?.length) errs.push(required(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (!r?.resources?.length) errs.push(required(`${p}.resources`, 'resource rules must supply at least one resource'));
  }
  return errs;
}

export function validateAggregationRule(rule: Fields | undefined): FieldError[] {
  if (!rule) return [];
  const selectors: unknown[] = rule.clusterRoleSelectors ?? [];
  if (!selectors.length) return [required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  const errs: FieldError[] = [];
  for (const [i, s] of selectors.entries()) {
    try { fromLabelSelector(s as Parameters<typeof fromLabelSelector>[0]); } catch (e) {
      if (e instanceof SelectorParseError) errs.push(invalidValue(`aggregationRule.clusterRoleSelectors[${i}]`, s, e.message));
      else throw e;
    }
  }
  return errs;
}

export function validateBinding(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref: Fields = o.roleRef ?? {};
  if (ref.apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(required('roleRef.name'));
  else {
    const e = rbacName(ref.name);
    if (e) errs.push(invalidValue('roleRef.name', ref.name, e));
  }
  for (const [i, s] of ((o.subjects ?? []) as Fields[]).entries()) errs.push(...validateSubject(s, `subjects[${i}]`, namespaced));
  return errs;
}

function validateSubject(s: Fields, p: string, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!s?.name) errs.push(required(`${p}.name`));
  switch (s?.kind) {
    case 'ServiceAccount':
      if (s.name) { const e = isDNS1123Subdomain(s.name); if (e) errs.push(invalidValue(`${p}.name`, s.name, e)); }
      if (s.apiGroup) errs.push(notSupported(`${p}.apiGroup`, s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(required(`${p}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== RBAC_GROUP) errs.push(notSupported(`${p}.apiGroup`, s.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(`${p}.kind`, s?.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

export function validateRoleRefUnchanged(o: KubeObject, old: KubeObject): FieldError[] {
  return JSON.stringify(o.roleRef) === JSON.stringify(old.roleRef) ? [] : [invalidValue('roleRef', o.roleRef, 'cannot change roleRef')];
}

/** v1 and v1beta1 defaults: a User or Group subject's apiGroup is rbac.authorization.k8s.io. */
export function defaultSubjects(o: KubeObject): void {
  for (const s of (o.subjects ?? []) as Fields[]) {
    if (s && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}
