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

/** A deep copy (structuredClone) that passes undefined through. Callers own the copy. */
export function deepCopy<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}
