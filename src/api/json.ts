// Plain-JSON helpers shared by the patch engines and the field manager. Values are what
// JSON.parse produces.

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads an own property only: a key like "__proto__" must not reach the prototype. */
export function getOwn(o: JsonObject, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Sets an own data property, also for "__proto__" (plain assignment would set the prototype). */
export function setOwn(o: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export { deepCopy as clone } from '../util/index.js';

/** A short rendering of a value for error messages. */
export function describe(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Empty object, empty array or null: what structured-merge-diff treats as "no content". */
export function isEmptyValue(v: unknown): boolean {
  return v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

/**
 * How deep objects and arrays nest in `v` ({} is 1, a scalar 0), counting no further than
 * `cap` + 1. Iterative, so any depth is safe to measure.
 */
export function nestingDepth(v: unknown, cap = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > cap) return deepest;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}
