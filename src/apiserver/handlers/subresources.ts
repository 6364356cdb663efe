// Subresources: status (the resource's own handlers, with the status strategy), scale
// (autoscaling/v1 Scale over spec.replicas), pods/binding (the scheduler's write), and a
// namespace's finalize, and a CertificateSigningRequest's approval.
import type { KubeObject } from '../../api/object.js';
import { isPlainObject } from '../../api/object.js';
import { ref } from '../../api/schema.js';
import { rfc3339 } from '../../api/time.js';
import { applyPatch, PatchError, patchKindFor } from '../patch/index.js';
import { badRequest, conflict, methodNotAllowed, noSuchPath, StatusError } from '../errors.js';
import { decodeBody, readBody } from '../body.js';
import { decodeVersioned, parseFieldValidation } from '../decode-object.js';
import { sendObject } from '../respond.js';
import type { HandlerContext } from './context.js';
import { getResource, patchResource, updateResource, writeWarnings, type ResourceHandlerDeps } from './resource.js';

function toScale(h: HandlerContext, obj: KubeObject): KubeObject {
  const scale = h.reg.def.scale!;
  const m = obj.metadata;
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: scale.replicas(obj) },
    status: { replicas: scale.statusReplicas(obj), selector: scale.selector(obj) },
  };
}

async function scaleHandler(h: HandlerContext, deps: ResourceHandlerDeps): Promise<void> {
  const scale = h.reg.def.scale!;
  const ns = h.info.namespace || undefined;
  if (h.info.verb === 'get') return sendObject(h.res, 200, toScale(h, await h.reg.get(ns, h.info.name)), h.accept === 'yaml' ? 'yaml' : 'json');
  if (h.info.verb !== 'update' && h.info.verb !== 'patch') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const body = decodeBody(await readBody(h.req), h.req.headers['content-type']);
  const validation = parseFieldValidation(h.query.get('fieldValidation'));
  const scaleVersion = { version: 'v1', schemaName: 'io.k8s.api.autoscaling.v1.Scale', toInternal: (o: KubeObject) => o, fromInternal: (o: KubeObject) => o };
  const updated = await h.reg.update(ns, h.info.name, async (current) => {
    let desired: unknown = body.value;
    if (h.info.verb === 'patch') {
      const kind = patchKindFor(String(h.req.headers['content-type'] ?? ''));
      if (!kind) throw new StatusError(415, 'UnsupportedMediaType', 'unsupported patch type for scale');
      try {
        desired = applyPatch(kind, toScale(h, current), body.value, ref('io.k8s.api.autoscaling.v1.Scale'));
      } catch (e) {
        if (e instanceof PatchError) throw new StatusError(e.code, e.reason, e.message);
        throw e;
      }
    }
    const { object } = decodeVersioned(h.reg, scaleVersion, desired, validation, { kind: 'Scale', apiVersion: 'autoscaling/v1', convert: false, patched: h.info.verb === 'patch' });
    const replicas = object.spec?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw new StatusError(422, 'Invalid', `Scale.autoscaling "${h.info.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, { name: h.info.name, group: 'autoscaling', kind: 'Scale', causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'must be greater than or equal to 0' }] });
    }
    const next = structuredClone(current);
    scale.setReplicas(next, replicas);
    next.metadata.resourceVersion = h.info.verb === 'update' || object.metadata?.resourceVersion ? object.metadata?.resourceVersion : undefined;
    // Admission sees the Scale, as upstream's scale subresource hands it to the chain.
    await deps.admission.admit({ operation: 'UPDATE', info: h.info, user: h.user, registry: h.reg, object: toScale(h, next), oldObject: toScale(h, current), dryRun: h.ctx.dryRun, warnings: h.warnings });
    return deps.fields.update(h, current, next, 'scale');
  }, h.ctx, '', deps.cache);
  writeWarnings(h);
  sendObject(h.res, 200, toScale(h, updated), h.accept === 'yaml' ? 'yaml' : 'json');
}

async function bindingHandler(h: HandlerContext, deps: ResourceHandlerDeps): Promise<void> {
  if (h.info.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const body = decodeBody(await readBody(h.req), h.req.headers['content-type']);
  if (!isPlainObject(body.value)) throw badRequest('Binding must be an object');
  const target = body.value.target;
  if (!isPlainObject(target) || typeof target.name !== 'string' || !target.name) {
    throw new StatusError(422, 'Invalid', `Binding "${h.info.name}" is invalid: target.name: Required value`);
  }
  if (target.kind && target.kind !== 'Node') throw new StatusError(422, 'Invalid', `Binding "${h.info.name}" is invalid: target.kind: Unsupported value: "${String(target.kind)}"`);
  const name = (isPlainObject(body.value.metadata) && body.value.metadata.name) || h.info.name;
  const binding = { kind: 'Binding', apiVersion: 'v1', metadata: { ...(isPlainObject(body.value.metadata) ? body.value.metadata : {}), name, namespace: h.info.namespace }, target } as KubeObject;
  await deps.admission.admit({ operation: 'CREATE', info: h.info, user: h.user, registry: h.reg, object: binding, dryRun: h.ctx.dryRun, warnings: h.warnings });
  await h.reg.update(h.info.namespace, name as string, (pod) => {
    if (pod.metadata.deletionTimestamp) throw conflict('pods', '', name as string, 'pod is being deleted, cannot be assigned to a host');
    if (pod.spec?.nodeName) throw conflict('pods', '', name as string, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
    pod.spec = { ...pod.spec, nodeName: target.name };
    const conds = ((pod.status?.conditions ?? []) as KubeObject[]).filter((c) => c.type !== 'PodScheduled');
    conds.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(h.ctx.now) } as unknown as KubeObject);
    pod.status = { ...pod.status, conditions: conds };
    return pod;
  }, h.ctx, 'binding', deps.cache);
  writeWarnings(h);
  sendObject(h.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

export async function subresourceHandler(h: HandlerContext, deps: ResourceHandlerDeps): Promise<void> {
  const sub = h.info.subresource;
  const d = h.reg.def;
  // status, and a CertificateSigningRequest's approval: the object, written through its own strategy.
  if ((sub === 'status' && d.statusStrategy) || (sub === 'approval' && d.subresourceStrategies?.approval)
    || (sub === 'ephemeralcontainers' && d.subresourceStrategies?.ephemeralcontainers)) {
    if (h.info.verb === 'get') return getResource(h);
    if (h.info.verb === 'update') return updateResource(h, deps, sub);
    if (h.info.verb === 'patch') return patchResource(h, deps, sub);
    throw methodNotAllowed('the server does not allow this method on the requested resource');
  }
  if (sub === 'scale' && d.scale) return scaleHandler(h, deps);
  if (sub === 'binding' && d.extraSubresources?.includes('binding')) return bindingHandler(h, deps);
  if (sub === 'finalize' && d.subresourceStrategies?.finalize) {
    if (h.info.verb !== 'update') throw methodNotAllowed('the server does not allow this method on the requested resource');
    return updateResource(h, deps, 'finalize');
  }
  throw noSuchPath();
}
