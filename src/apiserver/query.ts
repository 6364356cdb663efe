// Boolean query parameters, read as kube-apiserver reads them. Its parameter codec
// (apimachinery's Convert_Slice_string_To_bool) looks at the first value only: missing,
// `0` and `false` (any case) are false, anything else is true — also `?watch=` and the
// `True` that Python clients send. `pretty` is the exception: it is not part of any options
// type, and the serializer reads it with Go's strconv.ParseBool.

/** `?name` as a boolean; absent → `undefined`, so a caller can tell "unset" from "false". */
export function queryFlag(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return v !== '0' && v.toLowerCase() !== 'false';
}

/** `?name` as a boolean, absent meaning false. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  return queryFlag(query, name) ?? false;
}

const parseBoolTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * Whether a reply is indented: `?pretty=` when given with a value (strconv.ParseBool, an
 * unparsable value meaning false), else browsers and command-line fetchers get it by default.
 */
export function wantsPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const v = query.get('pretty');
  if (v) return parseBoolTrue.has(v);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
