// POST pods/NAME/eviction: a policy/v1 (or v1beta1) Eviction in, the pod deleted if its
// disruption budget allows, as kube-apiserver's EvictionREST. The budget's
// status.disruptionsAllowed is decremented and the pod recorded in status.disruptedPods in one
// write with optimistic concurrency (a conflicting write re-reads the budget and decides again),
// so two evictions never spend one allowed disruption. A refusal is 429 TooManyRequests.
import { isPlainObject, type KubeObject } from '../../api/object.js';
import type { Pod, PodDisruptionBudget } from '../../api/kinds.js';
import { budgetCovers, DisruptionTarget, isPodReady, setStatusCondition, withDisruptionAllowedCondition } from '../../api/policy/disruption.js';
import { rfc3339 } from '../../api/time.js';
import { decodeBody, readBody } from '../body.js';
import { badRequest, forbidden, internalError, methodNotAllowed, StatusError } from '../errors.js';
import { sendObject } from '../respond.js';
import type { DeleteOptions, GenericRegistry, Registries, RequestContext } from '../registry/index.js';
import type { AdmissionChain } from '../admission.js';
import type { HandlerContext } from './context.js';
import { writeWarnings } from './resource.js';

/** Upstream's MaxDisruptedPodSize: evictions the controller has not confirmed yet. */
const maxDisruptedPods = 2000;
const violates = "Cannot evict pod as it would violate the pod's disruption budget.";

/** A 429 with a DisruptionBudget cause, as upstream's checkAndDecrement. */
function tooManyRequests(why: string, retryAfterSeconds = 0): StatusError {
  return new StatusError(429, 'TooManyRequests', violates, {
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    causes: [{ reason: 'DisruptionBudget', message: why }],
  });
}

/** Upstream's propagateDryRun: a dry run when the query or the body's deleteOptions.dryRun asks for one. */
function deleteOptionsOf(eviction: Record<string, unknown>, queryDryRun: boolean): { options: DeleteOptions; dryRun: boolean } {
  const raw = isPlainObject(eviction.deleteOptions) ? eviction.deleteOptions : {};
  const bodyDryRun = Array.isArray(raw.dryRun) ? raw.dryRun as unknown[] : [];
  // Both can only say `All` (anything else is refused), so they never disagree.
  for (const d of bodyDryRun) if (d !== 'All') throw badRequest(`unsupported dry run value: ${String(d)}`);
  const options: DeleteOptions = {};
  if (raw.gracePeriodSeconds !== undefined && raw.gracePeriodSeconds !== null) {
    const g = Number(raw.gracePeriodSeconds);
    if (!Number.isInteger(g)) throw badRequest(`invalid gracePeriodSeconds: ${String(raw.gracePeriodSeconds)}`);
    options.gracePeriodSeconds = g < 0 ? 1 : g;
  }
  if (typeof raw.propagationPolicy === 'string') options.propagationPolicy = raw.propagationPolicy as DeleteOptions['propagationPolicy'];
  if (isPlainObject(raw.preconditions)) options.preconditions = { ...raw.preconditions } as DeleteOptions['preconditions'];
  return { options, dryRun: queryDryRun || bodyDryRun.length > 0 };
}

/** Pods a budget need not protect: finished, not yet running, or already going (canIgnorePDB). */
function canIgnoreBudget(pod: KubeObject): boolean {
  return ['Succeeded', 'Failed', 'Pending'].includes(pod.status?.phase) || !!pod.metadata.deletionTimestamp;
}

