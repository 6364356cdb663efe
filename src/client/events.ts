// Recording core/v1 Events about objects, with Kubernetes reasons. Repeats of the same
// event (same object, reason and message) within ten minutes bump `count` on one Event
// instead of creating new ones, as client-go's event correlator does.
import { randomBytes } from 'node:crypto';
import type { ObjectBase } from '../api/object.js';
import type { Event } from '../api/kinds.js';
import { rfc3339 } from '../api/time.js';
import type { Logger } from '../log/index.js';
import type { ResourceAPI } from './typed.js';
import { realClock, type Clock } from './clock.js';

export interface EventSource {
  component: string;
  host?: string;
}

export class EventRecorder {
  private recent = new Map<string, { name: string; namespace: string; count: number; at: number }>();

  constructor(private events: ResourceAPI<Event>, private source: EventSource, private clock: Clock = realClock, private log?: Logger) {}

  /** Fire and forget: an event that cannot be written is logged, never thrown. */
  event(obj: ObjectBase, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.record(obj, type, reason, message).catch((e) => this.log?.warn('event not recorded', { reason, error: (e as Error).message }));
  }

  private async record(obj: ObjectBase, type: string, reason: string, message: string): Promise<void> {
    const namespace = obj.metadata.namespace || 'default';
    const involved = {
      kind: obj.kind, apiVersion: obj.apiVersion, name: obj.metadata.name, namespace: obj.metadata.namespace,
      uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion,
    };
    const key = `${obj.metadata.uid}|${reason}|${message}`;
    const now = this.clock.now();
    const stamp = rfc3339(new Date(now));
    const seen = this.recent.get(key);
    if (seen && now - seen.at < 10 * 60_000) {
      seen.count++;
      seen.at = now;
      try {
        await this.events.patch(seen.namespace, seen.name, 'merge', { count: seen.count, lastTimestamp: stamp });
        return;
      } catch { /* the event was removed: create a new one */ }
    }
    const name = `${obj.metadata.name}.${randomBytes(8).toString('hex')}`;
    await this.events.create(namespace, {
      metadata: { name, namespace },
      involvedObject: involved, reason, message, type, count: 1,
      source: this.source, firstTimestamp: stamp, lastTimestamp: stamp,
      reportingComponent: this.source.component, reportingInstance: this.source.host ?? '',
    });
    this.recent.set(key, { name, namespace, count: 1, at: now });
    if (this.recent.size > 4096) this.recent.delete(this.recent.keys().next().value as string);
  }
}
