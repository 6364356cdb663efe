// The etcd v3 backend. Every conditional write is one etcd transaction, so optimistic
// concurrency is decided by etcd itself and several API servers can share one cluster; they
// see each other's writes through watch. Revisions are etcd's own.
import {
  CompareResult, CompareTarget, Etcd3, type ICompare, type IKeyValue, type IRangeRequest, type IRequestOp,
} from 'etcd3';
import { EventQueue } from '../event-queue.js';
import { prefixEnd } from '../prefix.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  NotFoundError,
  StoreError,
  ValueTooLargeError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type WatchEvent,
  type Watcher,
} from '../store.js';
import { isCompacted, isFutureRevision, isRequestTooLarge } from './errors.js';
import { EtcdWatch } from './etcd-watch.js';

export interface EtcdOptions {
  /** `http://host:port` of each member. */
  endpoints: string[];
  /** Prepended to every key in etcd (and stripped from results), like kube-apiserver's --etcd-prefix. */
  keyPrefix?: string;
  /** Deadline of each unary call. Default 60 s: fsync on a busy disk can stall for seconds. */
  callTimeoutMs?: number;
}

export class EtcdStore implements Store {
  private closed = false;
  private readonly prefix: string;
  private readonly watchers = new Set<EventQueue>();

  private constructor(private readonly client: Etcd3, keyPrefix: string) {
    this.prefix = keyPrefix;
  }

  /** Connects and checks the cluster answers. */
  static async open(opts: EtcdOptions): Promise<EtcdStore> {
    const timeout = opts.callTimeoutMs ?? 60_000;
    const client = new Etcd3({
      hosts: opts.endpoints,
      dialTimeout: timeout,
      // Watch replays batch up to 1000 revisions per message, more than gRPC's 4 MB default.
      grpcOptions: { 'grpc.max_receive_message_length': -1 },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
    });
    const store = new EtcdStore(client, opts.keyPrefix ?? '');
    try {
      await store.currentRevision();
    } catch (err) {
      client.close();
      throw new StoreError(`etcd at ${opts.endpoints.join(',')} does not answer: ${(err as Error).message}`);
    }
    return store;
  }

  async get(key: string): Promise<KeyValue | null> {
    const res = await this.call(() => this.client.kv.range({ key: this.k(key) }));
    return res.kvs.length > 0 ? this.toKeyValue(res.kvs[0]) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const start = this.k(prefix);
    const after = opts.startAfter === undefined ? null : Buffer.concat([this.k(opts.startAfter), Buffer.from([0])]);
    const req: IRangeRequest = {
      key: after && Buffer.compare(after, start) > 0 ? after : start,
      range_end: prefixEnd(start) ?? Buffer.from([0]),
      limit: opts.limit && opts.limit > 0 ? opts.limit : 0,
      revision: opts.revision && opts.revision > 0 ? opts.revision : 0,
    };
    const res = await this.call(() => this.client.kv.range(req), Number(req.revision));
    const result: ListResult = {
      items: res.kvs.map((kv) => this.toKeyValue(kv)),
      revision: Number(req.revision) || Number(res.header.revision),
      more: res.more,
    };
    // etcd counts the whole range with every Range reply.
    if (opts.count) result.count = Number(res.count);
    return result;
  }

  async create(key: string, value: Buffer): Promise<number> {
    const res = await this.call(() => this.client.kv.txn({
      compare: [{ key: this.k(key), target: CompareTarget.Version, result: CompareResult.Equal, version: 0 }],
      success: [{ request_put: { key: this.k(key), value } }],
    }));
    if (!res.succeeded) throw new KeyExistsError(key);
    return Number(res.header.revision);
  }

  async update(key: string, value: Buffer, expectedRevision: number): Promise<number> {
    const res = await this.conditional(key, expectedRevision, { request_put: { key: this.k(key), value } });
    return Number(res.header.revision);
  }

  async delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    const res = await this.conditional(key, expectedRevision, {
      request_delete_range: { key: this.k(key), prev_kv: true },
    });
    const prev = res.responses[0].response_delete_range.prev_kvs[0];
    return { revision: Number(res.header.revision), prev: this.toKeyValue(prev) };
  }

  async watch(
    prefix: string,
    afterRevision: number,
    onEvent: (ev: WatchEvent) => void,
    onError: (err: Error) => void,
  ): Promise<Watcher> {
    this.assertOpen();
    const key = this.k(prefix);
    const queue = new EventQueue(onEvent, onError);
    const watch = new EtcdWatch(this.client, {
      key,
      rangeEnd: prefixEnd(key) ?? Buffer.from([0]),
      unprefix: (k) => this.unprefix(k),
    }, afterRevision, queue);
    try {
      await watch.start();
    } catch (err) {
      await queue.cancel();
      throw new StoreError(`etcd watch failed: ${(err as Error).message}`);
    }
    this.watchers.add(queue);
    queue.onStop(() => this.watchers.delete(queue));
    return queue;
  }

  async currentRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: this.k('/'), count_only: true }));
    return Number(res.header.revision);
  }

  /** As kube-apiserver's etcd check: a read of one key that must answer within the timeout. */
  async checkHealth(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new StoreError(`no answer within ${timeoutMs} ms`)), timeoutMs); });
    const probe = this.call(() => this.client.kv.range({ key: this.k('/health') }, { deadline: Date.now() + timeoutMs }));
    try {
      await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async compact(revision: number): Promise<void> {
    try {
      // physical: return only once the history is gone, so later reads fail consistently.
      await this.call(() => this.client.kv.compact({ revision, physical: true }), revision);
    } catch (err) {
      if (err instanceof CompactedError) return; // at or below an earlier compaction
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const queue of this.watchers) queue.fail(new StoreError('store is closed'));
    this.client.close();
  }

  /**
   * A write that happens only if the key exists (and, when given, is at `expectedRevision`);
   * on failure the same transaction reads the key to tell NotFound from Conflict.
   */
  private async conditional(key: string, expectedRevision: number | undefined, op: IRequestOp) {
    const k = this.k(key);
    const compare: ICompare[] = [{ key: k, target: CompareTarget.Version, result: CompareResult.Greater, version: 0 }];
    if (expectedRevision !== undefined) {
      compare.push({ key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedRevision });
    }
    const res = await this.call(() => this.client.kv.txn({
      compare,
      success: [op],
      failure: [{ request_range: { key: k } }],
    }));
    if (!res.succeeded) {
      const current = res.responses[0].response_range.kvs[0];
      if (!current) throw new NotFoundError(key);
      throw new ConflictError(key, Number(current.mod_revision));
    }
    return res;
  }

  /** Runs one RPC, turning etcd's revision errors into the store's. */
  private async call<T>(rpc: () => Promise<T>, requestedRevision = 0): Promise<T> {
    this.assertOpen();
    try {
      return await rpc();
    } catch (err) {
      if (isCompacted(err)) throw new CompactedError(requestedRevision, requestedRevision);
      if (isRequestTooLarge(err)) throw new ValueTooLargeError((err as Error).message);
      if (isFutureRevision(err)) {
        throw new FutureRevisionError(requestedRevision, await this.currentRevision().catch(() => 0)); // the revision only decorates the error thrown
      }
      throw err;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('store is closed');
  }

  private k(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  private unprefix(key: Buffer): string {
    return key.toString().slice(this.prefix.length);
  }

  private toKeyValue(kv: IKeyValue): KeyValue {
    return {
      key: this.unprefix(kv.key),
      value: kv.value,
      modRevision: Number(kv.mod_revision),
      createRevision: Number(kv.create_revision),
    };
  }
}
