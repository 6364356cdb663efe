// Keeps `ip capstan-policy` equal to what the policies say, in the proxy's style: desired
// state from a pure model, one incremental transaction for what changed since the last
// commit, and a periodic resync that reads the kernel back only when the ruleset generation
// moved since our own last commit (someone else committed: maybe to our table).
//
// Contract: `sync` and `resync` are called one at a time (the agent's SyncRunner does);
// neither throws for a refused transaction that a full rebuild repairs.
import { FakeNft, NftTable, reAddUpdatesExpiry, type TableState } from '../../nft/index.js';
import type { Logger } from '../../log/index.js';
import { fallbacks } from '../../log/fallback.js';
import { canonicalTable } from './canonical.js';
import { changeOps, collectOps, policyOps, type RetireMode } from './diff.js';
import { explainFlow, type Explanation } from './explain.js';
import { IncrementalModel } from './incremental.js';
import type { PolicyInput, PolicyModel, Protocol } from './model.js';
import { computeAdminModel, emptyAdminModel, type AdminInput, type AdminModel, type AdminTier } from './admin.js';
import { adminComment, parseAdminChainName, updateAdminDesired, withAdmin } from './admin-ruleset.js';
import { adoptGenerations, collectable, DENY_COMMENT, desiredPolicy, forgetGarbage, parseChainName, podForm, policyComment, POLICY_TABLE, SETS_COMMENT, updateDesired, type DesiredPolicy } from './ruleset.js';

const fallback = fallbacks('network-agent');

/** Garbage chains are deleted this long after their element was retired (the set GC frees lapsed elements each second). */
export const COLLECT_AFTER_MS = 2_500;

async function retireMode(table: NftTable): Promise<RetireMode> {
  const ok = await reAddUpdatesExpiry(table.driver, table.netns, `${POLICY_TABLE}-probe`, (e) => fallback('policy-probe-table-not-removed', { error: e }));
  if (!ok) fallback('policy-retire-by-delete', { detail: 'this kernel ignores a re-added element\'s expiry: a pod\'s generation switch deletes its old element' });
  return ok ? 'expiry' : 'delete';
}

export interface PolicyCounts {
  /** Packets allowed, by policy key and direction (`ns/name`, ingress|egress). */
  allowed: { policy: string; direction: 'ingress' | 'egress'; packets: number }[];
  /** Packets dropped at a pod no policy allowed them to, by pod and direction, with the policies isolating it. */
  denied: { pod: string; direction: 'ingress' | 'egress'; packets: number; policies: string[] }[];
  /** Packets an AdminNetworkPolicy's or the BaselineAdminNetworkPolicy's rules decided (Allow, Deny) or passed on (Pass). */
  admin: { kind: AdminTier; policy: string; action: 'Allow' | 'Deny' | 'Pass'; direction: 'ingress' | 'egress'; packets: number }[];
}

/** What a sync reads: NetworkPolicy's input, and the admin tiers' (absent: none). */
export type EnforcerInput = Omit<PolicyInput, 'nodeName'> & Partial<Omit<AdminInput, 'pods' | 'namespaces' | 'nodeName'>>;

export interface SyncResult {
  ops: number;
  mode: 'unchanged' | 'partial' | 'full';
}

export class PolicyEnforcer {
  /** What was committed last; a partial sync updates it in place with what changed. */
  private applied?: DesiredPolicy;
  private model?: PolicyModel;
  private admin: AdminModel = emptyAdminModel();
  private expectedGen?: number;
  /** The model kept between syncs: a sync recomputes only what a change can touch. */
  private readonly incremental: IncrementalModel;

  /** How map elements go (see diff.ts); found out from the kernel on the first sync unless given. */
  private retire?: RetireMode;

  constructor(readonly table: NftTable, private readonly log: Logger, private readonly nodeName?: string, opts: { retire?: RetireMode } = {}) {
    this.incremental = new IncrementalModel(nodeName);
    this.retire = opts.retire;
  }

  /** The model last enforced (for explain and metrics). */
  current(): PolicyModel | undefined {
    return this.model;
  }

  /** The model of the admin tiers last enforced. */
  currentAdmin(): AdminModel {
    return this.admin;
  }

