// The policy counters a network agent publishes on its own Node, so anything that can read
// Nodes sees each node's allow/deny decisions without reaching the agents: the lab view reads
// them from an informer (`capstan lab view`) or from the API server's watch cache
// (/capstan/lab-view) alike. NetworkPolicy's and the admin tiers' counts go in two sibling
// annotations, written together only when a count changed, at most once per period, so an
// idle cluster writes nothing and a busy one one Node patch per node per period.
import { resources, type ClientsetAPI } from '../../client/index.js';
import type { Logger } from '../../log/index.js';
import type { PolicyCounts } from './enforcer.js';

/** `{"<ns>/<policy>": {"ingress": [allowed, denied], "egress": [allowed, denied]}}` */
export const ANNOTATION_POLICY_PACKETS = 'capstan.io/network-policy-packets';

/** `{"AdminNetworkPolicy/<name>" | "BaselineAdminNetworkPolicy/default": {"ingress": [allowed, denied, passed], "egress": […]}}` */
export const ANNOTATION_ADMIN_POLICY_PACKETS = 'capstan.io/admin-network-policy-packets';

/** Annotations are limited to 256 KB in all: beyond this many policies (per annotation) the busiest are kept. */
export const MAX_PUBLISHED_POLICIES = 500;

export type Direction = 'ingress' | 'egress';
/** Packets allowed and denied, in one direction. */
export type Decisions = [allowed: number, denied: number];
export type PublishedCounts = Record<string, Partial<Record<Direction, Decisions>>>;
/** Packets an admin tier's rules allowed, denied and passed on (to NetworkPolicy or the baseline), in one direction. */
export type AdminDecisions = [allowed: number, denied: number, passed: number];
/** Keyed by `<kind>/<name>`: the admin tiers are cluster-scoped. */
export type PublishedAdminCounts = Record<string, Partial<Record<Direction, AdminDecisions>>>;

/** The busiest `MAX_PUBLISHED_POLICIES` entries, in key order, or all of them. */
function busiest<T extends Partial<Record<Direction, number[]>>>(out: Record<string, T>): Record<string, T> {
  const keys = Object.keys(out);
  if (keys.length <= MAX_PUBLISHED_POLICIES) return out;
  const total = (k: string) => Object.values(out[k]!).reduce((n, v) => n + (v as number[]).reduce((a, b) => a + b, 0), 0);
  const kept = keys.sort((a, b) => total(b) - total(a)).slice(0, MAX_PUBLISHED_POLICIES);
  return Object.fromEntries(kept.sort().map((k) => [k, out[k]!]));
}

/** The counters by policy: a drop counts for every policy isolating the pod it was dropped at. */
export function countsByPolicy(c: PolicyCounts): PublishedCounts {
  const out: PublishedCounts = {};
  const at = (policy: string, dir: Direction): Decisions => ((out[policy] ??= {})[dir] ??= [0, 0]);
  for (const a of c.allowed) at(a.policy, a.direction)[0] += a.packets;
  for (const d of c.denied) for (const p of d.policies) at(p, d.direction)[1] += d.packets;
  return busiest(out);
}

/** The admin tiers' rule counters by policy (`AdminNetworkPolicy/<name>`) and direction. */
export function adminCountsByPolicy(c: PolicyCounts): PublishedAdminCounts {
  const out: PublishedAdminCounts = {};
  const slot = { Allow: 0, Deny: 1, Pass: 2 } as const;
  for (const a of c.admin) ((out[`${a.kind}/${a.policy}`] ??= {})[a.direction] ??= [0, 0, 0])[slot[a.action]] += a.packets;
  return busiest(out);
}

/** Counts of `width` numbers per policy and direction from an annotation; entries malformed are left out. */
function parseCounts(raw: string | undefined, width: number, validKey: (k: string) => boolean): Record<string, Partial<Record<Direction, number[]>>> | undefined {
  if (!raw) return undefined;
  let doc: unknown;
  try { doc = JSON.parse(raw); } catch { return undefined; }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const out: Record<string, Partial<Record<Direction, number[]>>> = {};
  for (const [policy, dirs] of Object.entries(doc as Record<string, unknown>)) {
    if (!validKey(policy) || !dirs || typeof dirs !== 'object') continue;
    for (const dir of ['ingress', 'egress'] as const) {
      const v = (dirs as Record<string, unknown>)[dir];
      if (Array.isArray(v) && v.length === width && v.every((n) => Number.isSafeInteger(n) && n >= 0)) (out[policy] ??= {})[dir] = [...v] as number[];
    }
  }
  return out;
}

/** The counts a Node carries, or none when absent or malformed (an older agent, a hand edit). */
export function parsePublishedCounts(raw: string | undefined): PublishedCounts | undefined {
  return parseCounts(raw, 2, (k) => k.includes('/')) as PublishedCounts | undefined;
}

/** The admin tiers' counts a Node carries (`ANNOTATION_ADMIN_POLICY_PACKETS`), or none. */
export function parsePublishedAdminCounts(raw: string | undefined): PublishedAdminCounts | undefined {
  return parseCounts(raw, 3, (k) => /^(AdminNetworkPolicy|BaselineAdminNetworkPolicy)\/./.test(k)) as PublishedAdminCounts | undefined;
}

export interface CountsPublisherOptions {
  clients: ClientsetAPI;
  nodeName: string;
  counts: () => Promise<PolicyCounts>;
  periodMs: number;
  log: Logger;
}

/** Patches the Node's two annotations every period when the counters moved. */
export class CountsPublisher {
  private timer?: NodeJS.Timeout;
  private last?: string;
  private stopped = false;

  constructor(private readonly o: CountsPublisherOptions) {}

  start(): void {
    if (this.o.periodMs <= 0) return;
    const tick = () => {
      this.publish().catch((e: unknown) => this.o.log.warn('publishing network policy counters failed', { error: (e as Error).message }))
        .finally(() => { if (!this.stopped) { this.timer = setTimeout(tick, this.o.periodMs); this.timer.unref(); } });
    };
    this.timer = setTimeout(tick, this.o.periodMs);
    this.timer.unref();
  }

  /** One round: read the kernel's counters and patch the Node if they differ from the last ones written. */
  async publish(): Promise<boolean> {
    const counts = await this.o.counts();
    const annotations = { [ANNOTATION_POLICY_PACKETS]: JSON.stringify(countsByPolicy(counts)), [ANNOTATION_ADMIN_POLICY_PACKETS]: JSON.stringify(adminCountsByPolicy(counts)) };
    const value = JSON.stringify(annotations);
    if (value === this.last) return false;
    await this.o.clients.resource(resources.nodes).patch(undefined, this.o.nodeName, 'merge', { metadata: { annotations } });
    this.last = value;
    return true;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
