// The reflector keeps a cache equal to the server's state: list, then watch from the list's
// resourceVersion; when a stream ends, watch again from the last version seen (the server
// replays what was missed); on 410 Expired, list again and replace. Deliveries go to a sink
// in order, one at a time.
import type { KubeObject, ObjectBase } from '../api/object.js';
import type { Logger } from '../log/index.js';
import { isGone } from './errors.js';
import type { ResourceAPI } from './typed.js';
import { Backoff } from '../util/index.js';
import { realClock, type Clock } from './clock.js';

export interface ReflectorSink<T extends ObjectBase = KubeObject> {
  /** The full state after a (re)list: add what is new, update what changed, delete what is gone. */
  replace(items: T[], resourceVersion: string): void;
  added(obj: T): void;
  modified(obj: T): void;
  deleted(obj: T): void;
}

export interface ReflectorOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  clock?: Clock;
  log?: Logger;
  /**
   * Applied to every object before the cache sees it (client-go's TransformFunc): a component
   * that never reads a field can drop it from memory (stripManagedFields).
   */
  transform?: <U extends ObjectBase>(obj: U) => U;
}

/** Drops metadata.managedFields, as kube-controller-manager's and kube-scheduler's informers do. */
export function stripManagedFields<T extends ObjectBase>(obj: T): T {
  const metadata = obj.metadata as { managedFields?: unknown } | undefined;
  if (metadata?.managedFields) delete metadata.managedFields;
  return obj;
}

export class Reflector<T extends ObjectBase = KubeObject> {
  private stopped = false;
  private current?: { close(): void };
  private lastRV = '';
  private readonly backoff = new Backoff({ initialMs: 100, maxMs: 10_000 });
  private wake?: () => void;

  constructor(private client: ResourceAPI<T>, private sink: ReflectorSink<T>, private opts: ReflectorOptions = {}) {}

  get lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  /** Runs until stop(); resolves when stopped. */
  async run(): Promise<void> {
    const clock = this.opts.clock ?? realClock;
    while (!this.stopped) {
      try {
        if (!this.lastRV) await this.relist();
        await this.watchOnce();
        this.backoff.reset();
      } catch (e) {
        if (this.stopped) break;
        if (isGone(e)) this.lastRV = '';
        else this.opts.log?.warn('list/watch failed', { resource: this.client.type.resource, error: (e as Error).message });
        const delay = this.backoff.next();
        await new Promise<void>((r) => { this.wake = r; clock.setTimeout(r, delay); });
      }
    }
  }

  private async relist(): Promise<void> {
    const list = await this.client.listAll(this.opts.namespace, { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector });
    this.lastRV = list.metadata.resourceVersion ?? '';
    const transform = this.opts.transform;
    this.sink.replace(transform ? list.items.map(transform) : list.items, this.lastRV);
  }

  private async watchOnce(): Promise<void> {
    const w = await this.client.watch(this.opts.namespace, {
      resourceVersion: this.lastRV, labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector,
      allowWatchBookmarks: true, timeoutSeconds: 300 + Math.floor(Math.random() * 300),
    });
    this.current = w;
    if (this.stopped) w.close();
    try {
      for await (const ev of w) {
        if (ev.type === 'ERROR') {
          const status = ev.object ?? {};
          if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') { this.lastRV = ''; return; }
          throw new Error(`watch error: ${status.message ?? JSON.stringify(status)}`);
        }
        const rv = ev.object?.metadata?.resourceVersion;
        if (this.opts.transform && ev.type !== 'BOOKMARK') ev.object = this.opts.transform(ev.object);
        if (ev.type === 'ADDED') this.sink.added(ev.object);
        else if (ev.type === 'MODIFIED') this.sink.modified(ev.object);
        else if (ev.type === 'DELETED') this.sink.deleted(ev.object);
        if (rv) this.lastRV = rv;
      }
    } finally {
      this.current = undefined;
    }
  }

  stop(): void {
    this.stopped = true;
    this.current?.close();
    this.wake?.();
  }
}
