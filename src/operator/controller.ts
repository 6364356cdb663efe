// One reconciler of an operator: a QueueController (src/controllers/framework.ts owns the
// requeue policy: errors back off per key, requeueAfterMs, success forgets) keyed by the
// objects of its `for` type. Changes to objects of the `owns` types wake their controlling
// owner. With a `finalizer`, live objects get it before their first reconcile, and a deleted
// one is `finalize`d and then let go.
import type { ObjectBase } from '../api/object.js';
import { type ClientsetAPI, type Lister, type ResourceAPI, type ResourceType } from '../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../controllers/framework.js';
import type { Logger } from '../log/index.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
import { controllerOf } from './owners.js';
import { withTypeMeta } from './resource.js';

type Meta = ObjectBase & { metadata: { deletionTimestamp?: string; finalizers?: string[]; generation?: number; ownerReferences?: { controller?: boolean; kind: string; apiVersion: string; name: string; uid: string }[] } };

/** What a reconcile gets besides the object. */
export interface ReconcileContext<T extends ObjectBase> {
  /** The client of the `for` type. */
  client: ResourceAPI<T>;
  clients: ClientsetAPI;
  /** A synced lister of the `for` type or one of the `owns` types (frozen objects: copy before changing). */
  lister<U extends ObjectBase>(type: ResourceType<U>): Lister<U>;
  /** Records a core/v1 Event about `obj` (of the `for` type), as `component` = the reconciler's name. */
  event(obj: T, type: 'Normal' | 'Warning', reason: string, message: string): void;
  log: Logger;
  now(): Date;
}

export interface Reconciler<T extends ObjectBase> {
  /** The controller's name: its events' component, its logs' and metrics' controller. */
  name: string;
  for: ResourceType<T>;
  owns?: ResourceType<ObjectBase>[];
  /** Level-based: read what is, make it what `obj` asks for; throw to retry with backoff. */
  reconcile(obj: T, ctx: ReconcileContext<T>): Promise<ReconcileResult | void>;
  /** Held on the object while it lives; `finalize` runs once it is being deleted. */
  finalizer?: string;
  /** Cleans up; the finalizer is removed when it returns without a requeue. */
  finalize?(obj: T, ctx: ReconcileContext<T>): Promise<ReconcileResult | void>;
}

export class OperatorController<T extends ObjectBase> extends QueueController {
  private readonly client: ResourceAPI<T>;
  private readonly own: Lister<T>;
  private readonly context: ReconcileContext<T>;

  constructor(ctx: ControllerContext, private readonly spec: Reconciler<T>) {
    super(spec.name, ctx);
    this.client = ctx.clients.resource(spec.for);
    const informer = ctx.informers.informerFor(spec.for);
    this.own = informer.lister;
    informer.addEventHandler({
      onAdd: (o) => this.enqueue(o),
      onUpdate: (_, o) => this.enqueue(o),
      onDelete: (o) => this.enqueue(o),
    }, spec.name);
    for (const type of spec.owns ?? []) {
      const wakeOwner = (o: ObjectBase) => {
        const ref = controllerOf(o as Meta, spec.for);
        if (ref) this.enqueue(spec.for.namespaced ? `${o.metadata.namespace}/${ref.name}` : ref.name);
      };
      ctx.informers.informerFor(type).addEventHandler({
        onAdd: wakeOwner,
        onUpdate: (old, o) => { wakeOwner(old); wakeOwner(o); },
        onDelete: wakeOwner,
      }, `${spec.name}-owns-${type.resource}`);
    }
    const recorder = ctx.recorder(spec.name);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.context = {
      client: this.client,
      clients: ctx.clients,
      lister: (type) => ctx.informers.informerFor(type).lister,
      event: (obj, type, reason, message) => recorder.event(withTypeMeta(spec.for, obj), type, reason, message),
      // Inside a reconcile the framework's logger carries the key and a reconcileID.
      get log() { return self.log; },
      now: () => new Date(ctx.clock.now()),
    };
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    let obj = this.own.byKey(key) as (T & Meta) | undefined;
    if (!obj) return; // gone: owner references let the garbage collector remove its children
    const fin = this.spec.finalizer;
    if (obj.metadata.deletionTimestamp) {
      if (!fin || !hasFinalizer(obj, fin)) return;
      const result = await this.spec.finalize?.(obj, this.context);
      if (result?.requeueAfterMs !== undefined) return result;
      await removeFinalizer(this.client, obj, fin);
      this.log.info('finalized', { finalizer: fin });
      return;
    }
    if (fin && !hasFinalizer(obj, fin)) obj = Object.freeze(await addFinalizer(this.client, obj, fin)) as T & Meta;
    return this.spec.reconcile(obj, this.context);
  }
}
