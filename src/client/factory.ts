// One informer per resource per process, shared by every controller that asks, so a
// controller-manager running ten controllers keeps one cache of Pods, not ten.
import type { Registry } from 'prom-client';
import type { ObjectBase } from '../api/object.js';
import type { Logger } from '../log/index.js';
import type { Clock } from './clock.js';
import { SharedInformer } from './informer.js';
import type { ResourceType } from './resources.js';
import type { ClientsetAPI } from './typed.js';

export class SharedInformerFactory {
  private informers = new Map<string, SharedInformer<ObjectBase>>();
  private started = false;

  constructor(private clients: ClientsetAPI, private opts: { resyncMs?: number; clock?: Clock; log?: Logger; registry?: Registry; transform?: <T extends ObjectBase>(obj: T) => T } = {}) {}

  informerFor<T extends ObjectBase>(type: ResourceType<T>, opts: { fieldSelector?: string; labelSelector?: string } = {}): SharedInformer<T> {
    const key = `${type.group}/${type.resource}?${opts.fieldSelector ?? ''}&${opts.labelSelector ?? ''}`;
    // The key names the resource, and a resource has one object type.
    let inf = this.informers.get(key) as SharedInformer<T> | undefined;
    if (!inf) {
      inf = new SharedInformer<T>(this.clients.resource(type), { ...this.opts, ...opts });
      this.informers.set(key, inf as unknown as SharedInformer<ObjectBase>);
      if (this.started) inf.start();
    }
    return inf;
  }

  start(): void {
    this.started = true;
    for (const inf of this.informers.values()) inf.start();
  }

  async waitForCacheSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
