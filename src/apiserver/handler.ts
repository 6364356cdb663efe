// The request pipeline, in the order ARCHITECTURE.md gives: authentication → authorization →
// routing to a non-resource endpoint or a resource handler (which decode, convert, admit,
// run the strategy and storage, convert back and encode). Every failure becomes a Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openAPIDocument, openAPIIndex } from '../api/openapi.js';
import { openAPIV2Protobuf, OPENAPI_V2_PROTOBUF } from '../api/openapi-v2.js';
import type { Logger } from '../log/index.js';
import type { WatchCache } from '../storage/watch-cache.js';
import type { Authentication, Authenticated, Authenticator, UserInfo } from './authn/index.js';
import type { OIDCDiscovery } from './authn/oidc.js';
import { forbiddenError, type Authorizer } from './authz/index.js';
import { requestAttributes } from './authz/attributes.js';
import type { AdmissionChain } from './admission.js';
import { connectOptions } from './admission/connect-options.js';
import { Discovery, type ResourceInfo } from './discovery.js';
import { StatusError, badRequest, methodNotAllowed, noSuchPath, notAcceptable } from './errors.js';
import type { FieldTracker } from './managed-fields.js';
import type { APIMetrics } from './metrics.js';
import { acceptable, contentTypes, negotiate } from './negotiate.js';
import type { Registries } from './registry/index.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { checkPath, rawPath } from './path-check.js';
import { indentReplies, sendError, sendObject, sendText, toStatusError } from './respond.js';
import { wantsPretty } from './query.js';
import { requestContext, type HandlerContext } from './handlers/context.js';
import { createResource, getResource, listResource, patchResource, updateResource } from './handlers/resource.js';
import { deleteCollection, deleteResource } from './handlers/delete.js';
import { subresourceHandler } from './handlers/subresources.js';
import { watchResource } from './handlers/watch.js';
import { createToken } from './handlers/token-request.js';
import { evictPod } from './handlers/eviction.js';
import { reviewToken } from './handlers/token-review.js';
import { readBody } from './body.js';
import { isAccessReview, serveAccessReview } from './handlers/access-review.js';
import { isStreamSubresource, proxyPodLog, proxyStreamUpgrade, rejectUpgrade, type KubeletClientConfig } from './handlers/proxy.js';
import type { Duplex } from 'node:stream';
import type { HealthEndpoints } from './healthz.js';
import { METRICS_GROUP, serveMetrics, type MetricsScraper } from './metrics-api/index.js';
import { bindTrace, now, RequestTrace, traceOf } from './trace/request-trace.js';
import { logIfSlow, observeRequest, optedIn, sendServerTiming, type TraceOptions } from './trace/report.js';

export interface HandlerDeps {
  registries: Registries;
  cache: WatchCache;
  authn: Authenticator;
  authz: Authorizer;
  /** Token review, TokenRequest signing and their audiences. */
  tokens: Pick<Authentication, 'tokens' | 'apiAudiences' | 'issuer'>;
  oidc: OIDCDiscovery;
  admission: AdmissionChain;
  fields: FieldTracker;
  discovery: Discovery;
  served: ResourceInfo[];
  metrics: APIMetrics;
  log: Logger;
  version: Record<string, string>;
  health: HealthEndpoints;
  bookmarkIntervalMs?: number;
  /** Credentials for the kubelets (pods/log, pods/exec). */
  kubelet?: KubeletClientConfig;
  /** metrics.k8s.io's source (absent without kubelet credentials). */
  metricsScraper?: MetricsScraper;
  /** Server-Timing and the slow-request log (trace/). */
  trace?: TraceOptions;
  /** Non-resource paths served by other parts of capstan (the lab view), authorized like /metrics. */
  pathHandlers?: PathHandler[];
}

/** Serves GETs at `prefix` and below; `sub` is the rest of the path ('' at the prefix itself). */
export interface PathHandler {
  prefix: string;
  serve(req: IncomingMessage, res: ServerResponse, sub: string, query: URLSearchParams): Promise<boolean>;
}

