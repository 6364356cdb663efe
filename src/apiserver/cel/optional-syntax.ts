// CEL's optional syntax (cel-go's parser with optional syntax enabled): field selection and
// indexing (`a.?b`, `a[?k]`) and optional entries in list and map literals (`[?x, y]`,
// `{?k: v}`). @bufbuild/cel 0.6.1's parser has none of it, and its planner's optionals are not
// this package's (library/optional.ts). So every `?` of that syntax is blanked before parsing
// (same length: every position the parser reports stays true) and remembered by offset; the
// parsed selects and indexes at those offsets become calls of the optional library (a select
// or index applied to an optional is optional too, as in cel-go: `a.?b.c` is an optional), and
// a literal with optional entries becomes a call that keeps the entries whose optional has a
// value. Comments (`// …` to the end of the line) are blanked too: the package's parser wants
// a line break after one, which the last line of an expression lacks.
import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];
type SourceInfo = NonNullable<ReturnType<typeof parse>['sourceInfo']>;

export const OPTIONAL_SELECT = '@optional_select';
export const OPTIONAL_INDEX = '@optional_index';
export const OPTIONAL_LIST = '@optional_list';
export const OPTIONAL_MAP = '@optional_map';

export interface Marked {
  source: string;
  /** Offsets of the `.` of each `.?` and the `[` of each `[?` index. */
  marks: Set<number>;
  /** Offsets of the `?` before an optional entry of a list or map literal. */
  entries: Set<number>;
}

/** Blanks comments and the `?` of `.?`, `[?` and optional literal entries, outside string literals. */
export function markOptionalSyntax(expression: string): Marked {
  const chars = [...expression];
  const marks = new Set<number>();
  const entries = new Set<number>();
  // Offsets are UTF-16 code units, as the parser counts them.
  let offset = 0;
  // The last character outside whitespace, comments and literals: whether a `[` opens a list.
  let last = '';
  const at = (i: number) => chars[i] ?? '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '/' && at(i + 1) === '/') {
      for (; i < chars.length && chars[i] !== '\n'; i++) { offset += chars[i].length; chars[i] = ' '.repeat(chars[i].length); }
      offset += at(i).length;
      continue;
    }
    if (c === '"' || c === '\'') {
      const raw = /[rR]/.test(at(i - 1)) || (/[rR]/.test(at(i - 2)) && /[bB]/.test(at(i - 1)));
      const triple = at(i + 1) === c && at(i + 2) === c;
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < chars.length && chars.slice(j, j + quote.length).join('') !== quote) j += !raw && chars[j] === '\\' ? 2 : 1;
      j = Math.min(chars.length, j + quote.length);
      for (; i < j; i++) offset += chars[i].length;
      i--;
      last = c;
      continue;
    }
    if (c === '?' && (last === ',' || last === '{' || last === 'list[')) {
      entries.add(offset);
      chars[i] = ' ';
    } else if ((c === '.' || c === '[') && at(i + 1) === '?' && !(c === '[' && opensLiteral(last, chars, i))) {
      marks.add(offset);
      chars[i + 1] = ' ';
    }
    if (!/\s/.test(c)) last = c === '[' && opensLiteral(last, chars, i) ? 'list[' : c;
    offset += c.length;
  }
  return { source: chars.join(''), marks, entries };
}

/** Whether the `[` at `i`, after the character `last`, starts a list literal rather than an index. */
function opensLiteral(last: string, chars: string[], i: number): boolean {
  if (last === '' || last === 'list[' || /[-+*/%!=<>&|,([{:?]/.test(last)) return true;
  // After the operator `in` (`x in [?a]`).
  let j = i - 1;
  while (j >= 0 && /\s/.test(chars[j])) j--;
  return chars[j] === 'n' && chars[j - 1] === 'i' && !/[\w.]/.test(chars[j - 2] ?? '');
}

const stringConst = (id: bigint, value: string): Expr => ({ id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'stringValue', value } } } }) as unknown as Expr;

const intConst = (id: bigint, value: number): Expr => ({ id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'int64Value', value: BigInt(value) } } } }) as unknown as Expr;
const list = (id: bigint, elements: Expr[]): Expr => ({ id, exprKind: { case: 'listExpr', value: { elements, optionalIndices: [] } } }) as unknown as Expr;

/** The lowest and highest source offsets of the parts of `x`. */
function span(x: Expr | undefined, info: SourceInfo | undefined, out = { min: Infinity, max: -Infinity }): { min: number; max: number } {
  if (!x) return out;
  const p = info?.positions[x.id.toString()];
  if (p !== undefined) { out.min = Math.min(out.min, p); out.max = Math.max(out.max, p); }
  const k = x.exprKind;
  const kids: (Expr | undefined)[] = k.case === 'selectExpr' ? [k.value.operand]
    : k.case === 'callExpr' ? [k.value.target, ...k.value.args]
      : k.case === 'listExpr' ? k.value.elements
        : k.case === 'structExpr' ? k.value.entries.flatMap((en) => [en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined, en.value])
          : k.case === 'comprehensionExpr' ? [k.value.iterRange, k.value.accuInit, k.value.loopStep, k.value.result] : [];
  for (const c of kids) span(c, info, out);
  return out;
}

