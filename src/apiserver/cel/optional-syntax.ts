// CEL's optional field selection and indexing (`a.?b`, `a[?k]`, as cel-go's parser with
// optional syntax enabled): @bufbuild/cel 0.6.1's parser has no such syntax, and its planner's
// own optional select has no optional type to return. So the two `?` are blanked before
// parsing (same length: every position the parser reports stays true), remembered by the
// offset of their `.` or `[`, and the parsed selects and indexes at those offsets become
// calls of this package's optional library (library/optional.ts). A select or index applied
// to an optional is optional too, as in cel-go (`a.?b.c` is an optional).
// Not supported: optional entries in list and map literals (`[?x]`, `{?k: v}`), refused as
// a syntax error.
import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];
type SourceInfo = NonNullable<ReturnType<typeof parse>['sourceInfo']>;

export const OPTIONAL_SELECT = '@optional_select';
export const OPTIONAL_INDEX = '@optional_index';

export interface Marked {
  source: string;
  /** Offsets of the `.` of each `.?` and the `[` of each `[?`. */
  marks: Set<number>;
}

/** Blanks the `?` of `.?` and `[?` outside string literals and comments. */
export function markOptionalSyntax(expression: string): Marked {
  const chars = [...expression];
  const marks = new Set<number>();
  // Offsets are UTF-16 code units, as the parser counts them.
  let offset = 0;
  const at = (i: number) => chars[i] ?? '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '/' && at(i + 1) === '/') {
      while (i < chars.length && chars[i] !== '\n') offset += chars[i++].length;
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
      continue;
    }
    if ((c === '.' || c === '[') && at(i + 1) === '?') {
      marks.add(offset);
      chars[i + 1] = ' ';
    }
    offset += c.length;
  }
  return { source: chars.join(''), marks };
}

const stringConst = (id: bigint, value: string): Expr => ({ id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'stringValue', value } } } }) as unknown as Expr;

/**
 * Rewrites the marked selects and indexes (and those applied to their results) in place;
 * returns errors for marks that were not a select or an index.
 */
export function desugarOptionals(root: Expr, info: SourceInfo | undefined, marks: ReadonlySet<number>, nextId: { n: bigint }): string[] {
  if (!marks.size) return [];
  const used = new Set<number>();
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
      case 'listExpr': for (const a of k.value.elements) visit(a); return;
      case 'structExpr': for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') visit(en.keyKind.value); visit(en.value); } return;
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
  for (const p of [...marks].filter((m) => !used.has(m)).sort((a, b) => a - b)) {
    errs.push(`ERROR: ${sourcePosition(info, p)}: Syntax error: unsupported optional syntax (only optional field selection '.?' and indexing '[?' are supported)`);
  }
  return errs;
}

/** `<input>:line:column` of an offset, as cel-go reports positions. */
export function sourcePosition(info: SourceInfo | undefined, offset: number): string {
  let line = 1; let start = 0;
  for (const o of info?.lineOffsets ?? []) { if (o <= offset) { line++; start = o; } }
  return `<input>:${line}:${offset - start + 1}`;
}
