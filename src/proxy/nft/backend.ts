// The nftables proxy backend: keeps the table it last applied, sends only the difference;
// a full sync reads the kernel's table back first, so drift (a rule or element deleted by
// hand) is repaired by the same diff.
import { NftTable, type NftDriver, type NftOp, type TableMonitor } from '../../nft/index.js';
import type { ProxyConfig, ServicePortPlan } from '../model.js';
import type { ProxyBackend, SyncOptions, SyncResult } from '../backend.js';
import { diffTablesWith, fromTableState, isDying, opCount, readElements } from './diff.js';
import { buildDesired, countRulesAndElements, DYING_MS, elementId, freshTableOps, genSet, RETIRE_DATA_MS, type DesiredChain, type DesiredTable, type Gen, type Gens } from './ruleset.js';
import { IncrementalState, type RetireMode } from './incremental.js';
import { probeRetireMode } from './probe.js';
import { fallbacks, type Fallbacks } from '../../log/fallback.js';

export const TABLE_NAME = 'capstan-proxy';
/** The kernel frees lapsed set elements in a GC pass every second. A set-element dump is a
 *  series of reads that each skip the elements already sent, so a GC pass freeing elements in
 *  between shifts the rest and some live elements are never listed (measured: 25–36 of 12,000
 *  right after one transaction retired a few dozen). A read-back waits until the elements we
 *  retired have lapsed and a GC pass has freed them. */
const LAPSED_FREED_MS = RETIRE_DATA_MS + 1000 + 200;

export class NftBackend implements ProxyBackend {
  readonly mode: string;
  readonly table: NftTable;
  private readonly state = new IncrementalState(() => this.retireMode ?? 'delete');
  /** Found out by probing the kernel at the first full sync, unless given. */
  private retireMode: RetireMode | undefined;
  private counts: { rules: number; elements: number; chains: number } | undefined;
  private readonly fallback: Fallbacks;

  /** When the elements our last retiring transaction left have lapsed and been freed. */
  private lapsedFreedAt = 0;
  /** The fake driver lists consistently at any time: no wait for it. */
  private readonly waitsForGC: boolean;

  constructor(driver: NftDriver, private readonly cfg: ProxyConfig, netns: string | null = null, name = TABLE_NAME, opts: { retire?: RetireMode; fallback?: Fallbacks } = {}) {
    this.table = new NftTable(driver, { family: 'ip', name }, netns);
    this.mode = `nftables/${driver.name}`;
    this.retireMode = opts.retire;
    this.fallback = opts.fallback ?? fallbacks('proxy');
    this.waitsForGC = driver.name !== 'fake';
  }

  get settleMs(): number {
    return this.retireMode === 'expiry' ? RETIRE_DATA_MS + 10 : 0;
  }

  /** The generations each plan's elements live in (tests compare against a full build with it). */
  genOf = (p: ServicePortPlan): Gens => this.state.genOf(p.id) ?? { verdict: 0, data: 0 };

  get pendingCollect(): boolean {
    return this.state.pendingCollect;
  }

  /** The ruleset generation our last transaction produced, while nobody else has committed;
   *  undefined when the kernel's table may differ from what we believe (a failed transaction). */
  private expectedGen: number | undefined;
  /** nftables' change notifications for our table, where the driver has them: a full sync
   *  reads the table back only when someone else changed it. */
  private monitor: TableMonitor | undefined;
  /** Generations our own commits made, not yet seen in the notifications. */
  private readonly ownGens = new Set<number>();

  /** Applies one transaction and notes the generation it made (the addon names the
   *  generation it expects in the batch, so the kernel refuses it if anyone else committed
   *  in between: the number is exactly the one our commit made). */
  private async apply(ops: NftOp[]): Promise<void> {
    this.expectedGen = undefined;
    this.expectedGen = (await this.table.apply(ops))?.generation;
    if (this.monitor && this.expectedGen !== undefined) {
      this.ownGens.add(this.expectedGen);
      // The kernel queued our commit's notifications (one per element) before acking it: read
      // them now, off the JS thread, so a full load's do not sit in the socket until the
      // next full sync.
      this.absorbing = this.absorbing.then(() => this.absorb());
    }
    if (this.waitsForGC && ops.some(retires)) this.lapsedFreedAt = Date.now() + LAPSED_FREED_MS;
  }