export async function evictPod(h: HandlerContext, registries: Registries, admission: AdmissionChain): Promise<void> {
  if (h.info.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const ns = h.info.namespace, name = h.info.name;
  const body = decodeBody(await readBody(h.req), h.req.headers['content-type']).value;
  if (!isPlainObject(body)) throw badRequest('Eviction must be an object');
  if (body.kind !== undefined && body.kind !== 'Eviction') throw badRequest(`Eviction expected, got ${String(body.kind)}`);
  if (body.apiVersion !== undefined && !['policy/v1', 'policy/v1beta1'].includes(body.apiVersion as string)) throw badRequest(`policy/v1 Eviction expected, got ${String(body.apiVersion)}`);
  const meta = isPlainObject(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const { options, dryRun } = deleteOptionsOf(body, h.ctx.dryRun);
  const ctx: RequestContext = { ...h.ctx, dryRun };
  const eviction = { kind: 'Eviction', apiVersion: 'policy/v1', metadata: { ...meta, name, namespace: ns }, ...(isPlainObject(body.deleteOptions) ? { deleteOptions: body.deleteOptions } : {}) } as KubeObject;
  await admission.admit({ operation: 'CREATE', info: h.info, user: h.user, registry: h.reg, object: eviction, dryRun, warnings: h.warnings });

  const pods = h.reg;
  const pod = await pods.get(ns, name);
  if (!canIgnoreBudget(pod)) await spendBudget(registries, pod, options, ctx);
  await markAndDelete(pods, ns, name, options, ctx);
  writeWarnings(h);
  sendObject(h.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

/**
 * Checks the pod's one budget and takes a disruption from it. A not-ready pod is evicted
 * without spending one when the budget is healthy without it (IfHealthyBudget) or always
 * (AlwaysAllow); its deletion is then tied to the pod's resourceVersion, so a pod that became
 * ready meanwhile is not taken.
 */
async function spendBudget(registries: Registries, pod: KubeObject, options: DeleteOptions, ctx: RequestContext): Promise<void> {
  const budgets = registries.get('policy', 'poddisruptionbudgets')!;
  const { items } = await budgets.list({ namespace: pod.metadata.namespace });
  const covering = (items as PodDisruptionBudget[]).filter((b) => budgetCovers(b, pod as Pod));
  if (covering.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  if (!covering.length) return;
  const ready = isPodReady(pod as Pod);
  let unguarded = false;
  await budgets.update(pod.metadata.namespace, covering[0].metadata.name!, (current) => {
    const pdb = current as PodDisruptionBudget;
    const status = pdb.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    unguarded = !ready && (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow'
      || (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0));
    if (unguarded) return current;
    const budgetName = pdb.metadata.name!;
    if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw tooManyRequests(`The disruption budget ${budgetName} is still being processed by the server.`, 10);
    if (status.disruptionsAllowed < 0) throw forbidden(`poddisruptionbudget.policy "${budgetName}" is forbidden: pdb disruptions allowed is negative`, { name: budgetName, group: 'policy', kind: 'poddisruptionbudget' });
    if (Object.keys(status.disruptedPods ?? {}).length > maxDisruptedPods) throw forbidden(`poddisruptionbudget.policy "${budgetName}" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`, { name: budgetName, group: 'policy', kind: 'poddisruptionbudget' });
    if (status.disruptionsAllowed === 0) throw tooManyRequests(`The disruption budget ${budgetName} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`);
    let next: NonNullable<PodDisruptionBudget['status']> = { ...status, disruptionsAllowed: status.disruptionsAllowed - 1, disruptedPods: { ...status.disruptedPods, [pod.metadata.name as string]: rfc3339(ctx.now) } };
    if (next.disruptionsAllowed === 0) next = withDisruptionAllowedCondition(next, ctx.now);
    return { ...current, metadata: { ...current.metadata, resourceVersion: undefined }, status: next } as KubeObject;
  }, ctx, 'status');
  if (unguarded && !options.preconditions?.resourceVersion) options.preconditions = { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion };
}

/** Adds the DisruptionTarget condition (not on a dry run), then deletes with the eviction's options. */
async function markAndDelete(pods: GenericRegistry, ns: string, name: string, options: DeleteOptions, ctx: RequestContext): Promise<void> {
  if (!ctx.dryRun) {
    const marked = await pods.update(ns, name, (pod) => {
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== pod.metadata.uid) throw new StatusError(409, 'Conflict', `Operation cannot be fulfilled on pods "${name}": Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${pod.metadata.uid}`, { name, kind: 'pods' });
      if (pre?.resourceVersion && pre.resourceVersion !== pod.metadata.resourceVersion) throw new StatusError(409, 'Conflict', `Operation cannot be fulfilled on pods "${name}": Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion}`, { name, kind: 'pods' });
      const conditions = setStatusCondition(pod.status?.conditions ?? [], { type: DisruptionTarget, status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, ctx.now);
      return { ...pod, metadata: { ...pod.metadata, resourceVersion: undefined }, status: { ...pod.status, conditions } };
    }, ctx, 'status');
    // The condition is our own write: the deletion's resourceVersion precondition follows it.
    if (options.preconditions?.resourceVersion) options.preconditions.resourceVersion = marked.metadata.resourceVersion;
  }
  await pods.delete(ns, name, options, ctx);
}
