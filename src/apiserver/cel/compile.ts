// Compiling CEL: parse once per expression text and variable set (cached), refuse references
// to variables and functions the environment lacks as cel-go's checker would ("compilation
// failed: ERROR: <input>:1:1: undeclared reference to 'x'"), and thread a cost counter
// through every comprehension so evaluation is bounded (evaluate.ts).
import { celEnv, celFunc, CelScalar, parse, plan, type CelEnv, type CelResult, type CelInput } from '@bufbuild/cel';
import { kubernetesLibrary } from './library/index.js';
import { tick } from './cost.js';
import { cachedRegex } from './library/regex.js';
import { re2, RegexSyntaxError } from './library/re2.js';
import { desugarOptionals, markOptionalSyntax, sourcePosition } from './optional-syntax.js';
import { expandBind } from './bind.js';

type Expr = ReturnType<typeof parse>['expr'];
type SourceInfo = NonNullable<ReturnType<typeof parse>['sourceInfo']>;

export class CompileError extends Error {
  constructor(readonly detail: string) {
    super(`compilation failed: ${detail}`);
  }
}

export interface Program {
  readonly expression: string;
  /** Runs once; errors come back as CelError values, never thrown (evaluate.ts wraps it). */
  readonly run: (bindings: Record<string, CelInput>) => CelResult;
  /** The checked syntax tree, for the static cost estimate (estimate.ts). */
  readonly expr: Expr;
  /** Where each node of `expr` is in the expression (type check messages). */
  readonly sourceInfo?: SourceInfo;
}

const COST = '@cost';
const env: CelEnv = celEnv({
  funcs: [...kubernetesLibrary, celFunc(COST, [CelScalar.DYN], CelScalar.DYN, (v) => { tick(); return v; })],
  // The package's own RE2 builds an automaton on every matches() call; patterns are compiled once here.
  re2: { compile: cachedRegex },
});
// Type names are identifiers in CEL (`type(x) == string`).
const typeIdents = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);
// Operators the planner evaluates itself rather than through the function registry.
const plannerOps = new Set(['_[_]', '_[?_]', '_?._', '_?_:_', '_&&_', '_||_', '@not_strictly_false', '__not_strictly_false__']);

function position(info: SourceInfo | undefined, id: bigint): string {
  return sourcePosition(info, info?.positions[id.toString()] ?? 0);
}

/** Undeclared references, then the cost counter around each loop condition; mutates `e`. */
function check(e: Expr, declared: ReadonlySet<string>, info: SourceInfo | undefined, nextId: { n: bigint }): string[] {
  const errs: string[] = [];
  const walk = (x: Expr | undefined, scope: ReadonlySet<string>): void => {
    if (!x) return;
    const k = x.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (!scope.has(k.value.name) && !typeIdents.has(k.value.name)) errs.push(`ERROR: ${position(info, x.id)}: undeclared reference to '${k.value.name}' (in container '')`);
        return;
      case 'selectExpr': walk(k.value.operand, scope); return;
      case 'callExpr': {
        // A namespaced function (`optional.of`) is a call whose target is the namespace's name.
        const t = k.value.target?.exprKind;
        if (t?.case === 'identExpr' && !scope.has(t.value.name) && env.funcs.find(`${t.value.name}.${k.value.function}`)) {
          for (const a of k.value.args) walk(a, scope);
          return;
        }
        if (!plannerOps.has(k.value.function) && !env.funcs.find(k.value.function)) errs.push(`ERROR: ${position(info, x.id)}: undeclared reference to '${k.value.function}' (in container '')`);
        const regexErr = constantRegexError(k.value.function, k.value.target ? k.value.args[0] : k.value.args[1]);
        if (regexErr) errs.push(`ERROR: ${position(info, x.id)}: ${regexErr}`);
        walk(k.value.target, scope);
        for (const a of k.value.args) walk(a, scope);
        return;
      }
      case 'listExpr': for (const a of k.value.elements) walk(a, scope); return;
      case 'structExpr': for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') walk(en.keyKind.value, scope); walk(en.value, scope); } return;
      case 'comprehensionExpr': {
        const c = k.value;
        walk(c.iterRange, scope);
        walk(c.accuInit, scope);
        const inner = new Set([...scope, c.iterVar, c.accuVar]);
        walk(c.loopCondition, inner);
        walk(c.loopStep, inner);
        walk(c.result, new Set([...scope, c.accuVar]));
        if (c.loopCondition) {
          const cond = c.loopCondition;
          nextId.n++;
          c.loopCondition = { ...cond, id: nextId.n, exprKind: { case: 'callExpr', value: { ...cond.exprKind.value, function: COST, args: [cond], target: undefined } } } as Expr;
        }
        return;
      }
      default: return;
    }
  };
  walk(e, declared);
  return errs;
}