  async sync(input: EnforcerInput): Promise<SyncResult> {
    this.retire ??= await retireMode(this.table);
    const changes = this.incremental.update(input);
    const model = this.model = this.incremental.current();
    const hadAdmin = this.admin.pods.size > 0;
    // Admin policies are few and cluster-wide: their model is computed whole, and only while any exists.
    this.admin = computeAdminModel({ pods: input.pods, namespaces: input.namespaces, nodes: input.nodes ?? [], admin: input.admin ?? [], baseline: input.baseline ?? [], nodeName: this.nodeName });
    if (!this.applied) return this.adoptOrRebuild(this.fullDesired());
    const desired = this.applied;
    const now = Date.now();
    const { before, keys } = updateDesired(desired, model, changes, now);
    const ops = changeOps(before, desired, keys, this.retire);
    if (hadAdmin || this.admin.pods.size || this.admin.peerSets.size) {
      const a = updateAdminDesired(desired, this.admin, now);
      ops.push(...changeOps(a.before, desired, a.keys, this.retire));
    }
    if (!ops.length) return { ops: 0, mode: 'unchanged' };
    try {
      await this.commit(ops);
      return { ops: ops.length, mode: 'partial' };
    } catch (e) {
      fallback('policy-incremental-apply-failed', { error: e });
      return this.rebuild(this.fullDesired());
    }
  }

  private fullDesired(): DesiredPolicy {
    return withAdmin(desiredPolicy(this.incremental.current()), this.admin);
  }

  /**
   * Deletes chains no map element has led to for `minAgeMs` (old generations, pods gone),
   * and then the sets of policies gone:
   * a transaction of its own, apart from any change, since a delete waits for a grace period.
   * A chain still held by a lapsed element the kernel has not freed yet is refused (EBUSY):
   * the next call tries again. Returns how many went.
   */
  async collect(minAgeMs = COLLECT_AFTER_MS): Promise<number> {
    if (!this.applied) return 0;
    const gone = collectable(this.applied, Date.now(), minAgeMs);
    const count = gone.chains.length + gone.sets.length;
    if (!count) return 0;
    try {
      await this.commit(collectOps(gone));
    } catch (e) {
      fallback('policy-collect-deferred', { error: e });
      return 0;
    }
    forgetGarbage(this.applied, gone);
    return count;
  }

  /** Whether chains wait for `collect`. */
  hasGarbage(): boolean {
    return !!this.applied?.garbage.size;
  }

  /** Periodic: nothing to read while nobody else committed; else compare, and rebuild on drift. */
  async resync(): Promise<'unchanged' | 'adopted' | 'full'> {
    if (!this.applied) return 'unchanged';
    const gen = await this.table.generation();
    if (gen !== undefined && gen === this.expectedGen) return 'unchanged';
    const r = await this.adoptOrRebuild(this.applied);
    if (r.mode === 'full') this.log.warn('policy table differed from the desired state; rebuilt', { table: POLICY_TABLE });
    return r.mode === 'full' ? 'full' : 'adopted';
  }

  /** Removes the table (the agent no longer enforces policy). */
  async remove(): Promise<void> {
    await this.table.remove();
    this.applied = undefined;
  }

  explain(src: string, dst: string, port: number, protocol: Protocol): Explanation | undefined {
    return this.model && explainFlow(this.model, src, dst, port, protocol, this.admin);
  }

