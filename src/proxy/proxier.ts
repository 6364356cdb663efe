// The sync loop: informer events only mark the state dirty; a sync runs at most once per
// min-sync-period (changes arriving together land in one transaction), and a full sync
// (read back, repair drift) every sync-period.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { execa } from 'execa';
import { realClock, type Clock, type SharedInformer } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { SyncRunner } from '../util/index.js';
import type { ProxyBackend, SyncResult } from './backend.js';
import { buildPlans, serviceNameLabel, type ProxyConfig, type ServicePortPlan } from './model.js';
import type { EndpointSlice, Service } from '../api/kinds.js';

const SERVICE_INDEX = 'capstan-proxy-service';
/** Lapsed set elements are freed by the kernel's set GC (every second by default). */
const COLLECT_DELAY_MS = 2500;

export interface ProxierOptions {
  services: SharedInformer<Service>;
  slices: SharedInformer<EndpointSlice>;
  backend: ProxyBackend;
  config: ProxyConfig;
  log: Logger;
  clock?: Clock;
  minSyncPeriodMs?: number;
  syncPeriodMs?: number;
  registry?: Registry;
  /** Network namespace the node's conntrack table lives in (tests); null for our own. */
  netns?: string | null;
  /** Delete conntrack entries of removed UDP endpoints (needs the `conntrack` tool). */
  conntrack?: boolean;
}

