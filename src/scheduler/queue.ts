// The scheduling queue, after kube-scheduler's PriorityQueue:
// * activeQ: pods ready to be tried, highest priority first, then oldest.
// * backoffQ: pods waiting out their backoff (1 s doubling per attempt to 10 s) before
//   returning to activeQ; errors (a failed bind) go here directly.
// * unschedulable: pods no node fitted. They wait for a cluster change that may help
//   (`moveAll`: node added or changed, a pod deleted, ...) or for the periodic flush.
// A pod that failed while a move happened during its attempt goes to backoffQ instead of
// unschedulable, so the change it might have needed is not missed.
//
// Contract: one consumer pops; `done(uid)` (or addUnschedulable/addBackoff) ends every pop.
import type { Clock } from '../client/index.js';
import { backoffDelay } from '../util/index.js';
import { KeyedHeap } from './heap.js';
import type { PodInfo } from './podinfo.js';

export interface QueuedPod {
  info: PodInfo;
  /** When it last entered the queue or last failed; orders activeQ and starts backoff. */
  timestamp: number;
  /** Attempts so far (incremented at pop). */
  attempts: number;
  /** When the scheduler first saw it, for the end-to-end latency metric. */
  firstSeen: number;
  /** The scheduling cycle of its latest pop. */
  cycle: number;
}

export interface QueueOptions {
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Unschedulable pods are retried after this long even without a cluster change. */
  unschedulableFlushMs?: number;
}

type Where = 'active' | 'backoff' | 'unschedulable';

