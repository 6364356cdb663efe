// CEL optionals as far as CRD transition rules need them: `oldSelf` under optionalOldSelf is
// an optional (hasValue(), value(), orValue(x)); the parser has no `?.` syntax.
import { celMap, celMethod, CelScalar, type CelFunc, type CelInput, type CelMap, type CelValue } from '@bufbuild/cel';
import { anyMap, fieldsOf } from './opaque.js';

const TYPE = 'optional_type';

export function optionalOf(v: CelInput | undefined): CelMap {
  return celMap(new Map<string, CelInput>(v === undefined ? [['@type', TYPE]] : [['@type', TYPE], ['value', v]]));
}

const present = (m: CelMap) => m.has('value');

export const optionalLibrary: CelFunc[] = [
  celMethod('hasValue', anyMap, [], CelScalar.BOOL, function () { return present(fieldsOf(this, TYPE, 'hasValue')); }),
  celMethod('value', anyMap, [], CelScalar.DYN, function () {
    const m = fieldsOf(this, TYPE, 'value');
    if (!present(m)) throw new Error('optional.none() dereference');
    return m.get('value') as CelValue;
  }),
  celMethod('orValue', anyMap, [CelScalar.DYN], CelScalar.DYN, function (d) { const m = fieldsOf(this, TYPE, 'orValue'); return present(m) ? m.get('value') as CelValue : d; }),
];
