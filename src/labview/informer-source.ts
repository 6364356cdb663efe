// The lab view's objects from informers over a clientset (`capstan lab view`, any kubeconfig).
// The admin tiers (policy.networking.k8s.io) join once their informers have listed: a cluster
// that does not serve them shows none and must not hold the view back.
import { resources, SharedInformerFactory, type ClientsetAPI, type EventHandler, type SharedInformer } from '../client/index.js';
import type { ObjectBase } from '../api/object.js';
import type { ViewInput } from './model.js';
import type { ViewSource } from './server.js';

type Informers = { [K in keyof ViewInput]-?: SharedInformer<NonNullable<ViewInput[K]>[number]> };
const OPTIONAL: readonly (keyof ViewInput)[] = ['adminPolicies', 'baselinePolicies'];

export class InformerViewSource implements ViewSource {
  private factory?: SharedInformerFactory;
  private informers?: Informers;
  private listeners: (() => void)[] = [];

  constructor(private clients: ClientsetAPI) {}

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    const f = this.factory = new SharedInformerFactory(this.clients, { resyncMs: 0 });
    const inf: Informers = this.informers = {
      nodes: f.informerFor(resources.nodes), pods: f.informerFor(resources.pods), services: f.informerFor(resources.services),
      slices: f.informerFor(resources.endpointslices), policies: f.informerFor(resources.networkpolicies),
      namespaces: f.informerFor(resources.namespaces),
      adminPolicies: f.informerFor(resources.adminnetworkpolicies), baselinePolicies: f.informerFor(resources.baselineadminnetworkpolicies),
    };
    const notify = () => { for (const fn of this.listeners) fn(); };
    const handler: EventHandler<ObjectBase> = { onAdd: notify, onUpdate: notify, onDelete: notify };
    for (const i of Object.values(inf)) (i as SharedInformer<ObjectBase>).addEventHandler(handler, 'lab-view');
    f.start();
    await Promise.all(Object.entries(inf).filter(([k]) => !OPTIONAL.includes(k as keyof ViewInput)).map(([, i]) => (i as SharedInformer<ObjectBase>).waitForSync()));
  }

  async snapshot(): Promise<ViewInput> {
    const i = this.informers;
    if (!i) throw new Error('the lab view source is not started');
    const list = <T extends ObjectBase>(inf: SharedInformer<T>) => (inf.hasSynced() ? inf.lister.list() : []);
    return {
      nodes: i.nodes.lister.list(), pods: i.pods.lister.list(), services: i.services.lister.list(),
      slices: i.slices.lister.list(), policies: i.policies.lister.list(), namespaces: i.namespaces.lister.list(),
      adminPolicies: list(i.adminPolicies), baselinePolicies: list(i.baselinePolicies),
    };
  }

  async stop(): Promise<void> {
    await this.factory?.stop();
    this.factory = undefined;
    this.informers = undefined;
  }
}