  /** Notifications read so far showed another writer's commit to our table, or were lost. */
  private touchedByOthers = false;
  private absorbing: Promise<void> = Promise.resolve();

  private async absorb(): Promise<void> {
    const monitor = this.monitor;
    if (!monitor) return;
    try {
      const { lost, touched } = await monitor.drain();
      for (const t of touched) {
        if (!this.ownGens.delete(t.generation)) this.touchedByOthers = true;
      }
      if (lost) {
        this.touchedByOthers = true;
        this.ownGens.clear();
      }
    } catch (e) {
      this.touchedByOthers = true; // unreadable: trust nothing
      if (this.monitor === monitor) this.fallback('change-notifications-unreadable', { error: e }); // else closed meanwhile
    }
  }

  /** Nobody else changed our table since our last transaction, so it is exactly what we left
   *  (lapsing elements and the kernel's set GC commit nothing): a full sync need not read it
   *  back. With notifications, commits to other tables do not count; without, any commit does. */
  private async untouched(): Promise<boolean> {
    if (this.expectedGen === undefined) return false;
    if (!this.monitor) return (await this.table.generation()) === this.expectedGen;
    await (this.absorbing = this.absorbing.then(() => this.absorb()));
    return !this.touchedByOthers;
  }

  /** Subscribes once a full sync has applied: the first load's one notification per element
   *  would cost the kernel ~20 % more (measured at 10,000 Services). Whatever was committed
   *  between that load and the subscription shows as a moved generation: read back next time.
   *  A driver without notifications leaves the generation check. */
  private async subscribe(): Promise<void> {
    if (this.monitor || !this.table.driver.monitor) return;
    try {
      this.monitor = this.table.driver.monitor(this.table.netns, this.table.table);
    } catch (e) {
      this.fallback('change-notifications-unavailable', { error: e });
      return;
    }
    this.ownGens.clear();
    this.touchedByOthers = this.expectedGen === undefined || (await this.table.generation()) !== this.expectedGen;
  }

  /** Forgets what arrived before a read-back: the listing shows it (until the full sync
   *  completes, nothing is trusted). */
  private async watchFromHere(): Promise<void> {
    this.expectedGen = undefined;
    await this.absorbing;
    if (this.monitor) await this.monitor.drain().catch(() => undefined);
    this.ownGens.clear();
    this.touchedByOthers = false;
  }

  /** Stops the notifications (the next full sync subscribes again and reads the table back). */
  close(): void {
    this.monitor?.close();
    this.monitor = undefined;
    this.expectedGen = undefined;
    this.touchedByOthers = true;
  }

  async sync(plans: readonly ServicePortPlan[], opts: SyncOptions): Promise<SyncResult> {
    if (!opts.full || (this.counts && await this.untouched())) {
      if (!this.counts) return this.fullSync(plans);
      const ops = this.state.step(plans, opts.full ? undefined : opts.changed);
      if (!ops.length) return { operations: 0, rebuilt: false, ...this.counts };
      try {
        await this.apply(ops);
      } catch (e) {
        this.fallback('incremental-apply-failed-full-sync', { error: e }); // our picture of the kernel was wrong: read back and repair
        return this.fullSync(plans);
      }
      for (const op of ops) if (op.op === 'addElements') this.counts.elements += op.elements.filter((e) => !e.expiresMs).length;
      return { operations: opCount(ops), rebuilt: false, ...this.counts };
    }
    return this.fullSync(plans);
  }

