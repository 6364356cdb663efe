// RE2 patterns, as cel-go runs `matches` and Kubernetes' find/findAll with Go's regexp.
// @bufbuild/re2 (the RE2 port @bufbuild/cel ships) decides whether a pattern is valid, in Go's
// words (lookaround, backreferences, repeat counts over 1000 are refused), and answers
// `matches`. It cannot say where a match is, so find/findAll run a JavaScript RegExp translated
// from the pattern where the two differ: `.` and `\s` are ASCII-narrow in RE2, `^`/`$` under
// (?m) see only `\n`, inline and scoped flags (?i) (?s) (?m) (?U), (?P<name>), \Q…\E, \A, \z,
// \C, \pL, \x{…}, octal escapes, POSIX classes [[:alpha:]], literal `{`, `}` and `]`.
// Both engines pick the leftmost match and prefer alternatives in order, as Go does.
import { RE2JS } from '@bufbuild/re2';

export class RegexSyntaxError extends Error {}

export interface Re2 {
  /** Whether any part of `s` matches (Go's MatchString). */
  test(s: string): boolean;
  /** The leftmost non-overlapping matches, at most `limit` (all when negative). */
  findAll(s: string, limit: number): string[];
}

const cache = new Map<string, Re2 | RegexSyntaxError>();

/** The compiled pattern, cached by text; throws RegexSyntaxError with Go's message. */
export function re2(pattern: string): Re2 {
  let r = cache.get(pattern);
  if (!r) {
    r = build(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, r);
  }
  if (r instanceof RegexSyntaxError) throw r;
  return r;
}

function build(pattern: string): Re2 | RegexSyntaxError {
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(pattern);
  } catch (e) {
    return new RegexSyntaxError((e as Error).message);
  }
  let js: RegExp | undefined;
  return {
    test: (s) => engine.test(s),
    findAll(s, limit) {
      js ??= new RegExp(translate(pattern), 'gv');
      js.lastIndex = 0;
      const out: string[] = [];
      if (limit === 0) return out;
      for (const m of s.matchAll(js)) {
        out.push(m[0]);
        if (limit > 0 && out.length >= limit) break;
      }
      return out;
    },
  };
}

interface Flags { i: boolean; m: boolean; s: boolean; U: boolean }

const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
const SPACE = '\\t\\n\\f\\r ';
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7f', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f', digit: '0-9',
  graph: '\\x21-\\x7e', lower: 'a-z', print: '\\x20-\\x7e', punct: '\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e',
  space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

/** The code points `cp` folds with under (?i): itself, its upper and lower case. */
function folds(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const out = new Set([cp]);
  for (const v of [ch.toUpperCase(), ch.toLowerCase()]) if ([...v].length === 1) out.add(v.codePointAt(0)!);
  return [...out];
}

/** One literal code point, as class members (inside a class) or an atom. */
function literal(cp: number, f: Flags, inClass: boolean): string {
  const all = f.i ? folds(cp) : [cp];
  const one = (c: number) => (/[0-9A-Za-z]/.test(String.fromCodePoint(c)) ? String.fromCodePoint(c) : hex(c));
  if (inClass) return all.map(one).join('');
  return all.length > 1 ? `[${all.map(one).join('')}]` : one(cp);
}

function unicodeClass(name: string, negated: boolean): string {
  if (name === 'Any') return negated ? '[^\\s\\S]' : '[\\s\\S]';
  const prop = /^[A-Z][a-z]?$/.test(name) ? name : `Script=${name}`;
  return `\\${negated ? 'P' : 'p'}{${prop}}`;
}

/** An escape at `i` (the backslash): [translation, next index, code point when it is one character]. */
function escape(p: number[], i: number, f: Flags, inClass: boolean): [string, number, number?] {
  const c = String.fromCodePoint(p[i + 1]);
  const lit = (cp: number, next: number): [string, number, number] => [literal(cp, f, inClass), next, cp];
  switch (c) {
    case 'A': return ['(?<![\\s\\S])', i + 2];
    case 'z': return ['(?![\\s\\S])', i + 2];
    case 'C': return [inClass ? '\\s\\S' : '[\\s\\S]', i + 2];
    case 's': return [inClass ? SPACE : `[${SPACE}]`, i + 2];
    case 'S': return [`[^${SPACE}]`, i + 2];
    case 'd': case 'D': case 'w': case 'W': case 'b': case 'B': return [`\\${c}`, i + 2];
    case 'a': return lit(7, i + 2);
    case 'f': return lit(12, i + 2);
    case 'n': return lit(10, i + 2);
    case 'r': return lit(13, i + 2);
    case 't': return lit(9, i + 2);
    case 'v': return lit(11, i + 2);
    case 'p': case 'P': {
      let j = i + 2;
      let name: string;
      if (p[j] === 0x7b) { const end = p.indexOf(0x7d, j); name = String.fromCodePoint(...p.slice(j + 1, end)); j = end + 1; } else { name = String.fromCodePoint(p[j]); j++; }
      let negated = c === 'P';
      if (name.startsWith('^')) { negated = !negated; name = name.slice(1); }
      return [unicodeClass(name, negated), j];
    }
    case 'x': {
      if (p[i + 2] === 0x7b) { const end = p.indexOf(0x7d, i + 2); return lit(parseInt(String.fromCodePoint(...p.slice(i + 3, end)), 16), end + 1); }
      return lit(parseInt(String.fromCodePoint(p[i + 2], p[i + 3]), 16), i + 4);
    }
    default:
      if (/[0-7]/.test(c)) {
        let j = i + 1; let digits = '';
        while (j < p.length && digits.length < 3 && /[0-7]/.test(String.fromCodePoint(p[j]))) digits += String.fromCodePoint(p[j++]);
        return lit(parseInt(digits, 8), j);
      }
      return lit(p[i + 1], i + 2);
  }
}

