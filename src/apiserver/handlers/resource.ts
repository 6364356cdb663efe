// The verbs on a resource: get, list, create, update, patch (delete and deletecollection are
// in delete.ts). Each reads the request, runs admission and the registry, and answers in the
// client's version and representation.
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf, isPlainObject } from '../../api/object.js';
import { parseFieldSelector, parseSelector, SelectorParseError } from '../../api/labels.js';
import { ref } from '../../api/schema.js';
import { applyPatch, PatchError, patchKindFor } from '../patch/index.js';
import { badRequest, methodNotAllowed, StatusError } from '../errors.js';
import { decodeBody, readBody } from '../body.js';
import { decodeVersioned, duplicateFieldWarnings, parseFieldValidation } from '../decode-object.js';
import { sendEncodedList, sendObject } from '../respond.js';
import { queryBool } from '../query.js';
import { partialObjectMetadata, toTable, type IncludeObject } from '../table.js';
import type { AdmissionChain } from '../admission.js';
import type { FieldTracker } from '../managed-fields.js';
import { prepareVersioned, versioned, type HandlerContext } from './context.js';
import type { WatchCache } from '../../storage/watch-cache.js';
import { atExactRevision, freshSource, listSource } from '../read-source.js';
import { decodedOnce, encodedBytesOnce } from '../encoded-once.js';
import type { KeyValue } from '../../storage/store.js';
import { getReadAt, listReadAt } from '../resource-version.js';
import { traced } from '../trace/request-trace.js';

export interface ResourceHandlerDeps {
  admission: AdmissionChain;
  fields: FieldTracker;
  /** Where a read-modify-write first looks for the current object (GenericRegistry.update's guess). */
  cache?: WatchCache;
}

export function selectors(h: HandlerContext) {
  try {
    return {
      labelSelector: parseSelector(h.query.get('labelSelector') ?? ''),
      fieldSelector: parseFieldSelector(h.query.get('fieldSelector') ?? ''),
    };
  } catch (e) {
    if (e instanceof SelectorParseError) throw badRequest(`unable to parse requirement: ${e.message}`);
    throw e;
  }
}

function includeObject(h: HandlerContext): IncludeObject {
  const v = h.query.get('includeObject') ?? 'Metadata';
  if (v !== 'None' && v !== 'Metadata' && v !== 'Object') throw badRequest(`includeObject: unsupported value ${v}`);
  return v;
}

export function writeWarnings(h: HandlerContext): void {
  if (h.warnings.length && !h.res.headersSent) {
    // Keeps a warning set before the handler ran (a deprecated version's).
    const before = h.res.getHeader('Warning');
    const kept = before === undefined ? [] : Array.isArray(before) ? before : [String(before)];
    h.res.setHeader('Warning', [...kept, ...h.warnings.map((w) => `299 - ${JSON.stringify(w)}`)]);
  }
}

/** One object in the representation the client asked for. */
export async function respondObject(h: HandlerContext, code: number, obj: KubeObject): Promise<void> {
  await prepareVersioned(h, [obj]);
  writeWarnings(h);
  if (h.accept === 'table') {
    return sendObject(h.res, code, toTable(h.reg, [obj], { resourceVersion: obj.metadata.resourceVersion }, includeObject(h), (o) => versioned(h, o), undefined, h.version));
  }
  if (h.accept === 'partial-metadata') return sendObject(h.res, code, partialObjectMetadata(versioned(h, obj)));
  sendObject(h.res, code, versioned(h, obj), h.accept);
}

/** Without `cache` (subresources) the object is read from storage. */
export async function getResource(h: HandlerContext, cache?: WatchCache): Promise<void> {
  const source = cache ? await freshSource(getReadAt(h.query), cache, h.reg.store) : h.reg.store;
  const obj = await traced(h.info, 'read', () => h.reg.get(h.info.namespace || undefined, h.info.name, source));
  await respondObject(h, 200, obj);
}

