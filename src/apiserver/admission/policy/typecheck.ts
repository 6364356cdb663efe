// Type checking of a ValidatingAdmissionPolicy, as upstream's type checker does it: every
// validation's expression and messageExpression is checked against the schema of each kind
// the policy's matchConstraints name (no wildcards, at most 10 group/version/resources in
// ascending order), with `params` typed by paramKind's schema, and what is found becomes
// `status.typeChecking.expressionWarnings` (`apps/v1, Kind=Deployment: ERROR: <input>:1:7:
// undefined field 'replicas'` with the source line and a caret). Type checking never changes
// what the policy does.
import type { Fields, KubeObject } from '../../../api/object.js';
import { schemaFor } from '../../../api/schemas.js';
import { resolve, type Schema } from '../../../api/schema.js';
import { compile, DYN, formatIssues, typeCheck, typeOf, type CelType } from '../../cel/index.js';
import { POLICY_VARIABLES } from '../../registry/admissionregistration/policies.js';

const MAX_TYPES = 10;

export interface ExpressionWarning { fieldRef: string; warning: string }

/** The CEL type of values of a schema, as Kubernetes declares it from OpenAPI. */
export function schemaType(schema: Schema | undefined, depth = 0): CelType {
  if (!schema || depth > 64) return DYN;
  let s: ReturnType<typeof resolve>;
  try { s = resolve(schema); } catch { return DYN; }
  switch (s.kind) {
    case 'string':
      return { k: 'prim', name: s.format === 'date-time' ? 'google.protobuf.Timestamp' : s.format === 'byte' ? 'bytes' : s.format === 'duration' ? 'google.protobuf.Duration' : 'string' };
    case 'integer': return { k: 'prim', name: 'int' };
    case 'number': return { k: 'prim', name: 'double' };
    case 'boolean': return { k: 'prim', name: 'bool' };
    case 'array': return { k: 'list', elem: schemaType(s.items, depth + 1) };
    case 'map': return { k: 'map', key: { k: 'prim', name: 'string' }, val: schemaType(s.values, depth + 1) };
    case 'object': {
      const props = s.properties;
      // An object the schema leaves open (no properties) may hold anything.
      if (!Object.keys(props).length) return DYN;
      return { k: 'object', field: (f) => (Object.hasOwn(props, f) ? schemaType(props[f], depth + 1) : undefined) };
    }
    default: return DYN;
  }
}

const object = (fields: Record<string, CelType>): CelType => ({ k: 'object', field: (f) => fields[f] });
const STRING: CelType = { k: 'prim', name: 'string' };
const gvkType = (last: string) => object({ group: STRING, version: STRING, [last]: STRING });

/** The `request` variable's type (admission.k8s.io AdmissionRequest). */
const REQUEST = object({
  uid: STRING, kind: gvkType('kind'), resource: gvkType('resource'), subResource: STRING,
  requestKind: gvkType('kind'), requestResource: gvkType('resource'), requestSubResource: STRING,
  name: STRING, namespace: STRING, operation: STRING,
  userInfo: object({ username: STRING, uid: STRING, groups: { k: 'list', elem: STRING }, extra: { k: 'map', key: STRING, val: { k: 'list', elem: STRING } } }),
  dryRun: { k: 'prim', name: 'bool' }, options: DYN,
});

interface Target { group: string; version: string; resource: string; kind: string }

/** The kind a group/version/resource is served as, or undefined when it is not served. */
export type KindOf = (group: string, version: string, resource: string) => string | undefined;

/** The kinds the policy's matchConstraints name exactly, in upstream's order and number. */
function targets(spec: Fields, kindOf: KindOf): Target[] {
  const seen = new Map<string, Omit<Target, 'kind'>>();
  for (const r of (spec.matchConstraints?.resourceRules ?? []) as Fields[]) {
    const lists = [r.apiGroups, r.apiVersions, r.resources] as (string[] | undefined)[];
    if (lists.some((l) => !l || l.some((x) => x.includes('*')))) continue;
    for (const group of r.apiGroups as string[]) for (const version of r.apiVersions as string[]) for (const res of r.resources as string[]) {
      if (res.includes('/')) continue;
      seen.set(`${group}/${version}/${res}`, { group, version, resource: res });
    }
  }
  const sorted = [...seen.values()].sort((a, b) => (a.group + '\0' + a.version + '\0' + a.resource < b.group + '\0' + b.version + '\0' + b.resource ? -1 : 1));
  const out: Target[] = [];
  for (const t of sorted.slice(0, MAX_TYPES)) {
    const kind = kindOf(t.group, t.version, t.resource);
    if (kind) out.push({ ...t, kind });
  }
  return out;
}

function kindType(group: string, version: string, kind: string): CelType {
  const s = schemaFor(group, version, kind);
  return s ? schemaType(s) : DYN;
}

/** The warnings of a policy's validations, checked against every kind it matches. */
export function typeCheckPolicy(policy: KubeObject, kindOf: KindOf): ExpressionWarning[] {
  const spec = (policy.spec ?? {}) as Fields;
  const kinds = targets(spec, kindOf);
  if (!kinds.length) return [];
  let params: CelType = DYN;
  if (spec.paramKind?.apiVersion && spec.paramKind?.kind) {
    const [g, v] = String(spec.paramKind.apiVersion).includes('/') ? String(spec.paramKind.apiVersion).split('/') : ['', spec.paramKind.apiVersion];
    params = kindType(g, v, spec.paramKind.kind);
  }
  const namespaceObject = kindType('', 'v1', 'Namespace');
  const expressions: { fieldRef: string; text: string }[] = [];
  ((spec.validations ?? []) as Fields[]).forEach((v, i) => {
    if (typeof v.expression === 'string') expressions.push({ fieldRef: `spec.validations[${i}].expression`, text: v.expression });
    if (typeof v.messageExpression === 'string' && v.messageExpression) expressions.push({ fieldRef: `spec.validations[${i}].messageExpression`, text: v.messageExpression });
  });
  const warnings: ExpressionWarning[] = [];
  const perKind = kinds.map((t) => {
    const obj = kindType(t.group, t.version, t.kind);
    const vars: Record<string, CelType> = { object: obj, oldObject: obj, params, request: REQUEST, namespaceObject, authorizer: DYN };
    // Variables are typed in order, each seeing the ones before it.
    const variableTypes: Record<string, CelType> = {};
    vars.variables = object(variableTypes);
    for (const v of (spec.variables ?? []) as Fields[]) {
      const p = tryCompile(v.expression);
      variableTypes[v.name] = p ? typeOf(p, vars) : DYN;
    }
    return { gvk: `${t.group}/${t.version}, Kind=${t.kind}`, vars };
  });
  for (const e of expressions) {
    const p = tryCompile(e.text);
    if (!p) continue;
    const found = perKind.map(({ gvk, vars }) => {
      const issues = typeCheck(p, vars);
      return issues.length ? `${gvk}: ${formatIssues(p, issues)}` : '';
    }).filter(Boolean);
    if (found.length) warnings.push({ fieldRef: e.fieldRef, warning: found.join('\n') });
  }
  return warnings;
}

function tryCompile(text: unknown) {
  if (typeof text !== 'string') return undefined;
  try { return compile(text, POLICY_VARIABLES); } catch { return undefined; }
}
