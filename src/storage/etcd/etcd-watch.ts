// One etcd watch stream per Store watcher, on the raw Watch RPC rather than etcd3's
// WatchManager: that one resumes from the response header's revision after a reconnect, which
// can skip history still being replayed, and it hides compact_revision from a cancellation.
// Here the resume point is the last event delivered, so a reconnect neither skips nor repeats.
import type { Etcd3, IWatchResponse, IEvent } from 'etcd3';
import { Backoff } from '../../util/index.js';
import { EventQueue } from '../event-queue.js';
import { CompactedError, StoreError, type WatchEvent } from '../store.js';

type Stream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export interface WatchRange {
  key: Buffer;
  rangeEnd: Buffer;
  /** Turns a stored key back into the caller's key (drops the store's key prefix). */
  unprefix(key: Buffer): string;
}

export class EtcdWatch {
  private stream: Stream | null = null;
  private readonly retry = new Backoff({ initialMs: RETRY_MIN_MS, maxMs: RETRY_MAX_MS });
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly client: Etcd3,
    private readonly range: WatchRange,
    /** Revision of the last event delivered; the stream resumes after it. */
    private lastRevision: number,
    private readonly queue: EventQueue,
  ) {
    queue.onStop(() => this.close());
  }

  /** Resolves once etcd has accepted the watch; a few tries, as a member may be down. */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.connect();
      } catch (err) {
        this.close();
        if (attempt === 3 || this.queue.cancelled) throw err;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MIN_MS * attempt));
      }
    }
  }

  private async connect(): Promise<void> {
    const stream = await this.client.watchClient.watch();
    if (this.queue.cancelled) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    const created = new Promise<void>((resolve, reject) => {
      stream.on('data', (res: IWatchResponse) => {
        if (res.created && !res.canceled) {
          this.retry.reset();
          resolve();
        }
        this.onResponse(res);
      });
      stream.on('error', (err: Error) => {
        reject(err);
        this.onBroken(stream);
      });
      stream.on('end', () => {
        reject(new StoreError('etcd watch stream ended'));
        this.onBroken(stream);
      });
    });
    stream.write({
      create_request: {
        key: this.range.key,
        range_end: this.range.rangeEnd,
        start_revision: this.lastRevision + 1,
        prev_kv: true,
      },
    });
    await created;
  }

  private onResponse(res: IWatchResponse): void {
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      this.queue.fail(compacted > 0
        ? new CompactedError(this.lastRevision, compacted)
        : new StoreError(`etcd cancelled the watch: ${res.cancel_reason}`));
      return;
    }
    if (!res.events?.length) return;
    const events = res.events.map((ev) => this.toEvent(ev));
    this.lastRevision = events[events.length - 1].revision;
    this.queue.push(events);
  }

  private toEvent(ev: IEvent): WatchEvent {
    const prev = ev.prev_kv ?? undefined;
    const deleted = String(ev.type) === 'Delete' || String(ev.type) === '1';
    const out: WatchEvent = {
      type: deleted ? 'DELETE' : 'PUT',
      key: this.range.unprefix(ev.kv.key),
      // etcd's DELETE event carries only the key; the value deleted is in prev_kv.
      value: deleted ? prev?.value ?? Buffer.alloc(0) : ev.kv.value,
      revision: Number(ev.kv.mod_revision),
      createRevision: Number(deleted ? prev?.create_revision ?? 0 : ev.kv.create_revision),
    };
    if (prev) out.prevValue = prev.value;
    return out;
  }

  /** The stream failed (member down, network): reconnect from the last delivered event. */
  private onBroken(stream: Stream): void {
    if (this.stream !== stream) return;
    this.stream = null;
    stream.cancel();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.queue.cancelled || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch(() => {
        if (!this.stream) this.scheduleReconnect();
      });
    }, this.retry.next());
  }

  private close(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const stream = this.stream;
    this.stream = null;
    stream?.cancel();
  }
}
