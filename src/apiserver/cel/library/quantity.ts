// The Kubernetes quantity library (apiserver/pkg/cel/library/quantity.go): quantity(),
// isQuantity() and the comparisons and arithmetic on Quantity values.
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from '@bufbuild/cel';
import { parseQuantity, quantityPattern } from '../../../util/quantity.js';
import { anyMap, fieldsOf, opaque, text } from './opaque.js';

const TYPE = 'kubernetes.Quantity';
const { STRING, BOOL, INT, DOUBLE } = CelScalar;

function quantity(s: string) {
  if (!quantityPattern.test(s)) throw new Error(`invalid quantity: ${s}`);
  return opaque(TYPE, { value: s });
}

const amount = (q: CelValue, method: string): number => parseQuantity(text(fieldsOf(q, TYPE, method), 'value'));

/** A number written back as a quantity string (plain decimal; the canonical suffix form is upstream's String()). */
const fromNumber = (n: number) => opaque(TYPE, { value: String(n) });

export const quantityLibrary: CelFunc[] = [
  celFunc('quantity', [STRING], anyMap, quantity),
  celFunc('isQuantity', [STRING], BOOL, (s) => quantityPattern.test(s)),
  celMethod('sign', anyMap, [], INT, function () { return BigInt(Math.sign(amount(this, 'sign'))); }),
  celMethod('isInteger', anyMap, [], BOOL, function () { const n = amount(this, 'isInteger'); return Number.isSafeInteger(n); }),
  celMethod('asInteger', anyMap, [], INT, function () {
    const n = amount(this, 'asInteger');
    if (!Number.isSafeInteger(n)) throw new Error('cannot convert value to integer');
    return BigInt(n);
  }),
  celMethod('asApproximateFloat', anyMap, [], DOUBLE, function () { return amount(this, 'asApproximateFloat'); }),
  celMethod('isLessThan', anyMap, [anyMap], BOOL, function (o) { return amount(this, 'isLessThan') < amount(o, 'isLessThan'); }),
  celMethod('isGreaterThan', anyMap, [anyMap], BOOL, function (o) { return amount(this, 'isGreaterThan') > amount(o, 'isGreaterThan'); }),
  celMethod('compareTo', anyMap, [anyMap], INT, function (o) { return BigInt(Math.sign(amount(this, 'compareTo') - amount(o, 'compareTo'))); }),
  celMethod('add', anyMap, [anyMap], anyMap, function (o) { return fromNumber(amount(this, 'add') + amount(o, 'add')); }),
  celMethod('add', anyMap, [INT], anyMap, function (n) { return fromNumber(amount(this, 'add') + Number(n)); }),
  celMethod('sub', anyMap, [anyMap], anyMap, function (o) { return fromNumber(amount(this, 'sub') - amount(o, 'sub')); }),
  celMethod('sub', anyMap, [INT], anyMap, function (n) { return fromNumber(amount(this, 'sub') - Number(n)); }),
];
