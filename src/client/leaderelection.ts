// Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection:
// acquire when the lease is free or expired, renew every retry period, give up leadership
// if renewal fails for renewDeadline, release on shutdown so a successor need not wait out
// the lease. Optimistic concurrency on the Lease's resourceVersion makes takeover safe.
// Unlike client-go's callers, a lost lease does not end the process: the elector keeps
// campaigning, and the caller stops its loops in onStoppedLeading and starts them afresh in
// the next onStartedLeading (in `capstan up` the components share a process with the API
// server, which must outlive an outage of its store).
import type { Lease } from '../api/kinds.js';
import type { LeaseSpec } from 'kubernetes-types/coordination/v1.js';
import { rfc3339Micro } from '../api/time.js';
import type { Logger } from '../log/index.js';
import { realClock, type Clock } from './clock.js';
import { isAlreadyExists, isConflict, isNotFound } from './errors.js';
import type { ResourceAPI } from './typed.js';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  clock?: Clock;
  log?: Logger;
}

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private timer: unknown;
  private lastRenew = 0;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;

  constructor(private leases: ResourceAPI<Lease>, private cfg: LeaderElectionConfig) {
    this.clock = cfg.clock ?? realClock;
    this.leaseMs = cfg.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = cfg.renewDeadlineMs ?? 10_000;
    this.retryMs = cfg.retryPeriodMs ?? 2_000;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    void this.tick();
  }

  private schedule(): void {
    if (!this.stopped) this.timer = this.clock.setTimeout(() => void this.tick(), this.retryMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let ok = false;
    try {
      // A request hanging on a stalled store must not hold a lost lease past the renew deadline.
      ok = await withTimeout(this.tryAcquireOrRenew(), this.renewDeadlineMs, this.clock);
    } catch (e) {
      this.cfg.log?.warn('lease update failed', { lease: `${this.cfg.namespace}/${this.cfg.name}`, error: (e as Error).message });
    }
    if (this.stopped) return;
    const now = this.clock.now();
    if (ok) {
      this.lastRenew = now;
      if (!this.leading) {
        this.leading = true;
        this.cfg.log?.info('became leader', { lease: `${this.cfg.namespace}/${this.cfg.name}`, identity: this.cfg.identity });
        this.cfg.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenew >= this.renewDeadlineMs) {
      this.leading = false;
      this.cfg.log?.warn('lost leadership', { lease: `${this.cfg.namespace}/${this.cfg.name}` });
      this.cfg.onStoppedLeading();
    }
    this.schedule();
  }

  private spec(transitions: number, acquireTime?: string): LeaseSpec {
    const now = rfc3339Micro(new Date(this.clock.now()));
    return { holderIdentity: this.cfg.identity, leaseDurationSeconds: Math.ceil(this.leaseMs / 1000), acquireTime: acquireTime ?? now, renewTime: now, leaseTransitions: transitions };
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.cfg;
    let lease: Lease;
    try {
      lease = await this.leases.get(namespace, name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        await this.leases.create(namespace, { metadata: { name, namespace }, spec: this.spec(0) });
        return true;
      } catch (e2) {
        if (isAlreadyExists(e2)) return false;
        throw e2;
      }
    }
    const spec: LeaseSpec = lease.spec ?? {};
    const holder: string = spec.holderIdentity ?? '';
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
    const expired = !holder || renewed + duration < this.clock.now();
    if (holder !== identity && !expired) return false;
    const transitions = (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
    try {
      await this.leases.update({ ...lease, spec: this.spec(transitions, holder === identity ? spec.acquireTime : undefined) });
      return true;
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
  }

  /** Stops campaigning; a leader releases the lease so another can take over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.leases.get(this.cfg.namespace, this.cfg.name);
      if (lease.spec?.holderIdentity === this.cfg.identity) {
        await this.leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: rfc3339Micro(new Date(this.clock.now())) } });
      }
    } catch { /* best effort: the lease expires anyway */ }
    this.cfg.onStoppedLeading();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, clock: Clock): Promise<T> {
  let timer: unknown;
  const timeout = new Promise<never>((_, reject) => { timer = clock.setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms); });
  return Promise.race([p, timeout]).finally(() => clock.clearTimeout(timer));
}