/**
 * Rewrites the marked selects and indexes (and those applied to their results), and the
 * literals with marked entries, in place; returns errors for marks that were none of these.
 */
export function desugarOptionals(root: Expr, info: SourceInfo | undefined, marks: ReadonlySet<number>, nextId: { n: bigint }, entries: ReadonlySet<number> = new Set()): string[] {
  if (!marks.size && !entries.size) return [];
  const used = new Set<number>();
  const usedEntries = new Set<number>();
  /** Indexes of the parts whose source is preceded by an entry mark after the previous part (or the literal's opening). */
  const optionalParts = (x: Expr, parts: Expr[]): number[] => {
    const out: number[] = [];
    let lower = info?.positions[x.id.toString()] ?? -1;
    parts.forEach((part, i) => {
      const { min, max } = span(part, info);
      for (const m of entries) {
        if (m > lower && m < min && !usedEntries.has(m)) { usedEntries.add(m); out.push(i); break; }
      }
      lower = Math.max(lower, max);
    });
    return out;
  };
  const id = () => ++nextId.n;
  const marked = (x: Expr): boolean => {
    const p = info?.positions[x.id.toString()];
    if (p === undefined || !marks.has(p)) return false;
    used.add(p);
    return true;
  };
  const isOptional = (x: Expr | undefined): boolean => x?.exprKind.case === 'callExpr' && (x.exprKind.value.function === OPTIONAL_SELECT || x.exprKind.value.function === OPTIONAL_INDEX);
  const visit = (x: Expr | undefined): void => {
    if (!x) return;
    const k = x.exprKind;
    switch (k.case) {
      case 'selectExpr': {
        visit(k.value.operand);
        if (k.value.testOnly) return;
        if (marked(x) || isOptional(k.value.operand)) {
          nextId.n++;
          (x as { exprKind: unknown }).exprKind = { case: 'callExpr', value: { function: OPTIONAL_SELECT, args: [k.value.operand, stringConst(nextId.n, k.value.field)] } };
        }
        return;
      }
      case 'callExpr':
        visit(k.value.target);
        for (const a of k.value.args) visit(a);
        if (k.value.function === '_[_]' && !k.value.target && (marked(x) || isOptional(k.value.args[0]))) k.value.function = OPTIONAL_INDEX;
        return;
      case 'listExpr': {
        for (const a of k.value.elements) visit(a);
        const optional = entries.size ? optionalParts(x, k.value.elements) : [];
        if (optional.length) {
          (x as { exprKind: unknown }).exprKind = { case: 'callExpr', value: { function: OPTIONAL_LIST, args: [list(id(), k.value.elements), list(id(), optional.map((i) => intConst(id(), i)))] } };
        }
        return;
      }
      case 'structExpr': {
        for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') visit(en.keyKind.value); visit(en.value); }
        const keyed = k.value.entries.filter((en) => en.keyKind.case === 'mapKey');
        if (!entries.size || k.value.messageName || keyed.length !== k.value.entries.length) return;
        const optional = optionalParts(x, keyed.map((en) => en.keyKind.value as Expr));
        if (optional.length) {
          const keys = keyed.map((en) => en.keyKind.value as Expr);
          const values = keyed.map((en) => en.value as Expr);
          (x as { exprKind: unknown }).exprKind = { case: 'callExpr', value: { function: OPTIONAL_MAP, args: [list(id(), keys), list(id(), values), list(id(), optional.map((i) => intConst(id(), i)))] } };
        }
        return;
      }
      case 'comprehensionExpr': {
        const c = k.value;
        for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) visit(e);
        return;
      }
      default:
    }
  };
  visit(root);
  const errs: string[] = [];
  for (const p of [...entries].filter((m) => !usedEntries.has(m)).sort((a, b) => a - b)) {
    errs.push(`ERROR: ${sourcePosition(info, p)}: Syntax error: mismatched input '?'`);
  }
  for (const p of [...marks].filter((m) => !used.has(m)).sort((a, b) => a - b)) {
    errs.push(`ERROR: ${sourcePosition(info, p)}: Syntax error: unsupported optional syntax`);
  }
  return errs;
}

/** `<input>:line:column` of an offset, as cel-go reports positions. */
export function sourcePosition(info: SourceInfo | undefined, offset: number): string {
  let line = 1; let start = 0;
  for (const o of info?.lineOffsets ?? []) { if (o <= offset) { line++; start = o; } }
  return `<input>:${line}:${offset - start + 1}`;
}
