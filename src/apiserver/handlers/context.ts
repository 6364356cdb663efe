// What every resource handler gets: the parsed request, the caller, the resource's registry
// and the version the client addressed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../authn/index.js';
import type { RequestInfo } from '../request-info.js';
import type { GenericRegistry, RequestContext, VersionDef } from '../registry/index.js';
import type { ResponseKind } from '../negotiate.js';
import type { KubeObject } from '../../api/object.js';
import { badRequest } from '../errors.js';

export interface HandlerContext {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  info: RequestInfo;
  user: UserInfo;
  reg: GenericRegistry;
  version: VersionDef;
  accept: ResponseKind;
  ctx: RequestContext;
  /** Warnings for the `Warning` response header. */
  warnings: string[];
}

export function requestContext(user: UserInfo, query: URLSearchParams, impersonator?: UserInfo): RequestContext {
  const dryRun = query.getAll('dryRun');
  for (const d of dryRun) if (d !== 'All') throw badRequest(`unsupported dry run value: ${d}`);
  return { user, dryRun: dryRun.length > 0, now: new Date(), ...(impersonator ? { impersonator } : {}) };
}

/** Converts ahead what `versioned` will be asked for, where conversion needs I/O (a CRD's conversion webhook). */
export async function prepareVersioned(h: HandlerContext, objs: KubeObject[]): Promise<void> {
  await h.version.prepare?.(objs);
}

/** The versioned form the client asked for. */
export function versioned(h: HandlerContext, obj: KubeObject): KubeObject {
  return h.reg.toVersion(obj, h.version.version);
}

/** `?fieldManager=` or, as Kubernetes does, the User-Agent's leading product token. */
export function fieldManagerName(h: HandlerContext): string {
  const q = h.query.get('fieldManager');
  if (q) {
    if (q.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
    return q;
  }
  const ua = String(h.req.headers['user-agent'] ?? 'unknown');
  return ua.split('/')[0].slice(0, 128) || 'unknown';
}
