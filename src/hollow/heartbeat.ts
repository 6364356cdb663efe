// Lease renewals for many hollow nodes from one process. Each node renews every interval at
// its own offset inside it, so 5,000 nodes at 10 s make a steady ~500 writes/s rather than
// 5,000 at once; a shared limiter caps requests in flight. A node's status is posted again
// when the API shows it not Ready (the node lifecycle controller marked it Unknown) or when
// the status report interval has passed, as the kubelet does.
import { rfc3339Micro } from '../api/time.js';
import { isAlreadyExists, isConflict, isNotFound, type Clock, type ResourceAPI } from '../client/index.js';
import type { Logger } from '../log/index.js';
import type { Limiter } from './limiter.js';
import { leaseObject, needsStatusPost, nodeLeaseNamespace } from './node-object.js';
import type { Lease, Node } from '../api/kinds.js';
import type { NodeStatus } from 'kubernetes-types/core/v1.js';

export interface HeartbeatDeps {
  /** The node's own clients: each node acts as itself (system:node:<name>). */
  nodes(node: string): ResourceAPI;
  leases(node: string): ResourceAPI;
  clock: Clock;
  log: Logger;
  limiter: Limiter;
  intervalMs: number;
  leaseDurationSeconds: number;
  statusReportIntervalMs: number;
  /** The node as the API last showed it (informer cache). */
  cachedNode(name: string): Node | undefined;
  /** The status this node reports now. */
  status(name: string, now: number, previous: NodeStatus | undefined): NodeStatus;
}

export class Heartbeats {
  private due = new Map<string, number>();
  private leases = new Map<string, Lease>();
  private uids = new Map<string, string>();
  private lastStatus = new Map<string, number>();
  private stopped = new Set<string>();
  private inFlight = new Map<string, Promise<void>>();
  private timer: unknown;
  private running = false;
  renewals = 0;
  failures = 0;

  constructor(private d: HeartbeatDeps) {}

  /** Starts heartbeats for a registered node, the first renewal `offsetMs` from now. */
  add(node: Node, offsetMs: number): void {
    const name = node.metadata.name as string;
    this.uids.set(name, node.metadata.uid as string);
    this.lastStatus.set(name, this.d.clock.now());
    this.due.set(name, this.d.clock.now() + offsetMs);
  }

  start(): void {
    this.running = true;
    this.schedule();
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = this.d.clock.setTimeout(() => this.tick(), Math.max(10, Math.min(250, this.d.intervalMs / 20)));
  }

  private tick(): void {
    const now = this.d.clock.now();
    for (const [name, at] of this.due) {
      if (at > now || this.stopped.has(name) || this.inFlight.has(name)) continue;
      // Fixed rate, but a node far behind (a slow server) does not fire a burst to catch up.
      this.due.set(name, at + this.d.intervalMs > now ? at + this.d.intervalMs : now + this.d.intervalMs);
      const p = this.d.limiter.run(() => this.beat(name)).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, p);
    }
    this.schedule();
  }

  /** One heartbeat: renew the Lease, and post status when it is due. Never throws. */
  async beat(name: string, registered?: Node): Promise<void> {
    if (registered) {
      this.uids.set(name, registered.metadata.uid as string);
      this.lastStatus.set(name, this.d.clock.now());
    }
    try {
      await this.renew(name);
      await this.maybePostStatus(name);
    } catch (e) {
      this.failures++;
      this.d.log.warn('heartbeat failed', { node: name, error: (e as Error).message });
    }
  }

  private async renew(name: string): Promise<void> {
    const now = this.d.clock.now();
    const renewTime = rfc3339Micro(new Date(now));
    const known = this.leases.get(name);
    if (known) {
      try {
        this.leases.set(name, await this.d.leases(name).update({ ...known, spec: { ...known.spec, renewTime } }));
        this.renewals++;
        return;
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
        this.leases.delete(name);
      }
    }
    try {
      const cur = await this.d.leases(name).get(nodeLeaseNamespace, name);
      this.leases.set(name, await this.d.leases(name).update({ ...cur, spec: { ...cur.spec, holderIdentity: name, renewTime } }));
    } catch (e) {
      if (!isNotFound(e)) throw e;
      const owner = { metadata: { name, uid: this.uids.get(name) } };
      try {
        this.leases.set(name, await this.d.leases(name).create(nodeLeaseNamespace, leaseObject(owner, now, this.d.leaseDurationSeconds)));
      } catch (e2) {
        if (!isAlreadyExists(e2)) throw e2;
      }
    }
    this.renewals++;
  }

  private async maybePostStatus(name: string): Promise<void> {
    const now = this.d.clock.now();
    const cached = this.d.cachedNode(name);
    const stale = now - (this.lastStatus.get(name) ?? 0) >= this.d.statusReportIntervalMs;
    const unhealthy = needsStatusPost(cached);
    if (!stale && !unhealthy) return;
    // The periodic report of a node the API shows healthy sends what changed — the conditions'
    // heartbeat times — as the kubelet's status patch does; after Unknown, everything again.
    const status = this.d.status(name, now, cached?.status);
    await this.d.nodes(name).patch(undefined, name, 'merge', { status: unhealthy || !cached ? status : { conditions: status.conditions } }, 'status');
    this.lastStatus.set(name, now);
  }

  stopHeartbeat(name: string): void {
    this.stopped.add(name);
  }

  resumeHeartbeat(name: string): void {
    if (!this.stopped.delete(name)) return;
    this.due.set(name, this.d.clock.now());
  }

  isStopped(name: string): boolean {
    return this.stopped.has(name);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.d.clock.clearTimeout(this.timer);
    await Promise.all(this.inFlight.values());
  }
}