export function createHandler(deps: HandlerDeps) {
  const openapiHash = String(Date.now());
  const traceOpts = deps.trace ?? {};
  const slowMs = traceOpts.slowRequestThresholdMs ?? 1000;
  const recording = traceOpts.stages !== false;
  return function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A request that did not ask for its trace records into a pooled one (no allocation).
    if (recording && optedIn(req, traceOpts)) {
      const trace = new RequestTrace();
      trace.opted = true;
      trace.delivered = (rev, ms) => deps.cache.waitUntil(rev, ms);
      sendServerTiming(res, trace);
      return serve(req, res, trace);
    }
    return serve(req, res, RequestTrace.acquire());
  };

  async function serve(req: IncomingMessage, res: ServerResponse, trace: RequestTrace): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://apiserver');
    // A path that does not decode (`%ZZ`) is answered 400 like any other bad request.
    let info: RequestInfo;
    let badPath: unknown = checkPath(rawPath(req.url ?? '/'));
    try {
      if (badPath) throw badPath;
      info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    } catch (e) {
      badPath = e;
      info = parseRequestInfo(req.method ?? 'GET', '/', url.searchParams);
    }
    if (recording) bindTrace(info, trace);
    if (wantsPretty(url.searchParams, req.headers['user-agent'])) indentReplies(res);
    const accept = negotiate(req.headers.accept);
    let who: Authenticated | undefined;
    try {
      if (badPath instanceof StatusError) throw badPath;
      if (badPath) throw badRequest(`invalid request path ${JSON.stringify(url.pathname)}: ${(badPath as Error).message}`);
      // Timed inline rather than through trace.time(): no closure per request.
      const authnStart = now();
      try { who = await deps.authn.authenticate(req); } finally { if (recording) trace.add('authn', authnStart, !who); }
      const { user } = who;
      if (who.impersonator) deps.log.debug('impersonating', { ...requestUser(who), path: url.pathname, verb: info.verb });
      const attrs = requestAttributes(info, url.searchParams);
      const authzStart = now();
      let denial: string | null | undefined;
      try { denial = await deps.authz.authorize(user, attrs); } finally { if (recording) trace.add('authz', authzStart, denial !== null); }
      if (denial !== null) throw forbiddenError(attrs, denial ?? '');
      if (info.isResourceRequest) await serveResource(req, res, url, info, who);
      else await serveNonResource(req, res, url, info, user);
    } catch (err) {
      const status = toStatusError(err, (msg, fields) => deps.log.error(msg, { ...fields, path: url.pathname, verb: info.verb, ...requestUser(who) }));
      sendError(res, status, accept);
    } finally {
      if (recording) trace.addGap('encode');
      observeRequest(deps.metrics, trace, req, res, info, url.searchParams.has('dryRun'));
      logIfSlow(deps.log, trace, slowMs, req, res.statusCode, info, who?.user.username);
      trace.release();
    }
  }

  async function serveResource(req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, who: Authenticated): Promise<void> {
    const { user } = who;
    if (info.group === 'authentication.k8s.io' && info.resource === 'tokenreviews' && !info.name && !info.subresource) {
      if (info.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
      return reviewToken({ req, res, info, accept: negotiate(req.headers.accept) }, deps.tokens.tokens, deps.tokens.apiAudiences);
    }
    if (info.group === 'authentication.k8s.io' && info.resource === 'selfsubjectreviews' && info.verb === 'create') {
      await readBody(req);
      return sendObject(res, 201, { kind: 'SelfSubjectReview', apiVersion: `authentication.k8s.io/${info.version}`, metadata: { creationTimestamp: null }, status: { userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) } } });
    }
    if (isAccessReview(info)) return serveAccessReview(req, res, info, user, deps.authz);
    if (info.group === METRICS_GROUP) return serveMetrics(res, url.searchParams, info, deps.registries, deps.cache, deps.metricsScraper);
    if (!acceptable(req.headers.accept)) throw notAcceptable('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const reg = deps.registries.get(info.group, info.resource);
    const version = reg?.version(info.version);
    if (!reg || !version) throw noSuchPath();
    if (!reg.def.namespaced && info.namespace) throw noSuchPath();
    if (version.deprecationWarning) res.setHeader('Warning', `299 - ${JSON.stringify(version.deprecationWarning)}`);
    // Across namespaces a namespaced resource is only listed and watched, as Kubernetes routes it.
    if (reg.def.namespaced && !info.namespace && (info.name || !['list', 'watch'].includes(info.verb))) {
      if (info.name) throw noSuchPath();
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    }
    const h: HandlerContext = {
      req, res, query: url.searchParams, info, user, reg, version,
      accept: negotiate(req.headers.accept), ctx: requestContext(user, url.searchParams, who.impersonator), warnings: [],
    };
    const trace = traceOf(info);
    if (trace) bindTrace(h.ctx, trace);
    const handlerDeps = { admission: deps.admission, fields: deps.fields, cache: deps.cache };
    if (info.group === '' && info.resource === 'pods' && info.subresource === 'log') return proxyPodLog(h, deps.registries, deps.kubelet);
    if (isStreamSubresource(info.resource, info.subresource) && !info.group) throw badRequest('Upgrade request required');
    if (info.group === '' && info.resource === 'serviceaccounts' && info.subresource === 'token') return createToken(h, deps.registries, deps.tokens.issuer, deps.admission);
    if (info.group === '' && info.resource === 'pods' && info.subresource === 'eviction') return evictPod(h, deps.registries, deps.admission);
    if (info.subresource) return subresourceHandler(h, handlerDeps);
    switch (info.verb) {
      case 'get': return getResource(h, deps.cache);
      case 'list': return listResource(h, deps.cache);
      case 'watch':
        deps.metrics.watchers.inc({ group: info.group, resource: info.resource });
        return watchResource(h, deps.cache, deps.bookmarkIntervalMs);
      case 'create': return createResource(h, handlerDeps);
      case 'update': return updateResource(h, handlerDeps);
      case 'patch': return patchResource(h, handlerDeps);
      case 'delete': return deleteResource(h, handlerDeps);
      case 'deletecollection': return deleteCollection(h, handlerDeps);
      default: throw methodNotAllowed('the server does not allow this method on the requested resource');
    }
  }

  async function serveNonResource(req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, _user: UserInfo): Promise<void> {
    void _user;
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    const accept = negotiate(req.headers.accept, { discovery: true });
    if (await deps.health.serve(path, url.searchParams, res)) return;
    if (deps.oidc.serve(path, res)) return;
    for (const h of deps.pathHandlers ?? []) {
      if ((path === h.prefix || path.startsWith(`${h.prefix}/`)) && await h.serve(req, res, path.slice(h.prefix.length), url.searchParams)) return;
    }
    switch (path) {
      case '/version': return sendObject(res, 200, deps.version);
      case '/metrics': return sendText(res, 200, await deps.metrics.registry.metrics(), deps.metrics.registry.contentType);
      case '/api':
        if (accept === 'discovery-v2' || accept === 'discovery-v2beta1') {
          const v = accept === 'discovery-v2' ? 'v2' : 'v2beta1';
          return sendObject(res, 200, deps.discovery.aggregated(true, v), 'json', v === 'v2' ? contentTypes.discoveryV2 : contentTypes.discoveryV2beta1);
        }
        return sendObject(res, 200, deps.discovery.apiVersions());
      case '/apis':
        if (accept === 'discovery-v2' || accept === 'discovery-v2beta1') {
          const v = accept === 'discovery-v2' ? 'v2' : 'v2beta1';
          return sendObject(res, 200, deps.discovery.aggregated(false, v), 'json', v === 'v2' ? contentTypes.discoveryV2 : contentTypes.discoveryV2beta1);
        }
        return sendObject(res, 200, deps.discovery.apiGroupList());
      case '/openapi/v3': return sendObject(res, 200, openAPIIndex(deps.served, openapiHash));
      // kubectl reads v2 for `kind: List` manifests; a document without definitions leaves
      // validation to the server (fieldValidation=Strict).
      case '/openapi/v2': {
        const body = openAPIV2Protobuf();
        res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF, 'Content-Length': body.length });
        return void res.end(body);
      }
    }
    if (path.startsWith('/openapi/v3/')) {
      const rest = path.slice('/openapi/v3/'.length).split('/');
      const [group, version] = rest[0] === 'api' ? ['', rest[1]] : rest[0] === 'apis' ? [rest[1], rest[2]] : ['', ''];
      if (version && deps.served.some((s) => s.group === group && s.version === version)) {
        return sendObject(res, 200, openAPIDocument(group, version, deps.served));
      }
      throw noSuchPath();
    }
    if (info.apiPrefix === 'api' && info.version && !info.parts.length) {
      const list = deps.discovery.apiResourceList('', info.version);
      if (list) return sendObject(res, 200, list);
    }
    if (info.apiPrefix === 'apis' && info.group && !info.version) {
      const g = deps.discovery.apiGroup(info.group);
      if (g) return sendObject(res, 200, g);
    }
    if (info.apiPrefix === 'apis' && info.group && info.version && !info.parts.length) {
      const list = deps.discovery.apiResourceList(info.group, info.version);
      if (list) return sendObject(res, 200, list);
    }
    throw noSuchPath();
  }
}

