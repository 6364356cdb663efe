// Request paths are routed segment by segment exactly as sent. A URL parser resolves `..`
// (also `%2e%2e`, and `\` as `/`), so `/api/v1/namespaces/default/configmaps/%2e%2e/%2e%2e/
// kube-system/secrets` would be authorised for one namespace and served from another; an
// encoded slash would split a name into two segments. kube-apiserver routes the raw segments:
// such paths match no route (404), and a name that is `.`, `..` or holds `/` or `%` is refused
// by its storage key function (400). Both are answered here, before authentication and routing.
import { badRequest, StatusError } from './errors.js';
import { parseRequestInfo } from './request-info.js';

/** The path of a request target as the client sent it (origin or absolute form). */
export function rawPath(target: string): string {
  const path = target.startsWith('/') ? target : target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  return path.split(/[?#]/, 1)[0] || '/';
}

/** Why a segment cannot be routed as sent (IsValidPathSegmentName), or null. */
function segmentProblem(segment: string): string | null {
  if (segment === '.') return `may not be '.'`;
  if (segment === '..') return `may not be '..'`;
  if (segment.includes('/')) return `may not contain '/'`;
  if (segment.includes('%')) return `may not contain '%'`;
  return null;
}

/** A Status refusing the path, or null when it routes as sent. */
export function checkPath(path: string): StatusError | null {
  if (path.includes('\\')) return notFound();
  let segments: string[];
  try {
    segments = path.split('/').map(decodeURIComponent);
  } catch (e) {
    return badRequest(`invalid request path ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  const bad = segments.findIndex((s) => segmentProblem(s) !== null);
  if (bad < 0) return null;
  const lastSegment = segments.filter(Boolean).pop();
  if (bad === segments.lastIndexOf(lastSegment ?? '') && !segments[bad].includes('/')) {
    const info = parseRequestInfo('GET', path, new URLSearchParams());
    if (info.isResourceRequest && info.name === segments[bad] && !info.subresource) {
      return badRequest(`Name parameter invalid: ${JSON.stringify(info.name)}: ${segmentProblem(info.name)}`);
    }
  }
  return notFound();
}

const notFound = () => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