  /**
   * Counters read from the kernel: allowed per policy, dropped per pod. A pod chain's rules
   * beyond its sets count for their own policy; its set lookups (one counter per set, not
   * per element) count for every policy that put elements in that pod's sets — each of them
   * admits those packets' kind of flow there, as each isolating policy is charged a drop.
   */
  async counts(): Promise<PolicyCounts> {
    const state = await this.table.tryList();
    const out: PolicyCounts = { allowed: [], denied: [], admin: [] };
    if (!state || !this.model) return out;
    const byComment = new Map<string, string>();
    const isolating = new Map<string, string[]>();
    const bySets = new Map<string, string[]>();
    for (const p of this.model.pods) {
      for (const dir of ['ingress', 'egress'] as const) {
        const rules = p[dir];
        if (!rules) continue;
        for (const key of rules.policies) byComment.set(policyComment(key), key);
        isolating.set(`${dir}\0${p.ip}`, rules.policies);
        bySets.set(`${dir}\0${p.ip}`, podForm(rules, dir, this.model).setPolicies);
      }
    }
    const podOf = new Map(this.model.pods.map((p) => [p.ip, p.key]));
    const allowed = new Map<string, number>();
    const adminNames = new Map<string, string>();
    for (const p of this.admin.pods.values()) for (const rules of [p.admin.ingress, p.admin.egress, p.baseline.ingress, p.baseline.egress]) for (const r of rules ?? []) adminNames.set(adminComment(r.tier, r.policy), r.policy);
    const adminCounts = new Map<string, number>();
    const ACTION = { accept: 'Allow', drop: 'Deny', return: 'Pass' } as const;
    for (const r of state.rules) {
      const tier = parseAdminChainName(r.chain);
      if (tier) {
        const verdict = r.exprs.find((e) => e.kind === 'accept' || e.kind === 'drop' || e.kind === 'return');
        const packets = r.exprs.reduce((n, e) => n + (e.kind === 'counter' ? e.packets ?? 0 : 0), 0);
        if (!verdict || !r.comment) continue;
        const key = [tier.tier, adminNames.get(r.comment) ?? r.comment.replace(/^b?anp:/, ''), ACTION[verdict.kind as keyof typeof ACTION], tier.dir].join('\0');
        adminCounts.set(key, (adminCounts.get(key) ?? 0) + packets);
        continue;
      }
      const chain = parseChainName(r.chain);
      if (!chain) continue;
      const { dir: direction, ip } = chain;
      const packets = r.exprs.reduce((n, e) => n + (e.kind === 'counter' ? e.packets ?? 0 : 0), 0);
      if (r.comment === DENY_COMMENT) {
        out.denied.push({ pod: podOf.get(ip) ?? ip, direction, packets, policies: isolating.get(`${direction}\0${ip}`) ?? [] });
      } else if (r.comment === SETS_COMMENT) {
        for (const policy of bySets.get(`${direction}\0${ip}`) ?? []) {
          const key = `${policy}\0${direction}`;
          allowed.set(key, (allowed.get(key) ?? 0) + packets);
        }
      } else if (r.comment) {
        const key = `${byComment.get(r.comment) ?? r.comment}\0${direction}`;
        allowed.set(key, (allowed.get(key) ?? 0) + packets);
      }
    }
    for (const [k, packets] of adminCounts) {
      const [kind, policy, action, direction] = k.split('\0') as [AdminTier, string, 'Allow' | 'Deny' | 'Pass', 'ingress' | 'egress'];
      out.admin.push({ kind, policy, action, direction, packets });
    }
    for (const [k, packets] of allowed) {
      const [policy, direction] = k.split('\0') as [string, 'ingress' | 'egress'];
      out.allowed.push({ policy, direction, packets });
    }
    return out;
  }

  private async commit(ops: Parameters<NftTable['apply']>[0]): Promise<void> {
    this.expectedGen = (await this.table.apply(ops))?.generation;
  }

  /** The kernel's table equal to `desired` (an agent restart, a resync): keep it; else rebuild. */
  private async adoptOrRebuild(desired: DesiredPolicy): Promise<SyncResult> {
    const gen = await this.table.generation();
    const actual = await this.table.tryList();
    if (actual && !this.applied) adoptGenerations(desired, actual, Date.now());
    if (actual && canonicalTable(actual) === canonicalTable(await expectedState(desired))) {
      this.applied = desired;
      this.expectedGen = gen;
      return { ops: 0, mode: 'unchanged' };
    }
    return this.rebuild(this.fullDesired());
  }

  private async rebuild(desired: DesiredPolicy): Promise<SyncResult> {
    const ops = policyOps(undefined, desired);
    this.applied = undefined;
    await this.commit(ops);
    this.applied = desired;
    return { ops: ops.length, mode: 'full' };
  }
}

/** What the kernel should list for `desired`: the full build, applied to the in-memory driver. */
async function expectedState(desired: DesiredPolicy): Promise<TableState> {
  const fake = new NftTable(new FakeNft(), { family: 'ip', name: POLICY_TABLE });
  await fake.apply(policyOps(undefined, desired));
  return fake.list();
}

export function policyTable(driver: ConstructorParameters<typeof NftTable>[0], netns: string | null): NftTable {
  return new NftTable(driver, { family: 'ip', name: POLICY_TABLE }, netns);
}
