// What a controller has asked for but not yet seen in its cache, after client-go's
// (UID-tracking) ControllerExpectations. After issuing N creates and deletes a controller
// must not act again for that key until its informer has observed them (or a timeout
// passed, in case an event was lost), else it acts on a stale view and over- or
// under-creates. Deletions are tracked by pod key so that a pod seen first with a
// deletionTimestamp and then deleted counts once.
import type { Clock } from '../../client/index.js';

/** How long unobserved expectations hold before the controller acts anyway (as Kubernetes: 5m). */
export const expectationsTimeoutMs = 5 * 60_000;

interface Record {
  adds: number;
  deletes: Set<string>;
  at: number;
}

export class Expectations {
  private records = new Map<string, Record>();

  constructor(private clock: Clock, private timeoutMs = expectationsTimeoutMs) {}

  /** True when nothing is pending for `key`, or what is pending is older than the timeout. */
  satisfied(key: string): boolean {
    const r = this.records.get(key);
    if (!r) return true;
    if (r.adds <= 0 && r.deletes.size === 0) return true;
    return this.clock.now() - r.at > this.timeoutMs;
  }

  expectCreations(key: string, n: number): void {
    this.expect(key, n, []);
  }

  expectDeletions(key: string, podKeys: string[]): void {
    this.expect(key, 0, podKeys);
  }

  /** Creations and deletions issued in one sync (a DaemonSet does both at once). */
  expect(key: string, adds: number, podKeys: string[]): void {
    this.records.set(key, { adds, deletes: new Set(podKeys), at: this.clock.now() });
  }

  creationObserved(key: string): void {
    const r = this.records.get(key);
    if (r && r.adds > 0) r.adds--;
  }

  deletionObserved(key: string, podKey: string): void {
    this.records.get(key)?.deletes.delete(podKey);
  }

  delete(key: string): void {
    this.records.delete(key);
  }

  /** Pending counts, for tests and logs. */
  pending(key: string): { adds: number; deletes: number } | undefined {
    const r = this.records.get(key);
    return r && { adds: r.adds, deletes: r.deletes.size };
  }
}