/** Upgrade requests (pods/exec, pods/attach and pods/portforward over WebSocket or SPDY): authenticated and
 *  authorised like any request (as `create`, which is what a stream into a pod amounts to),
 *  then spliced through to the pod's kubelet. */
export function createUpgradeHandler(deps: HandlerDeps) {
  const traceOpts = deps.trace ?? {};
  const slowMs = traceOpts.slowRequestThresholdMs ?? 1000;
  return async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://apiserver');
    // A stream's trace ends at the kubelet's first byte: the time to upgrade and to the first
    // output are what a slow exec is made of; how long the stream then stays open is not.
    const trace = new RequestTrace();
    let info: RequestInfo | undefined;
    let user: string | undefined;
    try {
      const refused = checkPath(rawPath(req.url ?? '/'));
      if (refused) throw refused;
      try {
        info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      } catch (e) {
        throw badRequest(`invalid request path ${JSON.stringify(url.pathname)}: ${(e as Error).message}`);
      }
      const who = await trace.time('authn', () => deps.authn.authenticate(req));
      user = who.user.username;
      if (!info.isResourceRequest || info.group !== '' || !isStreamSubresource(info.resource, info.subresource) || !info.namespace || !info.name) {
        throw badRequest(`upgrade requests are only served for pods/exec, pods/attach and pods/portforward, not ${url.pathname}`);
      }
      const attrs: RequestInfo = info = { ...info, verb: 'create' };
      bindTrace(info, trace);
      const denial = await trace.time('authz', () => deps.authz.authorize(who.user, attrs), (d) => d !== null);
      if (denial !== null) throw forbiddenError(info, denial);
      await deps.admission.admit({ operation: 'CONNECT', info, user: who.user, registry: deps.registries.get('', 'pods')!, object: connectOptions(info.subresource, url.searchParams), dryRun: false });
      deps.metrics.requests.inc({ verb: 'CONNECT', dry_run: '', group: '', version: info.version, resource: 'pods', subresource: info.subresource, scope: 'resource', component: 'apiserver', code: '101' });
      const firstByte = () => {
        trace.finish();
        logIfSlow(deps.log, trace, slowMs, req, 101, attrs, user);
      };
      await proxyStreamUpgrade(req, socket, head, info.namespace, info.name, info.subresource, url.searchParams, deps.registries, deps.kubelet,
        { trace, serverTiming: optedIn(req, traceOpts), firstByte });
    } catch (err) {
      const status = toStatusError(err, (msg, fields) => deps.log.error(msg, { ...fields, path: url.pathname, verb: 'upgrade' }));
      rejectUpgrade(socket, status);
      if (info) logIfSlow(deps.log, trace, slowMs, req, status.code, info, user);
    }
  };
}

/** Who made a request, for its log lines: the user, and who impersonated it. */
function requestUser(who: Authenticated | undefined): Record<string, string> {
  if (!who) return {};
  return { user: who.user.username, ...(who.impersonator ? { impersonator: who.impersonator.username } : {}) };
}