class ProxyMetrics {
  readonly duration: Histogram<'kind'>;
  readonly rules: Gauge<'kind'>;
  readonly lastSync: Gauge;
  readonly errors: Counter;
  constructor(registry?: Registry) {
    const registers = registry ? [registry] : [];
    this.duration = new Histogram({ name: 'kubeproxy_sync_proxy_rules_duration_seconds', help: 'Sync duration, by kind (full: read back and repair; partial: changes only).', labelNames: ['kind'], buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers });
    this.rules = new Gauge({ name: 'kubeproxy_sync_proxy_rules_total', help: 'Rules, chains and set elements last installed.', labelNames: ['kind'], registers });
    this.lastSync = new Gauge({ name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', help: 'When the last successful sync finished.', registers });
    this.errors = new Counter({ name: 'capstan_proxy_sync_errors_total', help: 'Failed syncs.', registers });
  }
}

export class Proxier {
  private readonly clock: Clock;
  private readonly minSyncMs: number;
  private readonly syncPeriodMs: number;
  private readonly metrics: ProxyMetrics;
  private dirty = true;
  private fullDue = true;
  private readonly runner: SyncRunner;
  /** A garbage collection of dying elements in progress: syncs wait for it. */
  private collecting: Promise<void> | undefined;
  private periodic: unknown;
  private collector: unknown;
  private lastSyncAt = -Infinity;
  private stopped = false;
  private plans: ServicePortPlan[] = [];
  /** Plans per service, rebuilt only for services whose Service or slices changed: the
   *  backend sees unchanged service ports as the very same objects and skips them. */
  private readonly byService = new Map<string, ServicePortPlan[]>();
  /** byService's plans in one list, until a service's plans change. */
  private flat: ServicePortPlan[] | undefined;
  /** The resourceVersions each service's plans were built from: a periodic full sync
   *  rebuilds only the services whose Service or EndpointSlices changed since. */
  private readonly builtFrom = new Map<string, string>();
  private readonly dirtyKeys = new Set<string>();
  /** Services rebuilt since the last successful sync → their plans as of that sync. */
  private readonly unsynced = new Map<string, ServicePortPlan[]>();
  /** Resolves after each sync attempt (tests wait on it). */
  private waiters: (() => void)[] = [];
  last: SyncResult | undefined;
  syncs = { full: 0, partial: 0, failed: 0 };

  constructor(private readonly o: ProxierOptions) {
    this.clock = o.clock ?? realClock;
    this.minSyncMs = o.minSyncPeriodMs ?? 1000;
    this.syncPeriodMs = o.syncPeriodMs ?? 30_000;
    this.metrics = new ProxyMetrics(o.registry);
    this.runner = new SyncRunner(() => this.runSync(), { clock: this.clock });
    o.slices.addIndexer(SERVICE_INDEX, (sl) => {
      const svc = sl.metadata.labels?.[serviceNameLabel];
      return svc ? [`${sl.metadata.namespace ?? ''}/${svc}`] : [];
    });
    const svcKey = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
    const sliceKey = (o: { metadata: { namespace?: string; labels?: Record<string, string> } }) => {
      const svc = o.metadata.labels?.[serviceNameLabel];
      return svc ? `${o.metadata.namespace ?? ''}/${svc}` : undefined;
    };
    o.services.addEventHandler({
      onAdd: (x) => this.changed(svcKey(x)), onUpdate: (_, x) => this.changed(svcKey(x)), onDelete: (x) => this.changed(svcKey(x)),
    });
    o.slices.addEventHandler({
      onAdd: (x) => this.changed(sliceKey(x)),
      onUpdate: (a, b) => { this.changed(sliceKey(a)); this.changed(sliceKey(b)); },
      onDelete: (x) => this.changed(sliceKey(x)),
    });
  }

  /** Starts syncing once both caches have synced. */
  start(): void {
    this.stopped = false;
    this.runner.resume();
    this.runner.request(0);
    this.schedulePeriodic();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clearTimeout(this.periodic);
    this.clock.clearTimeout(this.collector);
    this.collector = undefined;
    await this.runner.stop();
    await this.collecting;
    this.o.backend.close?.();
  }

  healthy(): boolean {
    // As kube-proxy: unhealthy when syncs have stopped succeeding for a while.
    return !this.stopped && this.clock.now() - this.lastSyncAt < Math.max(2 * this.syncPeriodMs, 60_000);
  }

  /** Waits for the next sync attempt to finish (test helper; also used by the CLI's first sync). */
  nextSync(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private changed(key: string | undefined): void {
    if (!key) return;
    this.dirtyKeys.add(key);
    this.dirty = true;
    this.runner.request(this.minSyncDelay);
  }

  /** Until min-sync-period has passed since the last successful sync (computed when scheduled). */
  private readonly minSyncDelay = (): number => this.lastSyncAt + this.minSyncMs - this.clock.now();

  private schedulePeriodic(): void {
    this.periodic = this.clock.setTimeout(() => {
      this.fullDue = true;
      this.runner.request(0);
      if (!this.stopped) this.schedulePeriodic();
    }, this.syncPeriodMs);
  }

  private async runSync(): Promise<void> {
    await this.collecting;
    if (this.stopped) return;
    if (!this.o.services.hasSynced() || !this.o.slices.hasSynced()) {
      this.runner.request(100);
      return;
    }
    await this.syncOnce();
  }

  private async syncOnce(): Promise<void> {
    const full = this.fullDue;
    this.dirty = false;
    this.fullDue = false;
    const start = performance.now();
    const previous = this.plans;
    try {
      const plans = this.currentPlans(full);
      const changed = full ? undefined : this.changedSinceSync();
      this.last = await this.o.backend.sync(plans, changed ? { full, changed } : { full });
      const before = full ? previous : [...this.unsynced.values()].flat();
      this.unsynced.clear();
      this.plans = plans;
      this.lastSyncAt = this.clock.now();
      const seconds = (performance.now() - start) / 1000;
      this.metrics.duration.labels(full ? 'full' : 'partial').observe(seconds);
      this.metrics.rules.labels('rules').set(this.last.rules);
      this.metrics.rules.labels('elements').set(this.last.elements);
      this.metrics.rules.labels('chains').set(this.last.chains);
      this.metrics.lastSync.set(Date.now() / 1000);
      this.syncs[full ? 'full' : 'partial']++;
      this.o.log.debug('synced', { full, seconds, operations: this.last.operations, rebuilt: this.last.rebuilt });
      if (this.o.conntrack) {
        const after = changed ? changed.plans : plans;
        // Until the old rules are gone a new datagram could recreate the entry we delete.
        const settle = this.o.backend.settleMs ?? 0;
        if (settle) this.clock.setTimeout(() => void this.clearStaleUDP(before, after).catch((e: Error) => this.o.log.error('conntrack cleanup failed', { error: e.message })), settle);
        else await this.clearStaleUDP(before, after);
      }
      if (this.o.backend.pendingCollect) this.scheduleCollect();
    } catch (e) {
      this.syncs.failed++;
      this.metrics.errors.inc();
      this.o.log.error('sync failed', { full, error: (e as Error).message });
      this.dirty = true;
      if (full) this.fullDue = true;
      this.runner.request(this.minSyncMs);
    } finally {
      for (const w of this.waiters.splice(0)) w();
    }
    if (this.dirty) this.runner.request(this.minSyncDelay);
  }

  private scheduleCollect(): void {
    if (this.stopped || this.collector !== undefined) return;
    this.collector = this.clock.setTimeout(() => void this.runCollect(), COLLECT_DELAY_MS);
  }

  private async runCollect(): Promise<void> {
    await this.runner.idle();
    this.collector = undefined;
    if (this.stopped || !this.o.backend.collect) return;
    this.collecting = this.o.backend.collect().then((done) => { if (!done) this.scheduleCollect(); }, () => this.scheduleCollect())
      .finally(() => { this.collecting = undefined; });
    await this.collecting;
  }

  /** Plans of the services rebuilt since the last successful sync, and the ids they dropped. */
  private changedSinceSync(): { plans: ServicePortPlan[]; removed: string[] } {
    const plans: ServicePortPlan[] = [], removed: string[] = [];
    for (const [key, before] of this.unsynced) {
      const now = this.byService.get(key) ?? [];
      plans.push(...now);
      const ids = new Set(now.map((p) => p.id));
      removed.push(...before.filter((p) => !ids.has(p.id)).map((p) => p.id));
    }
    return { plans, removed };
  }

  private currentPlans(all: boolean): ServicePortPlan[] {
    const keys = all ? new Set([...this.dirtyKeys, ...this.builtFrom.keys(), ...this.byService.keys(), ...this.o.services.lister.list().map((x) => `${x.metadata.namespace}/${x.metadata.name}`)]) : this.dirtyKeys;
    for (const key of [...keys]) {
      const notified = this.dirtyKeys.delete(key);
      const [ns, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
      const svc = this.o.services.lister.get(ns, name);
      const slices = svc ? this.o.slices.lister.byIndex(SERVICE_INDEX, key) : [];
      const source = svc && versionsOf(svc, slices);
      // Without an event the objects are normally the same; the versions catch one missed.
      if (!notified && source !== undefined && this.builtFrom.get(key) === source) continue;
      if (!this.unsynced.has(key)) this.unsynced.set(key, this.byService.get(key) ?? []);
      const plans = svc ? buildPlans([svc], slices, this.o.config) : [];
      if (source !== undefined) this.builtFrom.set(key, source); else this.builtFrom.delete(key);
      if (plans.length) this.byService.set(key, plans); else this.byService.delete(key);
      this.flat = undefined;
    }
    return this.flat ??= [...this.byService.values()].flat();
  }

  /** UDP has no connection end: flows DNAT'd to a removed endpoint would blackhole until they time out. */
  private async clearStaleUDP(before: ServicePortPlan[], after: ServicePortPlan[]): Promise<void> {
    const now = new Map(after.map((p) => [p.id, p]));
    for (const p of before) {
      if (p.protocol !== 'udp') continue;
      const keep = new Set([...(now.get(p.id)?.clusterEndpoints ?? []), ...(now.get(p.id)?.nodePortEndpoints ?? [])].map((e) => e.ip));
      const gone = new Set([...p.clusterEndpoints, ...p.nodePortEndpoints].map((e) => e.ip).filter((ip) => !keep.has(ip)));
      for (const ip of gone) {
        for (const cip of p.clusterIPs) await this.conntrack(['-D', '-p', 'udp', '--orig-dst', cip, '--dst-nat', ip]);
        if (p.nodePort) await this.conntrack(['-D', '-p', 'udp', '--orig-port-dst', String(p.nodePort), '--dst-nat', ip]);
      }
    }
  }

  private async conntrack(args: string[]): Promise<void> {
    const [cmd, argv] = this.o.netns ? ['nsenter', [`--net=${this.o.netns}`, 'conntrack', ...args]] : ['conntrack', args];
    await execa(cmd, argv, { reject: false }); // exit 1 just means "no matching entries"
  }
}

/** The resourceVersions of a Service and its EndpointSlices; undefined when one has none. */
function versionsOf(svc: Service, slices: readonly EndpointSlice[]): string | undefined {
  const versions = [svc, ...slices].map((o) => o.metadata.resourceVersion && `${o.metadata.uid ?? o.metadata.name}@${o.metadata.resourceVersion}`);
  if (versions.some((v) => !v)) return undefined;
  return [versions[0], ...versions.slice(1).sort()].join(' ');
}