  /** Removes chains and sets no Service uses any more. False: something still holds them (a
   *  lapsed element the kernel's set GC has not freed yet) — try again later. */
  async collect(): Promise<boolean> {
    const ops = this.state.collect();
    if (!ops.length) return true;
    try {
      await this.apply(ops);
    } catch (e) {
      this.fallback('collect-deferred', { error: e });
      return false;
    }
    this.state.commitCollect(ops);
    return true;
  }

  private async fullSync(plans: readonly ServicePortPlan[]): Promise<SyncResult> {
    this.counts = undefined;
    this.retireMode ??= await probeRetireMode(this.table.driver, this.table.netns);
    const wait = this.lapsedFreedAt - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await this.watchFromHere();
    const gen = await this.table.generation();
    const state = await this.table.tryList({ columns: true });
    if (!state) {
      const fresh = freshTableOps(plans, this.cfg);
      await this.apply(fresh.ops);
      this.state.reset(fresh.fragments, plans, { chains: new Map(), sets: [] });
      this.counts = fresh.counts;
      await this.subscribe();
      return { operations: opCount(fresh.ops), rebuilt: false, ...this.counts };
    }
    const actual = fromTableState(state);
    const genOf = (p: ServicePortPlan): Gens => this.state.genOf(p.id) ?? gensInTable(actual, p);
    const { table: desired, fragments } = buildDesired(plans, this.cfg, genOf);
    let { ops, unwanted } = diffTablesWith(actual, desired);
    let rebuilt = false;
    this.expectedGen = gen; // read back as of (at least) this generation
    if (ops.length) {
      try {
        await this.apply(ops);
      } catch (e) {
        this.fallback('diff-apply-failed-keep-unwanted', { error: e });
        try {
          // A chain we meant to delete may still be held by a lapsed element: leave such things to collect().
          ({ ops, unwanted } = diffTablesWith(actual, desired, { keepUnwanted: true }));
          await this.apply(ops);
        } catch (e) {
          // The table holds something we cannot diff against: replace it whole in one
          // transaction, so Services keep answering until the commit.
          this.fallback('diff-apply-failed-table-rebuilt', { error: e });
          ops = [{ op: 'addTable' }, { op: 'deleteTable' }, ...diffTablesWith(undefined, desired).ops];
          await this.apply(ops);
          unwanted = { chains: [], sets: [] };
          rebuilt = true;
        }
      }
    }
    const orphanChains = new Map<string, DesiredChain>(unwanted.chains.map((c) => [c, actual.chains.get(c) ?? { rules: [] }]));
    this.state.reset(fragments, plans, { chains: orphanChains, sets: unwanted.sets });
    this.counts = countRulesAndElements(desired);
    await this.subscribe();
    return { operations: opCount(ops), rebuilt, ...this.counts };
  }

  async cleanup(): Promise<void> {
    await this.table.remove();
    this.counts = undefined;
    this.expectedGen = undefined;
    this.close();
  }
}

/** Whether an op leaves elements that lapse soon (retired with a short expiry). */
function retires(op: NftOp): boolean {
  return op.op === 'addElements' && (op.elements.some((e) => e.expiresMs !== undefined && e.expiresMs < DYING_MS) || (op.expiresMs !== undefined && op.expiresMs < DYING_MS && op.elements.some((e) => e.expiresMs === undefined)));
}

/** A proxy restarting adopts its predecessor's table: a plan stays in the generations it is in. */
function gensInTable(actual: DesiredTable, p: ServicePortPlan): Gens {
  const ip = p.clusterIPs[0];
  if (ip === undefined) return { verdict: 0, data: 0 };
  const live = (set: string, id: string) => {
    const s = actual.sets.get(set);
    const el = s && readElements(s).get(id);
    return el !== undefined && !isDying(el);
  };
  const pick = (set: 'serviceIPs' | 'endpoints', id: string): Gen => (!live(genSet(set, 0), id) && live(genSet(set, 1), id) ? 1 : 0);
  return { verdict: pick('serviceIPs', elementId([ip, p.protocol, p.port])), data: pick('endpoints', elementId([ip, p.protocol, p.port, 0])) };
}
