// A static type check of a compiled expression against the types of its variables, as
// cel-go's checker reports what it finds with ValidatingAdmissionPolicy's typed environment:
// a field a schema does not declare (`undefined field 'replicas'`), an operator or string
// method applied to primitive types it has no overload for (`found no matching overload for
// '_<=_' applied to '(int, string)'`), a select on a primitive. Whatever is `dyn` (unknown
// schemas, int-or-string, preserved fields) passes, so a finding is always one cel-go would
// report too; cel-go may report more (result types, function signatures beyond these).
import type { parse } from '@bufbuild/cel';
import { OPTIONAL_INDEX, OPTIONAL_LIST, OPTIONAL_MAP, OPTIONAL_SELECT, sourcePosition } from './optional-syntax.js';
import type { Program } from './compile.js';

type Expr = ReturnType<typeof parse>['expr'];

export type CelType =
  | { k: 'dyn' }
  | { k: 'prim'; name: 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'null_type' | 'google.protobuf.Timestamp' | 'google.protobuf.Duration' }
  | { k: 'list'; elem: CelType }
  | { k: 'map'; key: CelType; val: CelType }
  /** An object of known fields; `field` answers undefined for a field it does not declare. */
  | { k: 'object'; field(name: string): CelType | undefined };

export const DYN: CelType = { k: 'dyn' };
const prim = (name: Extract<CelType, { k: 'prim' }>['name']): CelType => ({ k: 'prim', name });
const BOOL = prim('bool'); const INT = prim('int'); const STRING = prim('string');

export function typeString(t: CelType): string {
  switch (t.k) {
    case 'prim': return t.name;
    case 'list': return `list(${typeString(t.elem)})`;
    case 'map': return `map(${typeString(t.key)}, ${typeString(t.val)})`;
    case 'object': return 'object';
    default: return 'dyn';
  }
}

const NUMERIC = new Set(['int', 'uint', 'double']);
const COMPARISONS = new Set(['_<_', '_<=_', '_>_', '_>=_']);
const STRING_METHODS = new Set(['startsWith', 'endsWith', 'contains', 'matches', 'lowerAscii', 'upperAscii', 'trim', 'split', 'replace', 'indexOf', 'lastIndexOf', 'substring', 'charAt', 'find', 'findAll']);
const CONVERSIONS: Record<string, CelType> = { int: INT, uint: prim('uint'), double: prim('double'), string: STRING, bool: BOOL, bytes: prim('bytes'), timestamp: prim('google.protobuf.Timestamp'), duration: prim('google.protobuf.Duration') };
const ARITHMETIC: Record<string, string[]> = {
  '_+_': ['int', 'uint', 'double', 'string', 'bytes', 'google.protobuf.Duration'],
  '_-_': ['int', 'uint', 'double', 'google.protobuf.Duration'],
  '_*_': ['int', 'uint', 'double'], '_/_': ['int', 'uint', 'double'], '_%_': ['int', 'uint'],
};

/** The category `==` compares within: the numbers are one (heterogeneous equality). */
const category = (n: string) => (NUMERIC.has(n) ? 'number' : n);

export interface TypeIssue { offset: number; message: string }

/** The issues cel-go's checker would find, in source order, worded as cel-go. */
export function typeCheck(p: Program, vars: Record<string, CelType>): TypeIssue[] {
  return check(p, vars).issues;
}

/** The type of the expression's result (dyn where the checker cannot tell). */
export function typeOf(p: Program, vars: Record<string, CelType>): CelType {
  return check(p, vars).type;
}

