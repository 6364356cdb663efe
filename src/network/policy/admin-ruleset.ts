// The admin and baseline tiers in nftables terms, in `ip capstan-policy` beside NetworkPolicy's
// pod chains (ruleset.ts has the base chains):
//
//   map ingress-admin    <pod ip> : jump ain-<ip>   chain ain-<ip>: the AdminNetworkPolicy rules for the
//   map egress-admin     <pod ip> : jump aeg-<ip>     pod in judgement order, one rule per (peer, port)
//                                                     alternative: `… counter accept|drop|return`
//                                                     (Allow, Deny, Pass); no match falls off the end
//   map ingress-baseline <pod ip> : goto bin-<ip>   chain bin-<ip>: the BaselineAdminNetworkPolicy's,
//   map egress-baseline  <pod ip> : goto beg-<ip>     accept|drop; no match: the base policy, accept
//   sets anp-<hash>  the addresses a rule's pod, namespace and node peers pick (one per rule)
//   sets anpt-<hash> egress named ports: address . protocol . port of the peer pods
//
// Order is the point of these policies, so their rules stay rules (a set has no order), but
// what changes most — which pods a selector picks — is elements of the rule's shared set: a
// pod coming, going or relabelled is an element add or delete, not a chain rewrite. A changed
// policy rewrites the chains of the pods it applies to in place (flush: a grace period, and
// the kernel validates the table), which suits objects an administrator edits now and then.
// A pod that stops being a subject loses its map element (retired like NetworkPolicy's); its
// chain and sets no rule needs any more are garbage, collected with NetworkPolicy's.
import type { Expr } from '../../nft/index.js';
import type { AdminModel, AdminRuleMatch, AdminTier } from './admin.js';
import type { Direction, Tuple } from './model.js';
import {
  ADMIN_MAPS, adminMapName, elementKey, emptyDesired, peerExprs, PEER_KEY, policyComment, portExprs, TUPLE_KEY,
  type DesiredKeys, type DesiredPolicy, type DesiredSet, type RuleSpec,
} from './ruleset.js';

export const adminChainName = (tier: AdminTier, dir: Direction, ip: string): string =>
  `${tier === 'AdminNetworkPolicy' ? 'a' : 'b'}${dir === 'ingress' ? 'in' : 'eg'}-${ip}`;

/** `ain-<ip>` … `beg-<ip>` → tier, direction, address. */
export function parseAdminChainName(name: string): { tier: AdminTier; dir: Direction; ip: string } | undefined {
  const m = /^([ab])(in|eg)-(.+)$/.exec(name);
  return m ? { tier: m[1] === 'a' ? 'AdminNetworkPolicy' : 'BaselineAdminNetworkPolicy', dir: m[2] === 'in' ? 'ingress' : 'egress', ip: m[3]! } : undefined;
}

const isAdminSet = (name: string): boolean => name.startsWith('anp-') || name.startsWith('anpt-');

/** A rule comment: the tier and the policy (counters are per policy; which rule decided is `policy explain`'s). */
export const adminComment = (tier: AdminTier, policy: string): string =>
  policyComment(`${tier === 'AdminNetworkPolicy' ? 'anp' : 'banp'}:${policy}`);

const VERDICT: Record<AdminRuleMatch['action'], Expr> = { Allow: { kind: 'accept' }, Deny: { kind: 'drop' }, Pass: { kind: 'return' } };

/** One rule per (peer, port) alternative of each policy rule, in order: the first that matches decides. */
export function adminChain(rules: AdminRuleMatch[], dir: Direction): RuleSpec[] {
  const field = dir === 'ingress' ? 'ip saddr' : 'ip daddr';
  const out: RuleSpec[] = [];
  for (const r of rules) {
    const tail: Expr[] = [{ kind: 'counter' }, VERDICT[r.action]];
    const comment = adminComment(r.tier, r.policy);
    for (const peer of r.peers) {
      for (const port of r.ports ?? [undefined]) out.push({ exprs: [...peerExprs(peer, field), ...(port ? portExprs(port) : []), ...tail], comment });
    }
    if (r.tuples) out.push({ exprs: [{ kind: 'lookup', fields: ['ip daddr', 'meta l4proto', 'th dport'], set: r.tuples }, ...tail], comment });
  }
  return out;
}

