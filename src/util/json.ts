// JSON helpers shared by every layer: one key-order-independent serialization (for hashes,
// dedupe keys and "did it change" comparisons) and one deep copy.

/**
 * JSON text with every object's keys sorted by UTF-16 code units, at every depth, so two
 * values equal as JSON give the same text whatever order their keys were set in.
 * Contract: the output for a given JSON value never changes between releases — container
 * hashes and pod-template-hash labels are computed from it and stored. Follows
 * JSON.stringify otherwise: `toJSON` is honoured, undefined object members are left out,
 * undefined array elements become null. Integer-like keys sort as strings ("10" < "9"),
 * which is why this is not a JSON.stringify replacer (objects reorder such keys).
 */
export function stableStringify(v: unknown): string {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(): unknown }).toJSON();
  }
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : stableStringify(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * A deep copy (as structuredClone makes) that passes undefined through. Callers own the copy.
 * Plain objects and arrays (what JSON.parse makes: every API object) are copied here, several
 * times faster than structuredClone's serialise-and-read-back; anything else (a Date, a
 * Buffer, a class instance) and anything nested deeper than JSON objects are (a cycle) goes
 * to structuredClone.
 */
export function deepCopy<T>(v: T): T {
  return v === undefined ? v : copyPlain(v, 0) as T;
}

const plainDepthLimit = 256;

function copyPlain(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (depth > plainDepthLimit) return structuredClone(v);
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyPlain(v[i], depth + 1);
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = copyPlain((v as Record<string, unknown>)[k], depth + 1);
    // JSON.parse makes "__proto__" an own key; an assignment would set the copy's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}
