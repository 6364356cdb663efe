// CEL optionals (cel-go's OptionalTypes library): `optional.of(x)`, `optional.none()`,
// `optional.ofNonZeroValue(x)`, and on an optional hasValue(), value(), orValue(x), or(opt);
// `oldSelf` under optionalOldSelf is one. The selection and indexing behind `a.?b` and
// `a[?k]` (optional-syntax.ts rewrites the syntax into these calls) give an optional.
import { celFunc, celList, celMap, celMethod, CelScalar, isCelList, listType, isCelMap, isCelUint, type CelFunc, type CelInput, type CelList, type CelMap, type CelValue } from '@bufbuild/cel';
import { anyMap, fieldsOf } from './opaque.js';
import { OPTIONAL_INDEX, OPTIONAL_LIST, OPTIONAL_MAP, OPTIONAL_SELECT } from '../optional-syntax.js';
import { typeName } from '../values.js';

const TYPE = 'optional_type';
const anyList = listType(CelScalar.DYN);

export function optionalOf(v: CelInput | undefined): CelMap {
  return celMap(new Map<string, CelInput>(v === undefined ? [['@type', TYPE]] : [['@type', TYPE], ['value', v]]));
}

const present = (m: CelMap) => m.has('value');
const isOptional = (v: CelValue): v is CelMap => isCelMap(v) && v.get('@type') === TYPE;

function zero(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return false;
}

/** `on.?key` / `on[?key]`: an optional of the entry; on an optional, applied to its value. */
function entry(on: CelValue, key: CelValue, op: string): CelMap {
  let v = on;
  if (isOptional(v)) {
    if (!present(v)) return v;
    v = v.get('value') as CelValue;
  }
  if (isCelMap(v)) {
    const k = key as string | bigint | boolean;
    return v.has(k) ? optionalOf(v.get(k) as CelInput) : optionalOf(undefined);
  }
  if (isCelList(v) && (typeof key === 'bigint' || isCelUint(key))) {
    const i = Number(isCelUint(key) ? key.value : key);
    return i >= 0 && i < v.size ? optionalOf(v.get(i) as CelInput) : optionalOf(undefined);
  }
  throw new Error(`found no matching overload for '${op}' applied to '(${typeName(v)}, ${typeName(key)})'`);
}

/** An optional literal entry's value, or undefined for none; anything but an optional is an overload miss, as cel-go's checker refuses it. */
function entryValue(v: CelValue, literal: string): CelValue | undefined {
  if (!isOptional(v)) throw new Error(`found no matching overload for '${literal}' applied to '(${typeName(v)})': an optional entry must be an optional`);
  return present(v) ? v.get('value') as CelValue : undefined;
}

const indexSet = (l: CelList) => new Set([...l].map((i) => Number(i as bigint)));

/** `[a, ?b]`: the elements, an optional one only when it has a value. */
function optionalList(elements: CelList, optional: CelList): CelList {
  const opt = indexSet(optional);
  const out: CelValue[] = [];
  [...elements].forEach((v, i) => {
    if (!opt.has(i)) { out.push(v); return; }
    const x = entryValue(v, 'list');
    if (x !== undefined) out.push(x);
  });
  return celList(out as CelInput[]);
}

/** `{k: v, ?k2: v2}`: the entries, an optional one only when its value has one; repeated keys fail as in cel-go. */
function optionalMap(keys: CelList, values: CelList, optional: CelList): CelMap {
  const opt = indexSet(optional);
  const vals = [...values];
  const out = new Map<CelInput, CelInput>();
  [...keys].forEach((k, i) => {
    const key = k as CelInput;
    if (out.has(key)) throw new Error(`Failed with repeated key: ${String(k)}`);
    const v = opt.has(i) ? entryValue(vals[i], 'map') : vals[i];
    if (v !== undefined) out.set(key, v as CelInput);
  });
  return celMap(out as never);
}

export const optionalLibrary: CelFunc[] = [
  celMethod('hasValue', anyMap, [], CelScalar.BOOL, function () { return present(fieldsOf(this, TYPE, 'hasValue')); }),
  celMethod('value', anyMap, [], CelScalar.DYN, function () {
    const m = fieldsOf(this, TYPE, 'value');
    if (!present(m)) throw new Error('optional.none() dereference');
    return m.get('value') as CelValue;
  }),
  celMethod('orValue', anyMap, [CelScalar.DYN], CelScalar.DYN, function (d) { const m = fieldsOf(this, TYPE, 'orValue'); return present(m) ? m.get('value') as CelValue : d; }),
  celMethod('or', anyMap, [anyMap], CelScalar.DYN, function (other) {
    const m = fieldsOf(this, TYPE, 'or');
    return present(m) ? m : fieldsOf(other, TYPE, 'or');
  }),
  celFunc('optional.of', [CelScalar.DYN], CelScalar.DYN, (v) => optionalOf(v as CelInput)),
  celFunc('optional.none', [], CelScalar.DYN, () => optionalOf(undefined)),
  celFunc('optional.ofNonZeroValue', [CelScalar.DYN], CelScalar.DYN, (v) => optionalOf(zero(v) ? undefined : v as CelInput)),
  celFunc(OPTIONAL_SELECT, [CelScalar.DYN, CelScalar.STRING], CelScalar.DYN, (on, field) => entry(on, field, '_?._')),
  celFunc(OPTIONAL_INDEX, [CelScalar.DYN, CelScalar.DYN], CelScalar.DYN, (on, key) => entry(on, key, '_[?_]')),
  celFunc(OPTIONAL_LIST, [anyList, anyList], anyList, optionalList),
  celFunc(OPTIONAL_MAP, [anyList, anyList, anyList], anyMap, optionalMap),
];
