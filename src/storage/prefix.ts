// Prefix listing as a half-open key range [prefix, prefixEnd(prefix)), the way etcd does it.
// Keys are compared as UTF-8 bytes by both backends, so the end is computed on bytes.

/** The smallest byte string greater than every string starting with `prefix`; null = no bound. */
export function prefixEnd(prefix: Buffer): Buffer | null {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return null;
}

/**
 * The same bound as a string, for stores that compare UTF-8 text: UTF-8 preserves code point
 * order, so bumping the last code point (carrying past U+10FFFF) gives the byte-wise bound.
 */
export function prefixEndString(prefix: string): string | null {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return null;
}
