// Kubernetes' CEL types that are not maps (Quantity, URL, Authorizer, Decision) carried as
// maps with a hidden `@type` key, since @bufbuild/cel knows only CEL's own and protobuf types.
// Their methods take any map and refuse one that is not of their type, as an overload miss.
import { celMap, isCelMap, mapType, CelScalar, type CelMap, type CelValue } from '@bufbuild/cel';

export const anyMap = mapType(CelScalar.DYN, CelScalar.DYN);

export function opaque(type: string, fields: Record<string, string | boolean | CelMap>): CelMap {
  return celMap(new Map<string, CelValue>([['@type', type], ...Object.entries(fields)]));
}

/** The fields of an opaque value of this type; throws CEL's overload error for anything else. */
export function fieldsOf(v: CelValue, type: string, method: string): CelMap {
  if (isCelMap(v) && v.get('@type') === type) return v;
  throw new Error(`found no matching overload for '${method}' applied to '(${isCelMap(v) ? String(v.get('@type') ?? 'map') : typeof v})'`);
}

export const text = (m: CelMap, key: string): string => String(m.get(key) ?? '');
