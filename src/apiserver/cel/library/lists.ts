// The Kubernetes lists library (apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max,
// indexOf and lastIndexOf on lists of comparable values (int, uint, double, string, bool).
import { celMethod, CelScalar, listType, isCelUint, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { typeName } from '../values.js';

const list = listType(CelScalar.DYN);
const { BOOL, INT, DYN } = CelScalar;

type Comparable = bigint | number | string | boolean;

function comparable(v: CelValue, method: string): Comparable {
  if (isCelUint(v)) return v.value;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  throw new Error(`found no matching overload for '${method}' applied to 'list(${typeName(v)})'`);
}

function compare(a: Comparable, b: Comparable): number {
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function extreme(l: CelList, method: string, sign: 1 | -1): Comparable {
  if (l.size === 0) throw new Error(`${method} called on empty list`);
  let best = comparable(l.get(0)!, method);
  for (const v of l) { const c = comparable(v, method); if (compare(c, best) * sign > 0) best = c; }
  return best;
}

const same = (a: CelValue, b: CelValue): boolean => (typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')
  ? Number(a) === Number(b) : a === b || JSON.stringify(a) === JSON.stringify(b);

export const listsLibrary: CelFunc[] = [
  celMethod('isSorted', list, [], BOOL, function () {
    const items = [...this].map((v) => comparable(v, 'isSorted'));
    return items.every((v, i) => i === 0 || compare(items[i - 1], v) <= 0);
  }),
  celMethod('sum', list, [], DYN, function () {
    const items = [...this].map((v) => comparable(v, 'sum'));
    if (!items.length) return 0n;
    if (items.every((v) => typeof v === 'bigint')) return (items as bigint[]).reduce((a, b) => a + b, 0n);
    if (items.every((v) => typeof v === 'number')) return (items as number[]).reduce((a, b) => a + b, 0);
    throw new Error("found no matching overload for 'sum' applied to 'list(dyn)'");
  }),
  celMethod('min', list, [], DYN, function () { return extreme(this, 'min', -1); }),
  celMethod('max', list, [], DYN, function () { return extreme(this, 'max', 1); }),
  celMethod('indexOf', list, [DYN], INT, function (x) {
    let i = 0;
    for (const v of this) { if (same(v, x)) return BigInt(i); i++; }
    return -1n;
  }),
  celMethod('lastIndexOf', list, [DYN], INT, function (x) {
    const items = [...this];
    for (let i = items.length - 1; i >= 0; i--) if (same(items[i], x)) return BigInt(i);
    return -1n;
  }),
];
