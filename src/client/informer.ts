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
// * A handler that throws is isolated: its error is logged with the handler, informer and
//   object key and counted (capstan_informer_handler_errors_total); the cache, the watch and
//   the other handlers carry on, and the event is not delivered to that handler again.
import { Counter, type Registry } from 'prom-client';
import type { KubeObject } from '../api/object.js';
import { matches, parseSelector } from '../api/labels.js';
import { logger, type Logger } from '../log/index.js';
import { metricOn } from '../log/metrics.js';
import { Cache, objectKey, splitKey, type IndexFunc } from './cache.js';
import { realClock, type Clock } from './clock.js';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector.js';
import type { ResourceAPI } from './typed.js';

export interface EventHandler {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  /** For a delete missed during a relist, `obj` is the last state the cache had. */
  onDelete?(obj: KubeObject): void;
}

export class Lister {
  constructor(private cache: Cache) {}

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Objects in `namespace` (all when undefined) matching a label selector string. */
  list(namespace?: string, labelSelector = ''): KubeObject[] {
    const items = namespace ? this.cache.byIndex('namespace', namespace) : this.cache.list();
    if (!labelSelector) return items;
    const sel = parseSelector(labelSelector);
    return items.filter((o) => matches(sel, o.metadata.labels));
  }

  byIndex(index: string, value: string): KubeObject[] {
    return this.cache.byIndex(index, value);
  }

  byKey(key: string): KubeObject | undefined {
    const { namespace, name } = splitKey(key);
    return this.get(namespace, name);
  }
}

export interface InformerOptions extends ReflectorOptions {
  resyncMs?: number;
  indexers?: Record<string, IndexFunc>;
  /** Where handler errors are counted. */
  registry?: Registry;
}

const HANDLER_ERRORS = 'capstan_informer_handler_errors_total';

export class SharedInformer implements ReflectorSink {
  readonly cache: Cache;
  readonly lister: Lister;
  private handlers: { h: EventHandler; name: string }[] = [];
  private handlerErrors?: Counter;
  private errorCounts = new Map<string, number>();
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private reflector: Reflector;
  private running?: Promise<void>;
  private resyncTimer: unknown;

  /** The resource this informer watches, as group/resource ("" group for core). */
  readonly name: string;

  constructor(client: ResourceAPI, private opts: InformerOptions = {}) {
    this.cache = new Cache({ namespace: (o) => (o.metadata.namespace ? [o.metadata.namespace] : []), ...opts.indexers });
    this.lister = new Lister(this.cache);
    this.reflector = new Reflector(client, this, opts);
    this.name = `${client.type.group}/${client.type.resource}`;
    const registry = opts.registry;
    if (registry) {
      this.handlerErrors = metricOn(registry, HANDLER_ERRORS, () => new Counter({
        name: HANDLER_ERRORS, help: 'Exceptions thrown by informer event handlers, by informer and handler.',
        labelNames: ['informer', 'handler'], registers: [registry],
      }));
    }
  }

  get log(): Logger | undefined {
    return this.opts.log;
  }

  /** `name` identifies the handler in logs and metrics (default: its position). */
  addEventHandler(h: EventHandler, name = `handler-${this.handlers.length}`): void {
    const entry = { h, name };
    this.handlers.push(entry);
    // A late handler sees what is already cached, as client-go's does.
    for (const obj of this.cache.list()) this.deliver(entry, 'add', obj, (x) => x.onAdd?.(obj));
  }

  /** Errors thrown by handler `name` so far (all of them counted on the registry too). */
  handlerErrorCount(name: string): number {
    return this.errorCounts.get(name) ?? 0;
  }

  private deliver(entry: { h: EventHandler; name: string }, event: string, obj: KubeObject, call: (h: EventHandler) => void): void {
    try {
      call(entry.h);
    } catch (e) {
      this.errorCounts.set(entry.name, (this.errorCounts.get(entry.name) ?? 0) + 1);
      this.handlerErrors?.inc({ informer: this.name, handler: entry.name });
      (this.opts.log ?? logger('informer')).error('informer event handler failed; other handlers and the watch carry on', {
        informer: this.name, handler: entry.name, event, key: objectKey(obj), error: e instanceof Error ? e.message : String(e),
      });
    }
  }

  private notify(event: string, obj: KubeObject, call: (h: EventHandler) => void): void {
    for (const entry of this.handlers) this.deliver(entry, event, obj, call);
  }

  addIndexer(name: string, fn: IndexFunc): void {
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
      for (const obj of this.cache.list()) this.notify('resync', obj, (h) => h.onUpdate?.(obj, obj));
      this.scheduleResync();
    }, ms);
  }

  async stop(): Promise<void> {
    this.reflector.stop();
    (this.opts.clock ?? realClock).clearTimeout(this.resyncTimer);
    await this.running;
  }

  replace(items: KubeObject[], _rv: string): void {
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(objectKey(obj));
      this.upsert(obj);
    }
    for (const key of this.cache.keys()) {
      if (seen.has(key)) continue;
      const old = this.cache.remove(key)!;
      this.notify('delete', old, (h) => h.onDelete?.(old));
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private upsert(obj: KubeObject): void {
    const old = this.cache.upsert(obj);
    const cur = this.cache.get(objectKey(obj))!;
    if (!old) this.notify('add', cur, (h) => h.onAdd?.(cur));
    else if (old.metadata.resourceVersion !== cur.metadata.resourceVersion) this.notify('update', cur, (h) => h.onUpdate?.(old, cur));
  }

  added(obj: KubeObject): void {
    this.upsert(obj);
  }

  modified(obj: KubeObject): void {
    this.upsert(obj);
  }

  deleted(obj: KubeObject): void {
    const gone = this.cache.remove(objectKey(obj)) ?? obj;
    this.notify('delete', gone, (h) => h.onDelete?.(gone));
  }
}
