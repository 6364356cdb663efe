// Duplicate keys in a JSON object, which JSON.parse silently resolves to the last value.
// Kubernetes' strict decoder reports them (`duplicate field "replicas"`): an error with
// fieldValidation=Strict, a warning with Warn. Runs only on text that already parsed.

interface Frame {
  object: boolean;
  /** The object's first key; `keys` holds them all once there is a second (most objects have one or two). */
  first: string | undefined;
  keys: Set<string> | undefined;
  expectKey: boolean;
}

/** The duplicated key names of every object in `text`, in document order. */
export function jsonDuplicateKeys(text: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  let top: Frame | undefined;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const object = ch === 0x7b;
      top = { object, first: undefined, keys: undefined, expectKey: object };
      stack.push(top);
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
      top = stack[stack.length - 1];
    } else if (ch === 0x2c /* , */) {
      if (top?.object) top.expectKey = true;
    } else if (ch === 0x22 /* " */) {
      let j = i + 1;
      let escaped = false;
      for (; j < n; j++) {
        const c = text.charCodeAt(j);
        if (c === 0x22) break;
        if (c === 0x5c /* \ */) { escaped = true; j++; }
      }
      if (top?.object && top.expectKey) {
        // Only a key with an escape needs decoding; any other is its own text.
        const key = escaped ? JSON.parse(text.slice(i, j + 1)) as string : text.slice(i + 1, j);
        if (top.first === undefined) top.first = key;
        else {
          top.keys ??= new Set([top.first]);
          if (top.keys.has(key)) out.push(key);
          top.keys.add(key);
        }
        top.expectKey = false;
      }
      i = j;
    }
  }
  return out;
}