export async function listResource(h: HandlerContext, cache: WatchCache): Promise<void> {
  const limitText = h.query.get('limit');
  const limit = limitText ? Number(limitText) : 0;
  if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitText}`);
  const at = listReadAt(h.query, limit);
  // Items are shared decodings (a cached object version is decoded once), only read here. Not
  // for a version a conversion webhook converts: its conversions are remembered per object, and
  // each response must ask the webhook again, as upstream does.
  const decode = h.version.prepare ? undefined : (kv: KeyValue) => decodedOnce(h.reg, kv.value, kv.modRevision, kv.key);
  const opts = { namespace: h.info.namespace || undefined, ...selectors(h), limit, continueToken: h.query.get('continue') ?? undefined, decode };
  const result = await traced(h.info, 'read', async () => at.kind === 'exact'
    ? await atExactRevision(at.revision, cache, () => h.reg.list({ ...opts, revision: at.revision }))
    // As upstream, resourceVersion=0 returns the whole cached list whatever the limit.
    : await h.reg.list({ ...opts, limit: at.kind === 'any' ? 0 : limit, source: await listSource(at, cache, h.reg.store, !!opts.continueToken) }));
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continueToken) meta.continue = result.continueToken;
  if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
  await prepareVersioned(h, result.items);
  if (h.accept === 'table') {
    return sendObject(h.res, 200, toTable(h.reg, result.items, meta, includeObject(h), (o) => versioned(h, o), undefined, h.version));
  }
  const apiVersion = apiVersionOf(h.reg.def.group, h.version.version);
  if (h.accept === 'partial-metadata') {
    return sendObject(h.res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items: result.items.map((o) => partialObjectMetadata(versioned(h, o))) });
  }
  const head = { kind: h.reg.def.listKind, apiVersion, metadata: meta };
  if (h.accept === 'json' && !h.version.prepare) {
    // Each object version is serialised once and reused by later lists and watch events.
    const representation = `${h.reg.def.group}/${h.version.version}/json`;
    const encoded = result.items.map((o) => encodedBytesOnce(o, representation, () => JSON.stringify(versioned(h, o))));
    return sendEncodedList(h.res, 200, head, encoded, () => result.items.map((o) => versioned(h, o)));
  }
  sendObject(h.res, 200, { ...head, items: result.items.map((o) => versioned(h, o)) }, h.accept);
}

function readObject(h: HandlerContext): Promise<KubeObject> {
  return traced(h.info, 'decode', () => decodeObject(h));
}

async function decodeObject(h: HandlerContext): Promise<KubeObject> {
  const body = decodeBody(await readBody(h.req), h.req.headers['content-type']);
  if (body.kind !== 'json' && body.kind !== 'yaml' && body.kind !== 'protobuf') throw badRequest(`unsupported content type for ${h.info.verb}: ${h.req.headers['content-type']}`);
  const validation = parseFieldValidation(h.query.get('fieldValidation'));
  const duplicates = duplicateFieldWarnings(body.duplicates, validation);
  const toInternalAsync = h.version.toInternalAsync;
  const { object, warnings } = decodeVersioned(h.reg, h.version, body.value, validation, toInternalAsync ? { convert: false } : {});
  h.warnings.push(...duplicates, ...warnings);
  return toInternalAsync ? toInternalAsync(object) : object;
}

function checkNamespace(h: HandlerContext, obj: KubeObject): void {
  if (!h.reg.def.namespaced) return;
  if (obj.metadata.namespace && obj.metadata.namespace !== h.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = h.info.namespace;
}

/**
 * Runs admission and the registry's create; shared by POST and by apply-creates. `obj` is the
 * field manager's fresh result, used for nothing else: the registry prepares it in place.
 */
async function createObject(h: HandlerContext, deps: ResourceHandlerDeps, obj: KubeObject): Promise<KubeObject> {
  checkNamespace(h, obj);
  await deps.admission.admit({ operation: 'CREATE', info: h.info, user: h.user, registry: h.reg, object: obj, dryRun: h.ctx.dryRun, warnings: h.warnings });
  return h.reg.create(obj, h.ctx, { owned: true });
}

export async function createResource(h: HandlerContext, deps: ResourceHandlerDeps): Promise<void> {
  if (h.info.name) throw methodNotAllowed(`the server does not allow this method on the requested resource`);
  const obj = await readObject(h);
  const tracked = deps.fields.update(h, null, obj, '');
  await respondObject(h, 201, await createObject(h, deps, tracked));
}

export async function updateResource(h: HandlerContext, deps: ResourceHandlerDeps, subresource = ''): Promise<void> {
  const obj = await readObject(h);
  const updated = await h.reg.update(h.info.namespace || undefined, h.info.name, async (current) => {
    const next = deps.fields.update(h, current, obj, subresource);
    await deps.admission.admit({ operation: 'UPDATE', info: h.info, user: h.user, registry: h.reg, object: next, oldObject: current, dryRun: h.ctx.dryRun, warnings: h.warnings });
    return next;
  }, h.ctx, subresource, deps.cache);
  await respondObject(h, 200, updated);
}

export async function patchResource(h: HandlerContext, deps: ResourceHandlerDeps, subresource = ''): Promise<void> {
  const body = await traced(h.info, 'decode', async () => decodeBody(await readBody(h.req), h.req.headers['content-type']));
  const validation = parseFieldValidation(h.query.get('fieldValidation'));
  const duplicates = duplicateFieldWarnings(body.duplicates, validation);
  const ns = h.info.namespace || undefined;
  if (body.kind === 'apply-patch') {
    h.warnings.push(...duplicates);
    const force = queryBool(h.query, 'force');
    const manager = h.query.get('fieldManager');
    if (!manager) throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
    if (!isPlainObject(body.value)) throw badRequest('apply configuration must be an object');
    const sent = body.value as KubeObject;
    if (!sent.apiVersion || !sent.kind) throw badRequest('apply configuration must set apiVersion and kind');
    // The configuration is decoded once, as the user wrote it: unknown fields are dropped
    // (or refused with Strict), as every other write does.
    const { object: applied, warnings } = decodeVersioned(h.reg, h.version, sent, validation, { convert: false });
    h.warnings.push(...warnings);
    let exists = true;
    try { await h.reg.get(ns, h.info.name); } catch (e) { if (e instanceof StatusError && e.code === 404) exists = false; else throw e; }
    if (!exists && !subresource) {
      const created = await deps.fields.apply(h, null, applied, force, subresource);
      created.metadata.name ??= h.info.name;
      if (created.metadata.name !== h.info.name) throw badRequest(`the name of the object (${created.metadata.name}) does not match the name on the URL (${h.info.name})`);
      return respondObject(h, 201, await createObject(h, deps, created));
    }
    const updated = await h.reg.update(ns, h.info.name, async (current) => {
      const next = await deps.fields.apply(h, current, applied, force, subresource);
      await deps.admission.admit({ operation: 'UPDATE', info: h.info, user: h.user, registry: h.reg, object: next, oldObject: current, dryRun: h.ctx.dryRun, warnings: h.warnings });
      return next;
    }, h.ctx, subresource);
    return respondObject(h, 200, updated);
  }
  const kind = patchKindFor(String(h.req.headers['content-type'] ?? ''));
  if (kind === 'strategic' && h.reg.def.custom) throw new StatusError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  if (!kind) throw new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`);
  const schema = ref(h.version.schemaName);
  const updated = await h.reg.update(ns, h.info.name, async (current) => {
    await prepareVersioned(h, [current]);
    const currentVersioned = versioned(h, current);
    let patched: unknown;
    try {
      patched = applyPatch(kind, currentVersioned, body.value, schema);
    } catch (e) {
      if (e instanceof PatchError) throw new StatusError(e.code, e.reason, e.message);
      throw e;
    }
    const toInternalAsync = h.version.toInternalAsync;
    const decoded = decodeVersioned(h.reg, h.version, patched, validation, { patched: true, ...(toInternalAsync ? { convert: false } : {}) });
    const object = toInternalAsync ? await toInternalAsync(decoded.object) : decoded.object;
    h.warnings.splice(0, h.warnings.length, ...duplicates, ...decoded.warnings);
    // A patch that does not name a resourceVersion is unconditional.
    const bodyRV = isPlainObject(body.value) && isPlainObject(body.value.metadata) ? body.value.metadata.resourceVersion : undefined;
    if (!bodyRV) object.metadata.resourceVersion = undefined;
    const next = deps.fields.update(h, current, object, subresource);
    await deps.admission.admit({ operation: 'UPDATE', info: h.info, user: h.user, registry: h.reg, object: next, oldObject: current, dryRun: h.ctx.dryRun, warnings: h.warnings });
    return next;
  }, h.ctx, subresource, deps.cache);
  await respondObject(h, 200, updated);
}
