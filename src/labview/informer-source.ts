// The lab view's objects from informers over a clientset (`capstan lab view`, any kubeconfig).
import { resources, SharedInformerFactory, type ClientsetAPI, type EventHandler, type SharedInformer } from '../client/index.js';
import type { ObjectBase } from '../api/object.js';
import type { ViewInput } from './model.js';
import type { ViewSource } from './server.js';

export class InformerViewSource implements ViewSource {
  private factory?: SharedInformerFactory;
  private informers?: { [K in keyof ViewInput]: SharedInformer<ViewInput[K][number]> };
  private listeners: (() => void)[] = [];

  constructor(private clients: ClientsetAPI) {}

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    const f = this.factory = new SharedInformerFactory(this.clients, { resyncMs: 0 });
    const inf = this.informers = {
      nodes: f.informerFor(resources.nodes), pods: f.informerFor(resources.pods), services: f.informerFor(resources.services),
      slices: f.informerFor(resources.endpointslices), policies: f.informerFor(resources.networkpolicies),
    };
    const notify = () => { for (const fn of this.listeners) fn(); };
    const handler: EventHandler<ObjectBase> = { onAdd: notify, onUpdate: notify, onDelete: notify };
    for (const i of Object.values(inf)) (i as SharedInformer<ObjectBase>).addEventHandler(handler, 'lab-view');
    f.start();
    await f.waitForCacheSync();
  }

  async snapshot(): Promise<ViewInput> {
    const i = this.informers;
    if (!i) throw new Error('the lab view source is not started');
    return {
      nodes: i.nodes.lister.list(), pods: i.pods.lister.list(), services: i.services.lister.list(),
      slices: i.slices.lister.list(), policies: i.policies.lister.list(),
    };
  }

  async stop(): Promise<void> {
    await this.factory?.stop();
    this.factory = undefined;
    this.informers = undefined;
  }
}