/** A character class at `i` (the `[`): [translation, next index]. */
function charClass(p: number[], i: number, f: Flags): [string, number] {
  let j = i + 1;
  let out = '[';
  if (p[j] === 0x5e) { out += '^'; j++; }
  let first = true;
  while (first || p[j] !== 0x5d) {
    first = false;
    if (p[j] === 0x5b && p[j + 1] === 0x3a) {
      const end = p.indexOf(0x5d, j);
      let name = String.fromCodePoint(...p.slice(j + 2, end - 1));
      const negated = name.startsWith('^');
      if (negated) name = name.slice(1);
      // Under (?i) a case class holds both cases, as Go folds it.
      const members = f.i && (name === 'lower' || name === 'upper') ? 'A-Za-z' : POSIX[name];
      out += negated ? `[^${members}]` : members;
      j = end + 1;
      continue;
    }
    let lo: number | undefined;
    if (p[j] === 0x5c) {
      const [t, next, cp] = escape(p, j, f, true);
      j = next;
      if (cp === undefined) { out += t; continue; }
      lo = cp;
    } else lo = p[j++];
    if (p[j] === 0x2d && p[j + 1] !== 0x5d) {
      let hi: number;
      if (p[j + 1] === 0x5c) { const [, next, cp] = escape(p, j + 1, f, true); hi = cp!; j = next; } else { hi = p[j + 1]; j += 2; }
      out += `${hex(lo)}-${hex(hi)}`;
      if (f.i && hi - lo <= 512) for (let c = lo; c <= hi; c++) for (const x of folds(c)) if (x !== c) out += hex(x);
      continue;
    }
    out += literal(lo, f, true);
  }
  return [`${out}]`, j + 1];
}

/** A valid RE2 pattern as a JavaScript RegExp source for the `v` flag. */
export function translate(pattern: string): string {
  const p = [...pattern].map((c) => c.codePointAt(0)!);
  let f: Flags = { i: false, m: false, s: false, U: false };
  const stack: Flags[] = [];
  let out = '';
  let i = 0;
  const ch = (k: number) => (k < p.length ? String.fromCodePoint(p[k]) : '');
  while (i < p.length) {
    const c = ch(i);
    if (c === '\\' && ch(i + 1) === 'Q') {
      const end = p.findIndex((x, k) => k > i + 1 && x === 0x5c && p[k + 1] === 0x45);
      const stop = end < 0 ? p.length : end;
      for (let k = i + 2; k < stop; k++) out += literal(p[k], f, false);
      i = end < 0 ? p.length : end + 2;
      continue;
    }
    if (c === '\\' && ch(i + 1) === 'E') { i += 2; continue; }
    if (c === '\\') { const [t, next] = escape(p, i, f, false); out += t; i = next; continue; }
    if (c === '[') { const [t, next] = charClass(p, i, f); out += t; i = next; continue; }
    if (c === '(') {
      stack.push({ ...f });
      if (ch(i + 1) !== '?') { out += '('; i++; continue; }
      if (ch(i + 2) === 'P' && ch(i + 3) === '<') { out += '(?<'; i += 4; continue; }
      if (ch(i + 2) === '<') { out += '(?<'; i += 3; continue; }
      let j = i + 2; let on = true;
      const nf = { ...f };
      for (; ch(j) !== ')' && ch(j) !== ':'; j++) { if (ch(j) === '-') on = false; else nf[ch(j) as keyof Flags] = on; }
      if (ch(j) === ')') { stack.pop(); f = nf; i = j + 1; continue; }
      f = nf; out += '(?:'; i = j + 1;
      continue;
    }
    if (c === ')') { f = stack.pop() ?? f; out += ')'; i++; continue; }
    const repeat = c === '{' ? /^\{\d+(,\d*)?\}/.exec(String.fromCodePoint(...p.slice(i, i + 12))) : null;
    if (c === '*' || c === '+' || c === '?' || repeat) {
      let j = repeat ? i + repeat[0].length : i + 1;
      let lazy = ch(j) === '?';
      if (lazy) j++;
      if (f.U) lazy = !lazy;
      out += (repeat ? repeat[0] : c) + (lazy ? '?' : '');
      i = j;
      continue;
    }
    if (c === '.') out += f.s ? '[\\s\\S]' : '[^\\n]';
    else if (c === '^') out += f.m ? '(?<![^\\n])' : '(?<![\\s\\S])';
    else if (c === '$') out += f.m ? '(?![^\\n])' : '(?![\\s\\S])';
    else if (c === '|') out += '|';
    else out += literal(p[i], f, false);
    i++;
  }
  return out;
}
