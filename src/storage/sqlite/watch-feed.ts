// The in-process change feed. This process is the only writer of the file, so every change
// passes through publish() right after its commit; watchers never poll the database.
import { EventQueue } from '../event-queue.js';
import type { WatchEvent } from '../store.js';

interface Subscriber {
  prefix: string;
  /** Only events newer than this; a watch may start ahead of the current revision. */
  after: number;
  queue: EventQueue;
}

export class WatchFeed {
  private readonly subscribers = new Set<Subscriber>();

  subscribe(prefix: string, after: number, queue: EventQueue): void {
    const sub = { prefix, after, queue };
    this.subscribers.add(sub);
    queue.onStop(() => this.subscribers.delete(sub));
  }

  publish(events: WatchEvent[]): void {
    if (events.length === 0) return;
    for (const sub of this.subscribers) {
      sub.queue.push(events.filter((ev) => ev.revision > sub.after && ev.key.startsWith(sub.prefix)));
    }
  }

  failAll(err: Error): void {
    for (const sub of this.subscribers) sub.queue.fail(err);
  }
}
