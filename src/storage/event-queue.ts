// Per-watcher delivery: callbacks of one watcher run one at a time, in order, never inside the
// writer's call stack, and never after cancel() has resolved.
import type { WatchEvent, Watcher } from './store.js';

export class EventQueue implements Watcher {
  private queue: WatchEvent[] = [];
  private failure: Error | null = null;
  private scheduled = false;
  private stopped = false;
  private readonly stopHooks: Array<() => void> = [];

  constructor(
    private readonly onEvent: (ev: WatchEvent) => void,
    private readonly onError: (err: Error) => void,
  ) {}

  get cancelled(): boolean {
    return this.stopped;
  }

  /** Adds a hook that runs once when the watcher stops, by cancel() or by an error. */
  onStop(fn: () => void): void {
    this.stopHooks.push(fn);
  }

  push(events: WatchEvent[]): void {
    if (this.stopped || this.failure || events.length === 0) return;
    for (const ev of events) this.queue.push(ev);
    this.schedule();
  }

  /** Delivers the error after the events already queued, then stops. */
  fail(err: Error): void {
    if (this.stopped || this.failure) return;
    this.failure = err;
    this.schedule();
  }

  async cancel(): Promise<void> {
    this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    for (const hook of this.stopHooks) hook();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    for (let i = 0; i < batch.length; i++) {
      if (this.stopped) return;
      try {
        this.onEvent(batch[i]);
      } catch (err) {
        this.stop();
        this.onError(err instanceof Error ? err : new Error(String(err)));
        return;
      }
    }
    if (this.failure && !this.stopped && this.queue.length === 0) {
      this.stop();
      this.onError(this.failure);
    }
  }
}
