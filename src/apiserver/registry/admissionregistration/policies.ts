// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and their bindings, defaulted
// and validated as upstream (SetDefaults_ValidatingAdmissionPolicySpec,
// ValidateValidatingAdmissionPolicy): every CEL expression is compiled on write, so a policy
// that cannot run is refused with the compiler's words.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { invalidValue, isQualifiedName, notSupported, required, duplicate, type FieldError } from '../../../api/validation.js';
import { compile, CompileError } from '../../cel/index.js';
import { isDeepStrictEqual } from 'node:util';

/** The variables a policy's expressions may read. */
export const POLICY_VARIABLES = ['object', 'oldObject', 'params', 'request', 'namespaceObject', 'authorizer', 'variables'] as const;
const GROUP = 'admissionregistration.k8s.io';

function defaultMatch(m: Fields | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...(m.resourceRules ?? []), ...(m.excludeResourceRules ?? [])] as Fields[]) r.scope ??= '*';
}

function policyDefaults(o: KubeObject): void {
  const spec = (o.spec ??= {}) as Fields;
  spec.failurePolicy ??= 'Fail';
  defaultMatch(spec.matchConstraints);
}

function bindingDefaults(o: KubeObject): void {
  defaultMatch((o.spec as Fields | undefined)?.matchResources);
}

/** A compile error at `field`, or none. */
export function celErrors(field: string, expression: unknown, variables: readonly string[]): FieldError[] {
  if (typeof expression !== 'string' || !expression.trim()) return [required(field)];
  try {
    compile(expression, variables);
    return [];
  } catch (e) {
    if (e instanceof CompileError) return [invalidValue(field, expression, e.message)];
    throw e;
  }
}

/** matchConditions as upstream validates them: at most 64, names unique qualified names, expressions that compile. */
export function matchConditionErrors(conditions: Fields[], path: string, variables: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > 64) errs.push({ type: 'FieldValueTooMany', field: path, message: `${conditions.length}: must have at most 64 items` });
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    if (!c.name) errs.push(required(`${path}[${i}].name`));
    else {
      const e = isQualifiedName(c.name);
      if (e) errs.push(invalidValue(`${path}[${i}].name`, c.name, e));
      if (names.has(c.name)) errs.push(duplicate(`${path}[${i}].name`, c.name));
      names.add(c.name);
    }
    errs.push(...celErrors(`${path}[${i}].expression`, c.expression, variables));
  });
  return errs;
}

const operations = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

function validateMatch(m: Fields | undefined, p: string, requireRules: boolean): FieldError[] {
  if (!m) return requireRules ? [required(p)] : [];
  const errs: FieldError[] = [];
  if (requireRules && !(m.resourceRules ?? []).length) errs.push(required(`${p}.resourceRules`));
  if (!['Exact', 'Equivalent'].includes(m.matchPolicy)) errs.push(notSupported(`${p}.matchPolicy`, m.matchPolicy, ['Equivalent', 'Exact']));
  for (const list of ['resourceRules', 'excludeResourceRules'] as const) {
    ((m[list] ?? []) as Fields[]).forEach((r, j) => {
      const rp = `${p}.${list}[${j}]`;
      if (!(r.operations ?? []).length) errs.push(required(`${rp}.operations`));
      for (const [k, op] of ((r.operations ?? []) as string[]).entries()) if (!operations.includes(op)) errs.push(notSupported(`${rp}.operations[${k}]`, op, operations));
      if (!(r.apiGroups ?? []).length) errs.push(required(`${rp}.apiGroups`));
      if (!(r.apiVersions ?? []).length) errs.push(required(`${rp}.apiVersions`));
      if (!(r.resources ?? []).length) errs.push(required(`${rp}.resources`));
      if (!['Cluster', 'Namespaced', '*'].includes(r.scope)) errs.push(notSupported(`${rp}.scope`, r.scope, ['*', 'Cluster', 'Namespaced']));
    });
  }
  return errs;
}

