// The Kubernetes regex library (apiserver/pkg/cel/library/regex.go): find and findAll, with
// RE2's syntax and semantics as Go's regexp has them (re2.ts), as `matches` has too.
import { celMethod, CelScalar, listType, type CelFunc } from '@bufbuild/cel';
import { re2 } from './re2.js';

const { STRING, INT } = CelScalar;

/** The pattern `matches()` runs (an unanchored search, as Go's MatchString), compiled once per text. */
export const cachedRegex = re2;

export const regexLibrary: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (p) { return re2(p).findAll(this, 1)[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (p) { return re2(p).findAll(this, -1); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (p, n) { return re2(p).findAll(this, Number(n)); }),
];
