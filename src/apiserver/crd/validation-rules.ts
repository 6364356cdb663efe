// A custom resource's x-kubernetes-validations (apiextensions-apiserver's schema/cel
// validator): each rule runs where it is declared with `self` the value there; a rule that
// reads `oldSelf` is a transition rule, run on updates only where the old object has a value
// at the same place (object properties and map entries by key, map-type list items by their
// keys), or always with oldSelf an optional when optionalOldSelf is set. Failures are field
// errors at the node (or at its fieldPath) in upstream's words.
import type { FieldError } from '../../api/validation.js';
import { isObject, itemsOf, valuesOf, type JSONSchemaProps } from '../../api/apiextensions/structural.js';
import { compile, CompileError, costErrorMessage, estimateCost, evaluateSync, maxSize, optionalOf, toCel, type ValueSchema } from '../cel/index.js';

interface Rule { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string; optionalOldSelf?: boolean }

const VARS = ['self', 'oldSelf'] as const;
const rulesOf = (s: JSONSchemaProps): Rule[] => (s['x-kubernetes-validations'] ?? []) as Rule[];
const isTransition = (r: Rule): boolean => /\boldSelf\b/.test(r.rule);
const ABSENT = Symbol('absent');
type Old = unknown | typeof ABSENT;

function fail(r: Rule, path: string, type: string | undefined, message: string): FieldError {
  const field = r.fieldPath ? `${path}${r.fieldPath.startsWith('[') || !path ? r.fieldPath.replace(/^\./, '') : r.fieldPath}` : path;
  switch (r.reason) {
    case 'FieldValueForbidden': return { type: 'FieldValueForbidden', field, message };
    case 'FieldValueRequired': return { type: 'FieldValueRequired', field, message };
    case 'FieldValueDuplicate': return { type: 'FieldValueDuplicate', field, message };
    default: return { type: 'FieldValueInvalid', field, message: `${JSON.stringify(type ?? 'object')}: ${message}` };
  }
}

function check(r: Rule, s: JSONSchemaProps, v: unknown, old: Old, path: string, errs: FieldError[]): void {
  const transition = isTransition(r);
  if (transition && old === ABSENT && !r.optionalOldSelf) return;
  const vs = s as ValueSchema;
  const vars = {
    self: toCel(v, vs),
    oldSelf: r.optionalOldSelf ? optionalOf(old === ABSENT ? undefined : toCel(old, vs)) : toCel(old === ABSENT ? null : old, vs),
  };
  let ok: unknown;
  try {
    ok = evaluateSync(compile(r.rule, VARS), vars);
  } catch (e) {
    errs.push(fail({ ...r, reason: undefined }, path, s.type, e instanceof CompileError ? e.message : `rule evaluation error: ${(e as Error).message}`));
    return;
  }
  if (ok === true) return;
  let message = r.message || `failed rule: ${r.rule}`;
  if (r.messageExpression) {
    try {
      const m = evaluateSync(compile(r.messageExpression, VARS), vars);
      if (typeof m === 'string' && m.trim()) message = m;
    } catch { /* the static message stands, as upstream */ }
  }
  errs.push(fail(r, path, s.type, message));
}

function mapKeys(s: JSONSchemaProps): string[] | undefined {
  return s['x-kubernetes-list-type'] === 'map' ? s['x-kubernetes-list-map-keys'] : undefined;
}

function walk(s: JSONSchemaProps, v: unknown, old: Old, path: string, errs: FieldError[]): void {
  if (v === undefined) return;
  for (const r of rulesOf(s)) check(r, s, v, old, path, errs);
  if (Array.isArray(v)) {
    const items = itemsOf(s);
    if (!items) return;
    const keys = mapKeys(s);
    const olds = Array.isArray(old) ? old : [];
    v.forEach((x, i) => {
      let o: Old = ABSENT;
      if (keys && isObject(x)) {
        const match = olds.find((y) => isObject(y) && keys.every((k) => y[k] === x[k]));
        if (match !== undefined) o = match;
      } else if (s['x-kubernetes-list-type'] === 'set' && olds.some((y) => JSON.stringify(y) === JSON.stringify(x))) o = x;
      walk(items, x, o, `${path}[${i}]`, errs);
    });
    return;
  }
  if (!isObject(v)) return;
  const oldObj = isObject(old) ? old : undefined;
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    walk(p, v[k], oldObj && k in oldObj ? oldObj[k] : ABSENT, path ? `${path}.${k}` : k, errs);
  }
  const values = s.properties ? undefined : valuesOf(s);
  if (values) for (const [k, x] of Object.entries(v)) walk(values, x, oldObj && k in oldObj ? oldObj[k] : ABSENT, `${path}[${k}]`, errs);
}

/** Whether any rule is declared anywhere in the schema (most CRDs have none: skip the walk). */
export function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (!s) return false;
  if (rulesOf(s).length) return true;
  const items = itemsOf(s);
  return Object.values(s.properties ?? {}).some(hasRules) || (!!items && hasRules(items)) || (!s.properties && hasRules(valuesOf(s)));
}