const plainSet = (name: string, ips: string[]): DesiredSet => ({ spec: { name, keyType: PEER_KEY }, elements: new Map(ips.map((ip) => [ip, { key: [ip] }])) });
const tupleSet = (name: string, tuples: Tuple[]): DesiredSet => ({ spec: { name, keyType: TUPLE_KEY }, elements: new Map(tuples.map((t) => [elementKey(t), { key: [...t] }])) });

/** The tiers' part of the desired state: chains, map elements and the shared sets their rules look up. */
export function adminDesired(admin: AdminModel): Pick<DesiredPolicy, 'sets' | 'chains' | 'signatures' | 'maps'> {
  const d = emptyDesired();
  const used = new Set<string>();
  for (const pod of admin.pods.values()) {
    for (const tier of ['AdminNetworkPolicy', 'BaselineAdminNetworkPolicy'] as const) {
      const byDir = tier === 'AdminNetworkPolicy' ? pod.admin : pod.baseline;
      for (const dir of ['ingress', 'egress'] as const) {
        const rules = byDir[dir];
        if (!rules?.length) continue;
        const name = adminChainName(tier, dir, pod.ip);
        const chain = adminChain(rules, dir);
        d.chains.set(name, chain);
        d.signatures.set(name, JSON.stringify(chain));
        d.maps.get(adminMapName(dir, tier))!.set(pod.ip, name);
        for (const r of rules) {
          for (const p of r.peers) if ('set' in p) used.add(p.set);
          if (r.tuples) used.add(r.tuples);
        }
      }
    }
  }
  for (const name of used) {
    const ips = admin.peerSets.get(name), tuples = admin.tupleSets.get(name);
    d.sets.set(name, ips ? plainSet(name, ips) : tupleSet(name, tuples ?? []));
  }
  return d;
}

/** Adds the tiers to a full build. */
export function withAdmin(d: DesiredPolicy, admin: AdminModel): DesiredPolicy {
  const a = adminDesired(admin);
  for (const [k, v] of a.sets) d.sets.set(k, v);
  for (const [k, v] of a.chains) { d.chains.set(k, v); d.signatures.set(k, a.signatures.get(k)!); }
  for (const [m, els] of a.maps) for (const [ip, chain] of els) d.maps.get(m)!.set(ip, chain);
  return d;
}

/**
 * Rewrites the tiers' entries of `desired` (in place) to what `admin` says and returns what
 * they were, with their keys, for changeOps. Chains and sets no longer needed become garbage
 * (a retired map element may still lead to a chain until it lapses).
 */
export function updateAdminDesired(desired: DesiredPolicy, admin: AdminModel, now: number): { before: DesiredPolicy; keys: DesiredKeys } {
  const next = adminDesired(admin);
  const before = emptyDesired();
  const chains = new Set([...desired.chains.keys()].filter((n) => parseAdminChainName(n)));
  for (const n of next.chains.keys()) chains.add(n);
  for (const name of chains) {
    const old = desired.chains.get(name), rules = next.chains.get(name);
    if (old) { before.chains.set(name, old); before.signatures.set(name, desired.signatures.get(name)!); }
    if (rules) {
      desired.chains.set(name, rules);
      desired.signatures.set(name, next.signatures.get(name)!);
      desired.garbage.delete(name);
    } else if (old && !desired.garbage.has(name)) desired.garbage.set(name, now);
  }
  const pods = new Set<string>();
  for (const map of ADMIN_MAPS) {
    const live = desired.maps.get(map)!, want = next.maps.get(map)!;
    for (const [ip, chain] of live) { before.maps.get(map)!.set(ip, chain); pods.add(ip); }
    for (const ip of want.keys()) pods.add(ip);
    desired.maps.set(map, new Map(want));
  }
  const sets = new Set([...desired.sets.keys()].filter(isAdminSet));
  for (const n of next.sets.keys()) sets.add(n);
  for (const name of sets) {
    const old = desired.sets.get(name), set = next.sets.get(name);
    if (old) before.sets.set(name, old);
    if (set) {
      desired.sets.set(name, set);
      desired.garbage.delete(name);
    } else if (old && !desired.garbage.has(name)) desired.garbage.set(name, now);
  }
  return { before, keys: { sets, chains, pods, maps: ADMIN_MAPS } };
}