const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

/** A constant pattern RE2 refuses is refused when compiling, as cel-go compiles constant patterns ahead. */
function constantRegexError(fn: string, pattern: Expr | undefined): string | undefined {
  const k = pattern?.exprKind;
  if (!REGEX_FUNCTIONS.has(fn) || k?.case !== 'constExpr' || k.value.constantKind.case !== 'stringValue') return undefined;
  try {
    re2(k.value.constantKind.value);
    return undefined;
  } catch (e) {
    if (e instanceof RegexSyntaxError) return `invalid ${fn} argument: ${e.message}`;
    throw e;
  }
}

function maxId(e: Expr | undefined, max = 0n): bigint {
  if (!e) return max;
  let m = e.id > max ? e.id : max;
  const k = e.exprKind;
  const kids: (Expr | undefined)[] = k.case === 'selectExpr' ? [k.value.operand]
    : k.case === 'callExpr' ? [k.value.target, ...k.value.args]
      : k.case === 'listExpr' ? k.value.elements
        : k.case === 'structExpr' ? k.value.entries.flatMap((en) => [en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined, en.value])
          : k.case === 'comprehensionExpr' ? [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result] : [];
  for (const c of kids) m = maxId(c, m);
  return m;
}

// Per variable set, then by expression text; a caller's constant array finds its set without a join.
const byArray = new WeakMap<readonly string[], Map<string, Program | CompileError>>();
const bySet = new Map<string, Map<string, Program | CompileError>>();

function cacheFor(variables: readonly string[]): Map<string, Program | CompileError> {
  let cache = byArray.get(variables);
  if (!cache) {
    const key = [...variables].sort().join(',');
    cache = bySet.get(key) ?? bySet.set(key, new Map()).get(key)!;
    byArray.set(variables, cache);
  }
  return cache;
}
const CACHE_MAX = 4096;

/**
 * The program of an expression over these variables, from the cache when compiled before.
 * Throws CompileError (also cached) when it does not parse or names what is not declared.
 */
export function compile(expression: string, variables: readonly string[]): Program {
  const cache = cacheFor(variables);
  let p = cache.get(expression);
  if (!p) {
    p = build(expression, new Set(variables));
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(expression, p);
  }
  if (p instanceof CompileError) throw p;
  return p;
}

function build(expression: string, declared: ReadonlySet<string>): Program | CompileError {
  let parsed: ReturnType<typeof parse>;
  let marked: ReturnType<typeof markOptionalSyntax>;
  try {
    marked = markOptionalSyntax(expression);
    parsed = parse(marked.source);
  } catch (e) {
    return new CompileError(`ERROR: ${(e as Error).message.replace(/^(<input>:\d+:\d+): /, '$1: Syntax error: ')}`);
  }
  // The package leaves lineOffsets empty; positions on later lines need them (cel-go's: where each line after the first starts).
  if (parsed.sourceInfo && !parsed.sourceInfo.lineOffsets.length) {
    for (let i = expression.indexOf('\n'); i >= 0; i = expression.indexOf('\n', i + 1)) parsed.sourceInfo.lineOffsets.push(i + 1);
  }
  const nextId = { n: maxId(parsed.expr) };
  const syntaxErrs = [
    ...desugarOptionals(parsed.expr, parsed.sourceInfo, marked.marks, nextId, marked.entries),
    ...expandBind(parsed.expr, nextId, (id) => position(parsed.sourceInfo, id)),
  ];
  if (syntaxErrs.length) return new CompileError(syntaxErrs.join('\n'));
  const errs = check(parsed.expr, declared, parsed.sourceInfo, nextId);
  if (errs.length) return new CompileError(errs.join('\n'));
  try {
    return { expression, run: plan(env, parsed) as Program['run'], expr: parsed.expr, sourceInfo: parsed.sourceInfo };
  } catch (e) {
    return new CompileError(`ERROR: <input>:1:1: ${(e as Error).message}`);
  }
}
