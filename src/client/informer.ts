// A shared informer: one reflector and one cache per resource, many event handlers.
//
// Contract (after client-go's shared_informer.go):
// * Handlers run in the order events arrive, one at a time, after the cache holds the new
//   state; they must only enqueue work, never block.
// * `hasSynced()` turns true once the first list has been delivered; controllers must wait
//   for it before acting on the cache, or they would act on a partial view.
// * Objects from the lister are frozen; copy before changing.
// * Every `resyncMs` each cached object is delivered again as an update (old === new), so
//   level-based controllers converge even if a reaction was lost.
import type { KubeObject, ObjectBase } from '../api/object.js';
import { matches, parseSelector } from '../api/labels.js';
import type { Logger } from '../log/index.js';
import { Cache, objectKey, splitKey, type IndexFunc } from './cache.js';
import { realClock, type Clock } from './clock.js';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector.js';
import type { ResourceAPI } from './typed.js';

export interface EventHandler<T extends ObjectBase = KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** For a delete missed during a relist, `obj` is the last state the cache had. */
  onDelete?(obj: T): void;
}

export class Lister<T extends ObjectBase = KubeObject> {
  constructor(private cache: Cache<T>) {}

  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Objects in `namespace` (all when undefined) matching a label selector string. */
  list(namespace?: string, labelSelector = ''): T[] {
    const items = namespace ? this.cache.byIndex('namespace', namespace) : this.cache.list();
    if (!labelSelector) return items;
    const sel = parseSelector(labelSelector);
    return items.filter((o) => matches(sel, o.metadata.labels));
  }

  byIndex(index: string, value: string): T[] {
    return this.cache.byIndex(index, value);
  }

  byKey(key: string): T | undefined {
    const { namespace, name } = splitKey(key);
    return this.get(namespace, name);
  }
}

export class SharedInformer<T extends ObjectBase = KubeObject> implements ReflectorSink<T> {
  readonly cache: Cache<T>;
  readonly lister: Lister<T>;
  private handlers: EventHandler<T>[] = [];
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private reflector: Reflector<T>;
  private running?: Promise<void>;
  private resyncTimer: unknown;

  constructor(client: ResourceAPI<T>, private opts: ReflectorOptions & { resyncMs?: number; indexers?: Record<string, IndexFunc<T>> } = {}) {
    this.cache = new Cache<T>({ namespace: (o) => (o.metadata.namespace ? [o.metadata.namespace] : []), ...opts.indexers });
    this.lister = new Lister(this.cache);
    this.reflector = new Reflector(client, this, opts);
  }

  get log(): Logger | undefined {
    return this.opts.log;
  }

  addEventHandler(h: EventHandler<T>): void {
    this.handlers.push(h);
    // A late handler sees what is already cached, as client-go's does.
    for (const obj of this.cache.list()) h.onAdd?.(obj);
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.cache.addIndexer(name, fn);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  start(): void {
    if (this.running) return;
    this.running = this.reflector.run();
    this.scheduleResync();
  }

  private scheduleResync(): void {
    const ms = this.opts.resyncMs;
    if (!ms) return;
    const clock: Clock = this.opts.clock ?? realClock;
    this.resyncTimer = clock.setTimeout(() => {
      for (const obj of this.cache.list()) for (const h of this.handlers) h.onUpdate?.(obj, obj);
      this.scheduleResync();
    }, ms);
  }

  async stop(): Promise<void> {
    this.reflector.stop();
    (this.opts.clock ?? realClock).clearTimeout(this.resyncTimer);
    await this.running;
  }

  replace(items: T[], _rv: string): void {
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(objectKey(obj));
      this.upsert(obj);
    }
    for (const key of this.cache.keys()) {
      if (seen.has(key)) continue;
      const old = this.cache.remove(key)!;
      for (const h of this.handlers) h.onDelete?.(old);
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private upsert(obj: T): void {
    const old = this.cache.upsert(obj);
    const cur = this.cache.get(objectKey(obj))!;
    if (!old) for (const h of this.handlers) h.onAdd?.(cur);
    else if (old.metadata.resourceVersion !== cur.metadata.resourceVersion) for (const h of this.handlers) h.onUpdate?.(old, cur);
  }

  added(obj: T): void {
    this.upsert(obj);
  }

  modified(obj: T): void {
    this.upsert(obj);
  }

  deleted(obj: T): void {
    const old = this.cache.remove(objectKey(obj));
    for (const h of this.handlers) h.onDelete?.(old ?? obj);
  }
}
