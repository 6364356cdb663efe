// The Namespace controller: a Namespace with a deletionTimestamp is emptied of every
// namespaced object, and once nothing is left its `kubernetes` finalizer is removed through
// /finalize, after which the API server deletes it.
import type { KubeObject } from '../../api/object.js';
import { rfc3339 } from '../../api/time.js';
import { isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { backoffDelay } from '../../util/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { deletionConditions, mergeConditions, type NamespaceCondition } from './conditions.js';
import { deleteContent } from './content.js';
import type { ResourceDiscovery } from './discovery.js';

/** The finalizer this controller owns in spec.finalizers. */
export const kubernetesFinalizer = 'kubernetes';

/** Waits between passes over a namespace whose content does not go away: doubling, capped. */
const minRetryMs = 1000;
const maxRetryMs = 60_000;

export class NamespaceController extends QueueController {
  private namespaces: SharedInformer;
  /** Passes that found content left, per namespace: the backoff exponent. */
  private passes = new Map<string, number>();

  constructor(ctx: ControllerContext, private discovery: ResourceDiscovery) {
    super('namespace', ctx);
    this.namespaces = ctx.informers.informerFor(resources.namespaces);
    this.namespaces.addEventHandler({
      onAdd: (ns) => { if (ns.metadata.deletionTimestamp) this.enqueue(ns); },
      onUpdate: (_o, ns) => { if (ns.metadata.deletionTimestamp) this.enqueue(ns); },
      onDelete: (ns) => this.passes.delete(ns.metadata.name as string),
    });
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    const ns = this.namespaces.lister.get(undefined, name);
    if (!ns?.metadata.deletionTimestamp || !((ns.spec?.finalizers ?? []) as string[]).includes(kubernetesFinalizer)) {
      this.passes.delete(name);
      return;
    }
    const { types, failures: discoveryFailures } = await this.discovery.namespacedDeletable();
    const content = await deleteContent(this.ctx.clients, types, name, this.ctx.clock.now());
    await this.reportConditions(ns, deletionConditions(discoveryFailures, content));

    if (discoveryFailures.length) throw new Error(`discovery failed for namespace ${name}: ${discoveryFailures.join(', ')}`);
    if (content.failures.length) throw new Error(`deleting content of namespace ${name} failed: ${content.failures.join(', ')}`);
    if (content.remaining.size) {
      const n = this.passes.get(name) ?? 0;
      this.passes.set(name, n + 1);
      // Kubernetes looks again after half the estimated time; without a kubelet to finish
      // the Pods that estimate never comes true, so the waits also grow.
      const estimateMs = (Math.floor(content.estimateSeconds / 2) + 1) * 1000;
      const wait = Math.max(estimateMs, backoffDelay({ initialMs: minRetryMs, maxMs: maxRetryMs }, n));
      this.log.info('namespace content remaining', { namespace: name, remaining: Object.fromEntries(content.remaining), retryInMs: wait });
      return { requeueAfterMs: wait };
    }
    await this.finalize(name);
    this.passes.delete(name);
  }

  private async reportConditions(ns: KubeObject, next: NamespaceCondition[]): Promise<void> {
    const merged = mergeConditions((ns.status?.conditions ?? []) as NamespaceCondition[], next, rfc3339(new Date(this.ctx.clock.now())));
    if (!merged) return;
    try {
      await this.ctx.clients.resource(resources.namespaces).patch(undefined, ns.metadata.name as string, 'merge', { status: { conditions: merged } }, 'status');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** PUT /api/v1/namespaces/<name>/finalize without our finalizer. */
  private async finalize(name: string): Promise<void> {
    const api = this.ctx.clients.resource(resources.namespaces);
    let ns: KubeObject;
    try {
      ns = await api.get(undefined, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    const finalizers = ((ns.spec?.finalizers ?? []) as string[]).filter((f) => f !== kubernetesFinalizer);
    ns.spec = { ...ns.spec, finalizers };
    try {
      await api.update(ns, 'finalize');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.log.info('namespace finalized', { namespace: name });
  }
}