export class SchedulingQueue {
  private active = new KeyedHeap<QueuedPod>((q) => q.info.uid, (a, b) =>
    a.info.priority !== b.info.priority ? a.info.priority > b.info.priority : a.timestamp < b.timestamp);
  private backoff = new KeyedHeap<QueuedPod>((q) => q.info.uid, (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
  private unschedulable = new Map<string, QueuedPod>();
  private where = new Map<string, Where>();
  private readonly inFlight = new Set<string>();
  private cycle = 0;
  private moveRequestCycle = -1;
  private waiters: ((q: QueuedPod | undefined) => void)[] = [];
  private closed = false;
  private timer: unknown;
  private lastLeftoverFlush = 0;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly flushMs: number;

  constructor(private clock: Clock, opts: QueueOptions = {}) {
    this.initialBackoffMs = opts.initialBackoffMs ?? 1_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
    this.flushMs = opts.unschedulableFlushMs ?? 60_000;
  }

  /** Starts the timers that move pods out of backoff and flush old unschedulable pods. */
  run(): void {
    this.lastLeftoverFlush = this.clock.now();
    const tick = () => {
      if (this.closed) return;
      this.flushBackoffCompleted();
      if (this.clock.now() - this.lastLeftoverFlush >= 15_000) this.flushUnschedulableLeftover();
      this.timer = this.clock.setTimeout(tick, 1_000);
    };
    this.timer = this.clock.setTimeout(tick, 1_000);
  }

  close(): void {
    this.closed = true;
    this.clock.clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  backoffDurationMs(q: QueuedPod): number {
    return backoffDelay({ initialMs: this.initialBackoffMs, maxMs: this.maxBackoffMs }, Math.max(0, q.attempts - 1));
  }

  private backoffExpiry(q: QueuedPod): number {
    return q.timestamp + this.backoffDurationMs(q);
  }

  private isBackingOff(q: QueuedPod): boolean {
    return q.attempts > 0 && this.backoffExpiry(q) > this.clock.now();
  }

  private pushActive(q: QueuedPod): void {
    this.where.set(q.info.uid, 'active');
    const w = this.waiters.shift();
    if (w) { this.popped(q); w(q); return; }
    this.active.push(q);
  }

  private pushBackoff(q: QueuedPod): void {
    this.where.set(q.info.uid, 'backoff');
    this.backoff.push(q);
  }

  private take(uid: string): QueuedPod | undefined {
    const w = this.where.get(uid);
    if (!w) return undefined;
    this.where.delete(uid);
    if (w === 'active') return this.active.remove(uid);
    if (w === 'backoff') return this.backoff.remove(uid);
    const q = this.unschedulable.get(uid);
    this.unschedulable.delete(uid);
    return q;
  }

  has(uid: string): boolean {
    return this.where.has(uid);
  }

  isInFlight(uid: string): boolean {
    return this.inFlight.has(uid);
  }

  /** A new pending pod. */
  add(info: PodInfo): void {
    if (this.where.has(info.uid)) return this.update(info, true);
    const now = this.clock.now();
    this.pushActive({ info, timestamp: now, attempts: 0, firstSeen: now, cycle: 0 });
  }

  /**
   * A newer version of a queued pod. In activeQ/backoffQ it is replaced in place; an
   * unschedulable pod whose spec or labels changed is tried again (the change may help).
   */
  update(info: PodInfo, specChanged: boolean): void {
    const uid = info.uid;
    const w = this.where.get(uid);
    if (!w) {
      if (!this.inFlight.has(uid)) this.add(info);
      return;
    }
    if (w === 'active') { const q = this.active.get(uid)!; this.active.push({ ...q, info }); return; }
    if (w === 'backoff') { const q = this.backoff.get(uid)!; q.info = info; return; }
    const q = this.unschedulable.get(uid)!;
    q.info = info;
    if (!specChanged) return;
    this.take(uid);
    if (this.isBackingOff(q)) this.pushBackoff(q);
    else this.pushActive(q);
  }

  delete(uid: string): void {
    this.take(uid);
  }

  private popped(q: QueuedPod): void {
    this.where.delete(q.info.uid);
    q.attempts++;
    q.cycle = ++this.cycle;
    this.inFlight.add(q.info.uid);
  }

  /** The next pod to schedule, without waiting; undefined when activeQ is empty. */
  tryPop(): QueuedPod | undefined {
    const q = this.active.pop();
    if (q) this.popped(q);
    return q;
  }

  /** The next pod to schedule; waits for one. Resolves undefined once closed. */
  pop(): Promise<QueuedPod | undefined> {
    const q = this.tryPop();
    if (q || this.closed) return Promise.resolve(q);
    return new Promise((r) => this.waiters.push(r));
  }

  /** The attempt on a popped pod ended and it is not coming back (bound, gone). */
  done(uid: string): void {
    this.inFlight.delete(uid);
  }

  /** No node fitted: wait for a cluster change (or backoff, if one happened meanwhile). */
  addUnschedulable(q: QueuedPod): void {
    this.inFlight.delete(q.info.uid);
    if (this.where.has(q.info.uid)) return;
    q.timestamp = this.clock.now();
    if (this.moveRequestCycle >= q.cycle) { this.pushBackoff(q); return; }
    this.where.set(q.info.uid, 'unschedulable');
    this.unschedulable.set(q.info.uid, q);
  }

  /** The attempt failed for a reason other than fit (a bind error): retry after backoff. */
  addBackoff(q: QueuedPod): void {
    this.inFlight.delete(q.info.uid);
    if (this.where.has(q.info.uid)) return;
    q.timestamp = this.clock.now();
    this.pushBackoff(q);
  }

  /** The cluster changed in a way that may let unschedulable pods fit. */
  moveAll(): void {
    this.moveRequestCycle = this.cycle;
    this.moveWhere(() => true);
  }

  /**
   * Like moveAll, for a change that can help only the pods `mayHelp` accepts. It does not
   * send a pod whose attempt is in flight to backoff: attempts run synchronously, so none
   * overlaps the informer event that calls this.
   */
  moveWhere(mayHelp: (info: PodInfo) => boolean): void {
    if (!this.unschedulable.size) return;
    const pods = [...this.unschedulable.values()].filter((q) => mayHelp(q.info));
    for (const q of pods) {
      this.unschedulable.delete(q.info.uid);
      this.where.delete(q.info.uid);
      if (this.isBackingOff(q)) this.pushBackoff(q);
      else this.pushActive(q);
    }
  }

  flushBackoffCompleted(): void {
    const now = this.clock.now();
    for (let q = this.backoff.peek(); q && this.backoffExpiry(q) <= now; q = this.backoff.peek()) {
      this.backoff.pop();
      this.pushActive(q);
    }
  }

  flushUnschedulableLeftover(): void {
    const now = this.clock.now();
    this.lastLeftoverFlush = now;
    for (const q of [...this.unschedulable.values()]) {
      if (now - q.timestamp < this.flushMs) continue;
      this.unschedulable.delete(q.info.uid);
      this.where.delete(q.info.uid);
      if (this.isBackingOff(q)) this.pushBackoff(q);
      else this.pushActive(q);
    }
  }

  stats(): { active: number; backoff: number; unschedulable: number; inFlight: number } {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size, inFlight: this.inFlight.size };
  }
}
