// Parses a request path into what it addresses, after k8s.io/apiserver's RequestInfoFactory:
// /api/v1/namespaces/default/pods/web/status → group "", version v1, namespace default,
// resource pods, name web, subresource status.
import { queryBool } from './query.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the group/version (for discovery requests). */
  parts: string[];
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', group: '', version: '', namespace: '', resource: '', subresource: '', name: '', parts: [] };
  const segs = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (segs[0] !== 'api' && segs[0] !== 'apis') return info;
  info.apiPrefix = segs[0];
  let rest = segs.slice(1);
  if (info.apiPrefix === 'apis') {
    if (rest.length < 2) { info.group = rest[0] ?? ''; return info; }
    info.group = rest[0];
    rest = rest.slice(1);
  }
  if (rest.length < 1) return info;
  info.version = rest[0];
  rest = rest.slice(1);
  info.parts = rest;
  if (rest.length === 0) return info;
  info.isResourceRequest = true;

  let watchPrefix = false;
  if (rest[0] === 'watch') { watchPrefix = true; rest = rest.slice(1); }
  if (rest[0] === 'namespaces') {
    if (rest.length >= 3) {
      info.namespace = rest[1];
      rest = rest.slice(2);
    } else {
      info.resource = 'namespaces';
      info.name = rest[1] ?? '';
      rest = [];
    }
  }
  if (rest.length > 0) {
    info.resource = rest[0];
    info.name = rest[1] ?? '';
    info.subresource = rest[2] ?? '';
    if (rest.length > 3) info.isResourceRequest = false;
  }
  // /api/v1/namespaces/NAME/status|finalize are subresources of the namespace itself.
  if (info.resource && info.namespace && !info.name && ['status', 'finalize'].includes(info.resource) && segs.includes('namespaces')) {
    info.subresource = info.resource;
    info.resource = 'namespaces';
    info.name = info.namespace;
    info.namespace = '';
  }
  if (info.resource === 'namespaces') info.namespace = '';

  switch (method) {
    case 'GET': case 'HEAD':
      info.verb = watchPrefix || queryBool(query, 'watch') ? 'watch' : info.name ? 'get' : 'list';
      break;
    case 'POST': info.verb = 'create'; break;
    case 'PUT': info.verb = 'update'; break;
    case 'PATCH': info.verb = 'patch'; break;
    case 'DELETE': info.verb = info.name ? 'delete' : 'deletecollection'; break;
  }
  return info;
}
