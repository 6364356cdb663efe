// The Kubernetes URL library (apiserver/pkg/cel/library/urls.go): url(), isURL() and the
// parts of a URL. Like Go's url.ParseRequestURI, only absolute URLs and absolute paths parse.
import { celFunc, celMethod, CelScalar, listType, mapType, type CelFunc } from '@bufbuild/cel';
import { anyMap, fieldsOf, opaque, text } from './opaque.js';

const TYPE = 'kubernetes.URL';
const { STRING, BOOL } = CelScalar;

function parse(s: string): URL | null {
  if (s.startsWith('/')) return URL.canParse(s, 'http://placeholder.invalid') ? new URL(s, 'http://placeholder.invalid') : null;
  return URL.canParse(s) && /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) ? new URL(s) : null;
}

function url(s: string) {
  if (!parse(s)) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  return opaque(TYPE, { value: s });
}

const parts = (u: unknown, method: string) => {
  const s = text(fieldsOf(u as never, TYPE, method), 'value');
  return { s, u: parse(s)!, relative: s.startsWith('/') };
};

export const urlLibrary: CelFunc[] = [
  celFunc('url', [STRING], anyMap, url),
  celFunc('isURL', [STRING], BOOL, (s) => parse(s) !== null),
  celMethod('getScheme', anyMap, [], STRING, function () { const p = parts(this, 'getScheme'); return p.relative ? '' : p.u.protocol.slice(0, -1); }),
  celMethod('getHost', anyMap, [], STRING, function () { const p = parts(this, 'getHost'); return p.relative ? '' : p.u.host; }),
  celMethod('getHostname', anyMap, [], STRING, function () { const p = parts(this, 'getHostname'); return p.relative ? '' : p.u.hostname.replace(/^\[|\]$/g, ''); }),
  celMethod('getPort', anyMap, [], STRING, function () { const p = parts(this, 'getPort'); return p.relative ? '' : p.u.port; }),
  celMethod('getEscapedPath', anyMap, [], STRING, function () { return parts(this, 'getEscapedPath').u.pathname; }),
  celMethod('getQuery', anyMap, [], mapType(STRING, listType(STRING)), function () {
    const q = new Map<string, string[]>();
    for (const [k, v] of parts(this, 'getQuery').u.searchParams) q.set(k, [...(q.get(k) ?? []), v]);
    return q;
  }),
];