function validatePolicy(o: KubeObject): FieldError[] {
  const spec = (o.spec ?? {}) as Fields;
  const errs: FieldError[] = [];
  if (!['Fail', 'Ignore'].includes(spec.failurePolicy)) errs.push(notSupported('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
  if (spec.paramKind) {
    if (!spec.paramKind.kind) errs.push(required('spec.paramKind.kind'));
    if (!spec.paramKind.apiVersion) errs.push(required('spec.paramKind.apiVersion'));
  }
  errs.push(...validateMatch(spec.matchConstraints, 'spec.matchConstraints', true));
  const vars = POLICY_VARIABLES;
  const names = new Set<string>();
  ((spec.variables ?? []) as Fields[]).forEach((v, i) => {
    if (!v.name) errs.push(required(`spec.variables[${i}].name`));
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(v.name)) errs.push(invalidValue(`spec.variables[${i}].name`, v.name, 'name is not a valid CEL identifier'));
    else if (names.has(v.name)) errs.push(duplicate(`spec.variables[${i}].name`, v.name));
    names.add(v.name);
    errs.push(...celErrors(`spec.variables[${i}].expression`, v.expression, vars));
  });
  const validations = (spec.validations ?? []) as Fields[];
  const audits = (spec.auditAnnotations ?? []) as Fields[];
  if (!validations.length && !audits.length) errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  validations.forEach((v, i) => {
    errs.push(...celErrors(`spec.validations[${i}].expression`, v.expression, vars));
    if (v.messageExpression !== undefined) errs.push(...celErrors(`spec.validations[${i}].messageExpression`, v.messageExpression, vars));
    if (typeof v.message === 'string' && v.message.includes('\n')) errs.push(invalidValue(`spec.validations[${i}].message`, v.message, 'message must not contain line breaks'));
    const reasons = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
    if (v.reason !== undefined && !reasons.includes(v.reason)) errs.push(notSupported(`spec.validations[${i}].reason`, v.reason, reasons));
  });
  audits.forEach((a, i) => {
    if (!a.key) errs.push(required(`spec.auditAnnotations[${i}].key`));
    errs.push(...celErrors(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression, vars));
  });
  errs.push(...matchConditionErrors((spec.matchConditions ?? []) as Fields[], 'spec.matchConditions', vars));
  return errs;
}

function validateBinding(o: KubeObject): FieldError[] {
  const spec = (o.spec ?? {}) as Fields;
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push(required('spec.policyName'));
  const actions = (spec.validationActions ?? []) as string[];
  if (!actions.length) errs.push(required('spec.validationActions'));
  actions.forEach((a, i) => { if (!['Deny', 'Warn', 'Audit'].includes(a)) errs.push(notSupported(`spec.validationActions[${i}]`, a, ['Audit', 'Deny', 'Warn'])); });
  if (actions.includes('Deny') && actions.includes('Warn')) errs.push(invalidValue('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  if (new Set(actions).size !== actions.length) errs.push(duplicate('spec.validationActions', actions));
  const ref = spec.paramRef as Fields | undefined;
  if (ref) {
    if (ref.name && ref.selector) errs.push(invalidValue('spec.paramRef.name', ref.name, 'name and selector are mutually exclusive'));
    if (!ref.name && !ref.selector) errs.push(required('spec.paramRef', 'one of name or selector must be specified'));
    if (ref.parameterNotFoundAction === undefined) errs.push(required('spec.paramRef.parameterNotFoundAction'));
    else if (!['Allow', 'Deny'].includes(ref.parameterNotFoundAction)) errs.push(notSupported('spec.paramRef.parameterNotFoundAction', ref.parameterNotFoundAction, ['Allow', 'Deny']));
  }
  errs.push(...validateMatch(spec.matchResources, 'spec.matchResources', false));
  return errs;
}

const generationOnSpecChange = {
  prepareForCreate(o: KubeObject) { o.metadata.generation = 1; },
  prepareForUpdate(o: KubeObject, old: KubeObject) {
    o.metadata.generation = isDeepStrictEqual(o.spec, old.spec) ? old.metadata.generation ?? 1 : (old.metadata.generation ?? 0) + 1;
  },
};

export const validatingadmissionpolicies: ResourceDef = {
  group: GROUP, resource: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy',
  kind: 'ValidatingAdmissionPolicy', listKind: 'ValidatingAdmissionPolicyList', namespaced: false,
  categories: ['api-extensions'],
  versions: [identityVersion('v1', `io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy`, policyDefaults)],
  storageVersion: 'v1',
  strategy: specStrategy({ ...generationOnSpecChange, defaults: policyDefaults, validate: validatePolicy }),
  statusStrategy: statusStrategy(),
  columns: [
    col('Validations', 'Number of validations.', (o) => ((o.spec as Fields)?.validations ?? []).length, 0, 'integer'),
    col('ParamKind', 'The parameter kind.', (o) => { const k = (o.spec as Fields)?.paramKind; return k ? `${k.apiVersion}/${k.kind}` : '<unset>'; }),
    ageColumn,
  ],
};

export const validatingadmissionpolicybindings: ResourceDef = {
  group: GROUP, resource: 'validatingadmissionpolicybindings', singular: 'validatingadmissionpolicybinding',
  kind: 'ValidatingAdmissionPolicyBinding', listKind: 'ValidatingAdmissionPolicyBindingList', namespaced: false,
  categories: ['api-extensions'],
  versions: [identityVersion('v1', `io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding`, bindingDefaults)],
  storageVersion: 'v1',
  strategy: { ...generationOnSpecChange, defaults: bindingDefaults, validate: validateBinding },
  columns: [
    col('PolicyName', 'The policy bound.', (o) => (o.spec as Fields)?.policyName ?? ''),
    col('ParamRef', 'The parameter reference.', (o) => { const r = (o.spec as Fields)?.paramRef; return r ? (r.namespace ? `${r.namespace}/${r.name ?? '*'}` : `${r.name ?? '*'}`) : '<unset>'; }),
    ageColumn,
  ],
};
