// Duplicate keys in a JSON object, which JSON.parse silently resolves to the last value.
// Kubernetes' strict decoder reports them (`duplicate field "replicas"`): an error with
// fieldValidation=Strict, a warning with Warn. Runs only on text that already parsed.

interface Frame {
  keys: Set<string> | null;
  expectKey: boolean;
}

/** The duplicated key names of every object in `text`, in document order. */
export function jsonDuplicateKeys(text: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const top = stack[stack.length - 1];
    if (ch === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (ch === '[') stack.push({ keys: null, expectKey: false });
    else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',' && top?.keys) top.expectKey = true;
    else if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) out.push(key);
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    }
  }
  return out;
}