function check(p: Program, vars: Record<string, CelType>): { issues: TypeIssue[]; type: CelType } {
  const issues: TypeIssue[] = [];
  const pos = (x: Expr) => p.sourceInfo?.positions[x.id.toString()] ?? 0;
  const issue = (x: Expr, message: string) => issues.push({ offset: pos(x), message });
  const noOverload = (x: Expr, fn: string, args: CelType[]) => issue(x, `found no matching overload for '${fn}' applied to '(${args.map(typeString).join(', ')})'`);
  const isPrim = (t: CelType, ...names: string[]) => t.k === 'prim' && (names.length === 0 || names.includes(t.name));

  const fieldOf = (x: Expr, t: CelType, field: string): CelType => {
    if (t.k === 'object') {
      const f = t.field(field);
      if (!f) issue(x, `undefined field '${field}'`);
      return f ?? DYN;
    }
    if (t.k === 'map') return t.val;
    if (t.k === 'prim' || t.k === 'list') issue(x, `type '${typeString(t)}' does not support field selection`);
    return DYN;
  };

  const visit = (x: Expr | undefined, scope: Record<string, CelType>): CelType => {
    if (!x) return DYN;
    const k = x.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind.case;
        return c === 'int64Value' ? INT : c === 'uint64Value' ? prim('uint') : c === 'doubleValue' ? prim('double') : c === 'stringValue' ? STRING
          : c === 'boolValue' ? BOOL : c === 'bytesValue' ? prim('bytes') : c === 'nullValue' ? prim('null_type') : DYN;
      }
      case 'identExpr': return scope[k.value.name] ?? DYN;
      case 'selectExpr': {
        const t = visit(k.value.operand, scope);
        const f = fieldOf(x, t, k.value.field);
        return k.value.testOnly ? BOOL : f;
      }
      case 'listExpr': {
        const els = k.value.elements.map((e) => visit(e, scope));
        const same = els.length > 0 && els.every((e) => typeString(e) === typeString(els[0]));
        return { k: 'list', elem: same ? els[0] : DYN };
      }
      case 'structExpr':
        for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') visit(en.keyKind.value, scope); visit(en.value, scope); }
        return { k: 'map', key: DYN, val: DYN };
      case 'comprehensionExpr': {
        const c = k.value;
        const range = visit(c.iterRange, scope);
        const iter = range.k === 'list' ? range.elem : range.k === 'map' ? range.key : DYN;
        const accu = visit(c.accuInit, scope);
        const inner = { ...scope, [c.iterVar]: iter, [c.accuVar]: accu };
        visit(c.loopCondition, inner);
        visit(c.loopStep, inner);
        return visit(c.result, { ...scope, [c.accuVar]: accu });
      }
      case 'callExpr': return call(x, k.value, scope);
      default: return DYN;
    }
  };

  const call = (x: Expr, c: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'], scope: Record<string, CelType>): CelType => {
    const fn = c.function;
    if (fn === OPTIONAL_SELECT) {
      const on = visit(c.args[0], scope);
      const f = c.args[1]?.exprKind;
      if (f?.case === 'constExpr' && f.value.constantKind.case === 'stringValue') fieldOf(x, on, f.value.constantKind.value);
      return DYN;
    }
    const target = c.target ? visit(c.target, scope) : undefined;
    const args = c.args.map((a) => visit(a, scope));
    const [a, b] = args;
    if (fn === '@cost') return a ?? DYN;
    if (fn === OPTIONAL_INDEX || fn === OPTIONAL_LIST || fn === OPTIONAL_MAP) return DYN;
    if (fn === '_[_]') return a.k === 'list' ? a.elem : a.k === 'map' ? a.val : DYN;
    if (fn === '_&&_' || fn === '_||_') {
      if (args.some((t) => t.k !== 'dyn' && !isPrim(t, 'bool'))) noOverload(x, fn, args);
      return BOOL;
    }
    if (fn === '!_') { if (a.k !== 'dyn' && !isPrim(a, 'bool')) noOverload(x, fn, args); return BOOL; }
    if (fn === '-_') { if (a.k === 'prim' && !['int', 'double'].includes(a.name)) noOverload(x, fn, args); return a; }
    if (fn === '_?_:_') {
      if (a.k !== 'dyn' && !isPrim(a, 'bool')) noOverload(x, fn, args);
      return typeString(args[1]) === typeString(args[2]) ? args[1] : DYN;
    }
    if (COMPARISONS.has(fn)) {
      if (a.k === 'prim' && b.k === 'prim' && a.name !== b.name && !(NUMERIC.has(a.name) && NUMERIC.has(b.name))) noOverload(x, fn, args);
      return BOOL;
    }
    if (fn === '_==_' || fn === '_!=_') {
      if (a.k === 'prim' && b.k === 'prim' && a.name !== 'null_type' && b.name !== 'null_type' && category(a.name) !== category(b.name)) noOverload(x, fn, args);
      return BOOL;
    }
    if (ARITHMETIC[fn]) {
      if (fn === '_+_' && a.k === 'list' && b.k === 'list') return { k: 'list', elem: typeString(a.elem) === typeString(b.elem) ? a.elem : DYN };
      if (a.k === 'prim' && b.k === 'prim') {
        const time = 'google.protobuf.Timestamp'; const dur = 'google.protobuf.Duration';
        if (a.name === b.name && ARITHMETIC[fn].includes(a.name)) return a;
        if (fn === '_+_' && ((a.name === time && b.name === dur) || (a.name === dur && b.name === time))) return prim(time);
        if (fn === '_-_' && a.name === time && (b.name === dur || b.name === time)) return prim(b.name === time ? dur : time);
        noOverload(x, fn, args);
      }
      return DYN;
    }
    if (target && STRING_METHODS.has(fn) && target.k === 'prim' && target.name !== 'string') {
      issue(x, `found no matching overload for '${fn}' applied to '${typeString(target)}.(${args.map(typeString).join(', ')})'`);
      return DYN;
    }
    if (fn === 'size') return INT;
    if (fn === '@in' || fn === 'matches' || fn === 'startsWith' || fn === 'endsWith' || fn === 'contains' || fn === 'exists' || fn === 'all') return BOOL;
    if (!target && CONVERSIONS[fn]) return CONVERSIONS[fn];
    return DYN;
  };

  const type = visit(p.expr, vars);
  return { issues: issues.sort((x, y) => x.offset - y.offset), type };
}

/** cel-go's display of issues: `ERROR: <input>:L:C: message` with the source line and a caret under the column. */
export function formatIssues(p: Program, issues: TypeIssue[]): string {
  const lines = p.expression.split('\n');
  return issues.map((i) => {
    const where = sourcePosition(p.sourceInfo, i.offset);
    const [, line, col] = /:(\d+):(\d+)$/.exec(where)!.map(Number);
    return `ERROR: ${where}: ${i.message}\n | ${lines[line - 1] ?? ''}\n | ${'.'.repeat(col - 1)}^`;
  }).join('\n');
}
