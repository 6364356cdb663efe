// The ServiceAccount controller: every active namespace has a `default` ServiceAccount, and
// gets it back if it is deleted.
import { isAlreadyExists, resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import type { Namespace, ServiceAccount } from '../../api/kinds.js';

/** The ServiceAccounts each namespace must have. */
export const defaultServiceAccounts = ['default'];

export class ServiceAccountController extends QueueController {
  private namespaces: SharedInformer<Namespace>;
  private serviceAccounts: SharedInformer<ServiceAccount>;

  constructor(ctx: ControllerContext) {
    super('serviceaccount', ctx);
    this.namespaces = ctx.informers.informerFor(resources.namespaces);
    this.serviceAccounts = ctx.informers.informerFor(resources.serviceaccounts);
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.enqueue(ns),
      onUpdate: (_o, ns) => this.enqueue(ns),
    });
    this.serviceAccounts.addEventHandler({
      onDelete: (sa) => { if (defaultServiceAccounts.includes(sa.metadata.name as string)) this.enqueue(sa.metadata.namespace as string); },
    });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const ns = this.namespaces.lister.get(undefined, key);
    // A namespace on its way out takes no new content.
    if (!ns || ns.metadata.deletionTimestamp || (ns.status?.phase ?? 'Active') !== 'Active') return;
    const api = this.ctx.clients.resource(resources.serviceaccounts);
    for (const name of defaultServiceAccounts) {
      if (this.serviceAccounts.lister.get(key, name)) continue;
      try {
        await api.create(key, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: key } });
      } catch (e) {
        // Created meanwhile (or our cache is behind): either way it exists.
        if (!isAlreadyExists(e)) throw e;
      }
    }
  }
}
