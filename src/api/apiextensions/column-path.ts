// Printer-column paths: the part of client-go's JSONPath that CRD authors write in
// `additionalPrinterColumns` — fields, indexes, slices, wildcards, recursive descent and
// filters such as `.status.conditions[?(@.type=="Ready")].status`. A column shows the first
// match, as upstream's table convertor does.
import { isObject } from './structural.js';

type Comparison = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type Step =
  | { kind: 'field'; name: string }
  | { kind: 'descend'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number; step?: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: Step[]; op?: Comparison; value?: string | number | boolean };

const IDENT = /^[A-Za-z0-9_$-]+/;
const LITERAL = /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(-?\d+(?:\.\d+)?)|(true|false))\s*$/;

/** The steps of a column path, or null when it does not parse. */
export function compileColumnPath(path: string): Step[] | null {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (p.startsWith('$')) p = p.slice(1);
  const steps = parseSteps(p);
  return steps && steps.length ? steps : null;
}

function parseSteps(src: string): Step[] | null {
  const steps: Step[] = [];
  let p = src;
  while (p.length) {
    if (p.startsWith('..')) {
      const m = /^\.\.(\*|[A-Za-z0-9_$-]+)/.exec(p);
      if (!m) return null;
      steps.push({ kind: 'descend', name: m[1] });
      p = p.slice(m[0].length);
    } else if (p.startsWith('.*')) {
      steps.push({ kind: 'wildcard' });
      p = p.slice(2);
    } else if (p.startsWith('.')) {
      const m = IDENT.exec(p.slice(1));
      if (!m) return null;
      steps.push({ kind: 'field', name: m[0] });
      p = p.slice(1 + m[0].length);
    } else if (p.startsWith('[')) {
      const end = closingBracket(p);
      if (end < 0) return null;
      const step = parseBracket(p.slice(1, end).trim());
      if (!step) return null;
      steps.push(step);
      p = p.slice(end + 1);
    } else {
      return null;
    }
  }
  return steps;
}

/** Index of the `]` closing the `[` at 0, skipping quoted text and nested parentheses. */
function closingBracket(p: string): number {
  let quote = '';
  let depth = 0;
  for (let i = 1; i < p.length; i++) {
    const c = p[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ']' && depth === 0) return i;
  }
  return -1;
}

function parseBracket(inner: string): Step | null {
  if (inner === '*') return { kind: 'wildcard' };
  if (inner.startsWith('?(') && inner.endsWith(')')) return parseFilter(inner.slice(2, -1).trim());
  const quoted = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')$/.exec(inner);
  if (quoted) return { kind: 'field', name: unescape(quoted[1] ?? quoted[2]) };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const slice = /^(-?\d+)?:(-?\d+)?(?::(-?\d+))?$/.exec(inner);
  if (slice) {
    const n = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));
    return { kind: 'slice', start: n(slice[1]), end: n(slice[2]), step: n(slice[3]) };
  }
  return null;
}

function parseFilter(expr: string): Step | null {
  const m = /^@((?:\.[A-Za-z0-9_$-]+|\[[^\]]*\])*)\s*(?:(==|!=|<=|>=|<|>)(.*))?$/.exec(expr);
  if (!m) return null;
  const path = parseSteps(m[1]);
  if (!path) return null;
  if (!m[2]) return { kind: 'filter', path };
  const lit = LITERAL.exec(m[3]);
  if (!lit) return null;
  const value = lit[1] !== undefined ? unescape(lit[1]) : lit[2] !== undefined ? unescape(lit[2]) : lit[3] !== undefined ? Number(lit[3]) : lit[4] === 'true';
  return { kind: 'filter', path, op: m[2] as Comparison, value };
}

const unescape = (s: string): string => s.replace(/\\(.)/g, '$1');

/** Every value the steps reach from `root`, in document order. */
export function findAll(root: unknown, steps: Step[]): unknown[] {
  let nodes: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const node of nodes) apply(step, node, next);
    nodes = next;
    if (!nodes.length) break;
  }
  return nodes;
}

/** The first value the steps reach, or undefined. */
export function firstMatch(root: unknown, steps: Step[]): unknown {
  return findAll(root, steps)[0];
}

function children(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (isObject(node)) return Object.values(node);
  return [];
}

function apply(step: Step, node: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isObject(node) && step.name in node) out.push(node[step.name]);
      return;
    case 'wildcard':
      out.push(...children(node));
      return;
    case 'descend':
      descend(node, step.name, out);
      return;
    case 'index': {
      if (!Array.isArray(node)) return;
      const i = step.index < 0 ? node.length + step.index : step.index;
      if (i >= 0 && i < node.length) out.push(node[i]);
      return;
    }
    case 'slice': {
      if (!Array.isArray(node)) return;
      const len = node.length;
      const clamp = (v: number): number => Math.min(len, Math.max(0, v < 0 ? len + v : v));
      const from = clamp(step.start ?? 0);
      const to = clamp(step.end ?? len);
      const by = step.step && step.step > 0 ? step.step : 1;
      for (let i = from; i < to; i += by) out.push(node[i]);
      return;
    }
    case 'filter':
      for (const item of children(node)) if (holds(step, item)) out.push(item);
      return;
  }
}

function descend(node: unknown, name: string, out: unknown[]): void {
  if (name === '*') out.push(...children(node));
  else if (isObject(node) && name in node) out.push(node[name]);
  for (const child of children(node)) if (isObject(child) || Array.isArray(child)) descend(child, name, out);
}

function holds(f: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const found = findAll(item, f.path);
  if (!f.op) return found.length > 0;
  return found.some((v) => compare(v, f.op!, f.value!));
}

function compare(left: unknown, op: Comparison, right: string | number | boolean): boolean {
  if (typeof right === 'number') {
    if (typeof left !== 'number') return op === '!=';
    switch (op) {
      case '==': return left === right;
      case '!=': return left !== right;
      case '<': return left < right;
      case '<=': return left <= right;
      case '>': return left > right;
      case '>=': return left >= right;
    }
  }
  const same = typeof left === typeof right && left === right;
  if (op === '==') return same;
  if (op === '!=') return !same;
  return false;
}
