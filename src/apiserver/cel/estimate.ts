// A static cost estimate of a CEL expression from the sizes its variables' schemas allow, as
// kube-apiserver refuses CRD validation rules whose estimate exceeds a budget. Simplified
// from cel-go's estimator: every call and select costs 1, string scans a tenth of the
// string's length, and a comprehension its iteration count times its loop's cost. Sizes come
// from maxItems, maxProperties and maxLength, or, unbounded, from the largest request
// (3 MiB) divided by the smallest serialized element, as upstream. Estimates are meant to stay at or
// below upstream's for the same rule (so a rule upstream accepts is accepted here); the
// factor reported may be lower than upstream's.
import type { parse } from '@bufbuild/cel';
import { OPTIONAL_INDEX, OPTIONAL_SELECT } from './optional-syntax.js';

type Expr = ReturnType<typeof parse>['expr'];

export interface SizedSchema {
  type?: string;
  properties?: Record<string, SizedSchema>;
  items?: SizedSchema | SizedSchema[];
  additionalProperties?: SizedSchema | boolean;
  maxItems?: number;
  maxProperties?: number;
  maxLength?: number;
}

const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const STRING_SCANS = new Set(['contains', 'startsWith', 'endsWith', 'matches', 'find', 'findAll', 'indexOf', 'lastIndexOf', 'replace', 'split', 'lowerAscii', 'upperAscii', 'trim']);

const itemsOf = (s: SizedSchema | undefined): SizedSchema | undefined => (s?.items && !Array.isArray(s.items) ? s.items : undefined);
const valuesOf = (s: SizedSchema | undefined): SizedSchema | undefined => (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);

/** The smallest JSON a value of the schema serializes to, in bytes. */
function minSerialized(s: SizedSchema | undefined): number {
  switch (s?.type) {
    case 'string': return 2;
    case 'boolean': return 4;
    case 'integer': case 'number': return 1;
    default: return 2;
  }
}

/** The most elements (or characters) a value of the schema may have. */
export function maxSize(s: SizedSchema | undefined): number {
  if (!s) return Math.floor((MAX_REQUEST_BYTES - 2) / 3);
  if (s.type === 'array') return s.maxItems ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSerialized(itemsOf(s)) + 1));
  if (s.type === 'string') return s.maxLength ?? MAX_REQUEST_BYTES - 2;
  if (s.type === 'object' && s.properties && !valuesOf(s)) return Object.keys(s.properties).length;
  return s.maxProperties ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSerialized(valuesOf(s)) + 4));
}

interface Est { cost: number; schema?: SizedSchema }

function child(s: SizedSchema | undefined, field?: string): SizedSchema | undefined {
  if (!s) return undefined;
  if (s.type === 'array') return itemsOf(s);
  return (field !== undefined ? s.properties?.[field] : undefined) ?? valuesOf(s);
}

/** The estimated worst-case cost of `expr` with `vars` of these schemas. */
export function estimateCost(expr: Expr, vars: Record<string, SizedSchema | undefined>): number {
  const visit = (x: Expr | undefined, scope: Record<string, SizedSchema | undefined>): Est => {
    if (!x) return { cost: 0 };
    const k = x.exprKind;
    switch (k.case) {
      case 'constExpr': return { cost: 0 };
      case 'identExpr': return { cost: 1, schema: scope[k.value.name] };
      case 'selectExpr': {
        const o = visit(k.value.operand, scope);
        return { cost: o.cost + 1, schema: child(o.schema, k.value.field) };
      }
      case 'callExpr': {
        const fn = k.value.function;
        const target = k.value.target ? visit(k.value.target, scope) : undefined;
        const args = k.value.args.map((a) => visit(a, scope));
        const cost = (target?.cost ?? 0) + args.reduce((n, a) => n + a.cost, 0);
        if (fn === '@cost') return { cost, schema: args[0]?.schema };
        if (fn === '_[_]' || fn === OPTIONAL_INDEX) return { cost: cost + 1, schema: child(args[0]?.schema) };
        if (fn === OPTIONAL_SELECT) {
          const f = k.value.args[1]?.exprKind;
          return { cost: cost + 1, schema: child(args[0]?.schema, f?.case === 'constExpr' && f.value.constantKind.case === 'stringValue' ? f.value.constantKind.value : undefined) };
        }
        if (STRING_SCANS.has(fn) && target?.schema?.type === 'string') return { cost: cost + 1 + Math.ceil(0.1 * maxSize(target.schema)) };
        return { cost: cost + 1 };
      }
      case 'listExpr': {
        const els = k.value.elements.map((e) => visit(e, scope));
        return { cost: 10 + els.reduce((n, e) => n + e.cost, 0), schema: { type: 'array', maxItems: els.length } };
      }
      case 'structExpr': {
        let cost = 30;
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') cost += visit(en.keyKind.value, scope).cost;
          cost += visit(en.value, scope).cost;
        }
        return { cost };
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const range = visit(c.iterRange, scope);
        const n = maxSize(range.schema);
        const init = visit(c.accuInit, scope);
        const growing = c.accuInit?.exprKind.case === 'listExpr';
        const accu: SizedSchema | undefined = growing ? { type: 'array', maxItems: n } : init.schema;
        const iter = range.schema?.type === 'array' ? itemsOf(range.schema) : { type: 'string' };
        const inner = { ...scope, [c.iterVar]: iter, [c.accuVar]: accu };
        const loop = visit(c.loopCondition, inner).cost + visit(c.loopStep, inner).cost;
        const result = visit(c.result, { ...scope, [c.accuVar]: accu });
        return { cost: range.cost + init.cost + n * loop + result.cost, schema: result.schema };
      }
      default: return { cost: 1 };
    }
  };
  return visit(expr, vars).cost;
}

/** Upstream's words for an estimate over its limit. */
export function costErrorMessage(name: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
