// Collects a watcher's events and error so tests can wait for them. Waits are generous: the
// etcd runs fsync for real and this disk sometimes stalls for seconds.
import type { Store, WatchEvent, Watcher } from '../../src/storage/index.js';

export const WAIT_MS = 30_000;

export class WatchRecorder {
  readonly events: WatchEvent[] = [];
  error: Error | null = null;
  watcher: Watcher | null = null;

  static async start(store: Store, prefix: string, afterRevision: number): Promise<WatchRecorder> {
    const rec = new WatchRecorder();
    rec.watcher = await store.watch(prefix, afterRevision, (ev) => rec.events.push(ev), (err) => {
      rec.error = err;
    });
    return rec;
  }

  /** Resolves once `count` events arrived; rejects on a watch error or after WAIT_MS. */
  async waitForEvents(count: number): Promise<WatchEvent[]> {
    await waitUntil(() => this.events.length >= count || this.error !== null, `${count} events`);
    if (this.error) throw this.error;
    return this.events;
  }

  async waitForError(): Promise<Error> {
    await waitUntil(() => this.error !== null, 'a watch error');
    return this.error!;
  }

  async cancel(): Promise<void> {
    await this.watcher?.cancel();
  }
}

export async function waitUntil(cond: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function summarize(events: WatchEvent[]): string[] {
  return events.map((ev) => `${ev.type} ${ev.key}=${ev.value.toString()}` +
    (ev.prevValue ? ` prev=${ev.prevValue.toString()}` : ''));
}
