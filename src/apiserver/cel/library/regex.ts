// The Kubernetes regex library (apiserver/pkg/cel/library/regex.go): find and findAll.
// Patterns run as JavaScript regular expressions, which accept RE2's syntax for the usual cases.
import { celMethod, CelScalar, listType, type CelFunc } from '@bufbuild/cel';

const { STRING, INT } = CelScalar;
const cache = new Map<string, RegExp>();
const tests = new Map<string, RegExp>();

/** A compiled pattern for `matches()` (unanchored search, as RE2's MatchString), cached by text. */
export function cachedRegex(pattern: string): { test(s: string): boolean } {
  let re = tests.get(pattern);
  if (!re) {
    re = new RegExp(pattern, 'u');
    if (tests.size > 1000) tests.clear();
    tests.set(pattern, re);
  }
  return re;
}

function regex(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(pattern, 'gu');
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  re.lastIndex = 0;
  return re;
}

function findAll(s: string, pattern: string, limit: number): string[] {
  if (limit === 0) return [];
  const out: string[] = [];
  for (const m of s.matchAll(regex(pattern))) {
    out.push(m[0]);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

export const regexLibrary: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (p) { return findAll(this, p, 1)[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (p) { return findAll(this, p, -1); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (p, n) { return findAll(this, p, Number(n)); }),
];
