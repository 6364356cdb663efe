// DELETE of one object and of a collection, after k8s.io/apiserver's handlers/delete.go and
// the registry store's Delete/DeleteCollection: what options count, and what a client gets back.
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf, isPlainObject } from '../../api/object.js';
import { invalidValue, notSupported } from '../../api/validation.js';
import { badRequest, invalid, StatusError, type FieldError } from '../errors.js';
import { decodeBody, readBody } from '../body.js';
import { queryFlag } from '../query.js';
import { sendObject } from '../respond.js';
import type { DeleteOptions } from '../registry/index.js';
import { prepareVersioned, versioned, type HandlerContext } from './context.js';
import { respondObject, selectors, writeWarnings, type ResourceHandlerDeps } from './resource.js';
import { bindTrace, traceOf, traced } from '../trace/request-trace.js';

const policies = ['Foreground', 'Background', 'Orphan'];

interface RequestedDelete {
  options: DeleteOptions;
  /** The deprecated field as sent: it also decides the reply's status code. */
  orphanDependents?: boolean;
}

/** The raw DeleteOptions: the body when there is one, else the query (never both, as upstream). */
async function rawOptions(h: HandlerContext): Promise<Record<string, unknown>> {
  const raw = await readBody(h.req);
  if (raw.toString().trim()) {
    const body = decodeBody(raw, h.req.headers['content-type']);
    if (!isPlainObject(body.value)) throw badRequest('DeleteOptions must be an object');
    const dryRun = body.value.dryRun;
    h.ctx.dryRun = Array.isArray(dryRun) && dryRun.length > 0;
    return body.value;
  }
  const q = h.query;
  return {
    gracePeriodSeconds: q.get('gracePeriodSeconds') ?? undefined,
    propagationPolicy: q.get('propagationPolicy') ?? undefined,
    orphanDependents: queryFlag(q, 'orphanDependents'),
    dryRun: q.getAll('dryRun'),
  };
}

async function requestedDelete(h: HandlerContext): Promise<RequestedDelete> {
  const opts = await rawOptions(h);
  const errs: FieldError[] = [];
  const policy = opts.propagationPolicy ?? undefined;
  const orphan = opts.orphanDependents ?? undefined;
  if (orphan !== undefined && typeof orphan !== 'boolean') throw badRequest(`orphanDependents: expected a boolean, got ${JSON.stringify(orphan)}`);
  if (orphan !== undefined && policy !== undefined) errs.push(invalidValue('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  if (policy !== undefined && !policies.includes(policy as string)) errs.push(notSupported('propagationPolicy', policy, [...policies, 'nil']));
  for (const d of Array.isArray(opts.dryRun) ? opts.dryRun : []) {
    if (d !== 'All') errs.push(notSupported('dryRun', d, ['All']));
  }
  if (errs.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errs);

  const options: DeleteOptions = {};
  const grace = opts.gracePeriodSeconds ?? undefined;
  if (grace !== undefined) {
    const g = Number(grace);
    if (grace === '' || !Number.isInteger(g)) throw badRequest(`invalid gracePeriodSeconds: ${String(grace)}`);
    // A negative grace period means "as soon as possible": one second.
    options.gracePeriodSeconds = g < 0 ? 1 : g;
  }
  if (policy !== undefined) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  else if (orphan !== undefined) options.propagationPolicy = orphan ? 'Orphan' : 'Background';
  if (isPlainObject(opts.preconditions)) options.preconditions = opts.preconditions as DeleteOptions['preconditions'];
  return { options, orphanDependents: orphan as boolean | undefined };
}

/** What upstream answers for an object that is gone: details.kind is the resource, as it words it. */
function successStatus(h: HandlerContext, obj: KubeObject): Record<string, unknown> {
  const details: Record<string, unknown> = { name: obj.metadata.name };
  if (h.reg.def.group) details.group = h.reg.def.group;
  details.kind = h.reg.def.resource;
  details.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/**
 * An object that is gone is answered with a `Status` of `Success`, unless its kind returns
 * deleted objects (pods, services, namespaces, service accounts); one still present — graceful
 * deletion or finalizers pending — is returned as it now is.
 */
export async function deleteResource(h: HandlerContext, deps: ResourceHandlerDeps): Promise<void> {
  const { options, orphanDependents } = await requestedDelete(h);
  const ns = h.info.namespace || undefined;
  const current = await h.reg.get(ns, h.info.name);
  await deps.admission.admit({ operation: 'DELETE', info: h.info, user: h.user, registry: h.reg, oldObject: current, dryRun: h.ctx.dryRun, warnings: h.warnings });
  const { object, deleted } = await h.reg.delete(ns, h.info.name, options, h.ctx);
  if (deleted && !h.reg.def.returnDeletedObject) {
    writeWarnings(h);
    return sendObject(h.res, 200, successStatus(h, object), h.accept === 'yaml' ? 'yaml' : 'json');
  }
  // 202 only for clients that asked for cascading through the deprecated field, as upstream.
  await respondObject(h, !deleted && orphanDependents === false ? 202 : 200, object);
}

/** Deletes what the selectors match and answers with the list as it was before. */
export async function deleteCollection(h: HandlerContext, deps: ResourceHandlerDeps): Promise<void> {
  const { options } = await requestedDelete(h);
  const { items, resourceVersion } = await traced(h.info, 'read', () => h.reg.list({ namespace: h.info.namespace || undefined, ...selectors(h) }));
  const trace = traceOf(h.info);
  for (const item of items) {
    // Each item is admitted as its own DELETE; its plugins are stages of this request's trace.
    const info = { ...h.info, name: item.metadata.name as string };
    if (trace) bindTrace(info, trace);
    try {
      await deps.admission.admit({ operation: 'DELETE', info, user: h.user, registry: h.reg, oldObject: item, dryRun: h.ctx.dryRun, warnings: h.warnings });
      await h.reg.delete(item.metadata.namespace, item.metadata.name as string, options, h.ctx);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  writeWarnings(h);
  await prepareVersioned(h, items);
  sendObject(h.res, 200, { kind: h.reg.def.listKind, apiVersion: apiVersionOf(h.reg.def.group, h.version.version), metadata: { resourceVersion }, items: items.map((o) => versioned(h, o)) }, h.accept === 'yaml' ? 'yaml' : 'json');
}