/** At the root, rules see only metadata.name and generateName of the metadata, as upstream. */
function rootView(o: unknown): unknown {
  if (!isObject(o) || !isObject(o.metadata)) return o;
  const { name, generateName } = o.metadata as { name?: string; generateName?: string };
  return { ...o, metadata: { ...(name !== undefined ? { name } : {}), ...(generateName !== undefined ? { generateName } : {}) } };
}

/** The failed rules of a custom resource; `old` is the stored object on updates. */
export function validationRuleErrors(schema: JSONSchemaProps, obj: unknown, old?: unknown): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, rootView(obj), old === undefined ? ABSENT : rootView(old), '', errs);
  return errs;
}

/** Upstream's limit on one rule's estimated cost times how often it may run (StaticEstimatedCostLimit). */
const RULE_COST_LIMIT = 10_000_000;

/** Upstream's limit on the summed estimated cost of every rule of one version's schema (StaticEstimatedCRDCostLimit). */
const CRD_COST_LIMIT = 100_000_000;
/** How many of the most expensive expressions upstream names when the total is over. */
const MOST_EXPENSIVE = 4;

export interface ExpressionCost { path: string; cost: number }

/**
 * Rules that do not compile, or whose estimated cost (times `cardinality`, how many values
 * of this schema one object may hold) exceeds the budget, for the CRD's own validation
 * (`<path>.x-kubernetes-validations[0].rule`); `costs` gets every expression's estimate.
 */
export function validationRuleCompileErrors(s: JSONSchemaProps | undefined, path: string, cardinality = 1, costs: ExpressionCost[] = []): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  rulesOf(s).forEach((r, i) => {
    const p = `${path}.x-kubernetes-validations[${i}]`;
    if (typeof r.rule !== 'string' || !r.rule.trim()) { errs.push({ type: 'FieldValueRequired', field: `${p}.rule`, message: '' }); return; }
    for (const [field, expr] of [['rule', r.rule], ['messageExpression', r.messageExpression]] as const) {
      if (expr === undefined) continue;
      let program;
      try { program = compile(expr, VARS); } catch (e) {
        if (e instanceof CompileError) errs.push({ type: 'FieldValueInvalid', field: `${p}.${field}`, message: `${JSON.stringify(r)}: ${e.message}` });
        continue;
      }
      const cost = estimateCost(program.expr, { self: s, oldSelf: s }) * cardinality;
      costs.push({ path: `${p}.${field}`, cost });
      if (cost > RULE_COST_LIMIT) {
        const name = field === 'rule' ? 'estimated rule cost' : 'estimated messageExpression cost';
        errs.push({ type: 'FieldValueForbidden', field: `${p}.${field}`, message: costErrorMessage(name, cost, RULE_COST_LIMIT) });
      }
    }
    if (r.optionalOldSelf && !isTransition(r)) errs.push({ type: 'FieldValueForbidden', field: `${p}.optionalOldSelf`, message: 'may not be set if rule does not use oldSelf' });
    const reasons = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'];
    if (r.reason !== undefined && !reasons.includes(r.reason)) errs.push({ type: 'FieldValueNotSupported', field: `${p}.reason`, message: `${JSON.stringify(r.reason)}: supported values: ${reasons.map((x) => JSON.stringify(x)).join(', ')}` });
  });
  for (const [k, p] of Object.entries(s.properties ?? {})) errs.push(...validationRuleCompileErrors(p, `${path}.properties[${k}]`, cardinality, costs));
  const items = itemsOf(s);
  if (items) errs.push(...validationRuleCompileErrors(items, `${path}.items`, cardinality * maxSize(s), costs));
  if (!s.properties && typeof s.additionalProperties === 'object') errs.push(...validationRuleCompileErrors(s.additionalProperties as JSONSchemaProps, `${path}.additionalProperties`, cardinality * maxSize(s), costs));
  return errs;
}

/**
 * A version's schema as the CRD's validation sees it: each rule's errors, then, when the
 * estimates of all its expressions together exceed upstream's per-CRD limit, upstream's
 * Forbidden on the (at most four) most expensive expressions and on the schema itself.
 */
export function schemaRuleErrors(s: JSONSchemaProps | undefined, path: string): FieldError[] {
  const costs: ExpressionCost[] = [];
  const errs = validationRuleCompileErrors(s, path, 1, costs);
  const total = costs.reduce((n, c) => n + c.cost, 0);
  if (total <= CRD_COST_LIMIT) return errs;
  const expensive = [...costs].sort((a, b) => b.cost - a.cost).slice(0, MOST_EXPENSIVE);
  for (const e of expensive) errs.push({ type: 'FieldValueForbidden', field: e.path, message: 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema' });
  errs.push({ type: 'FieldValueForbidden', field: path, message: costErrorMessage('x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema', total, CRD_COST_LIMIT) });
  return errs;
}
