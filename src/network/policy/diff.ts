// Desired policy state → one nftables transaction. Against what the agent applied last
// (partial: only the keys a change names) or from nothing (full: the table is recreated).
// A change costs what changed: a pod joining a selector is elements, a policy edit is
// elements of the sets of the pods it selects (a new generation of their chains only when
// an ipBlock, a port range or an allow-all rule changes), nothing else is touched. Order inside the transaction follows the kernel's
// references: sets before the rules that look them up, chains before the map elements that
// jump to them, map elements gone before their chains, rules gone before their sets.
import type { NftOp } from '../../nft/index.js';
import { BASE_CHAINS, LIVE_MS, MAPS, RETIRE_MS, baseRules, mapVerdict, type Collectable, type DesiredKeys, type DesiredPolicy, type DesiredSet } from './ruleset.js';

const EMPTY: DesiredPolicy = { sets: new Map(), chains: new Map(), signatures: new Map(), maps: new Map(MAPS.map((m) => [m.name, new Map()])), uses: new Map(), refs: new Map(), refCount: new Map(), garbage: new Map() };

/** How a map element that goes is removed: re-added to lapse at once (no grace period), or deleted (kernels before 6.12). */
export type RetireMode = 'expiry' | 'delete';

/** The static part: table, base chains, maps. */
export function baseOps(): NftOp[] {
  return [
    { op: 'addTable' }, { op: 'deleteTable' }, { op: 'addTable' },
    ...MAPS.map((set): NftOp => ({ op: 'addSet', set })),
  ];
}

const baseChainOps = (): NftOp[] => BASE_CHAINS.flatMap((c): NftOp[] => [
  { op: 'addChain', chain: c.name, base: c.base },
  ...baseRules(c).map((exprs): NftOp => ({ op: 'addRule', chain: c.name, exprs })),
]);

/** Ops from `prev` (undefined: rebuild the table) to `next`; [] when nothing differs. */
export function policyOps(prev: DesiredPolicy | undefined, next: DesiredPolicy): NftOp[] {
  const old = prev ?? EMPTY;
  const union = <T>(a: Iterable<T>, b: Iterable<T>) => new Set([...a, ...b]);
  const pods = union([...old.maps.values()].flatMap((m) => [...m.keys()]), [...next.maps.values()].flatMap((m) => [...m.keys()]));
  return opsFor(old, next, { sets: union(old.sets.keys(), next.sets.keys()), chains: union(old.chains.keys(), next.chains.keys()), pods }, !prev, 'delete');
}

/** Ops for only the entries `keys` names: `before` holds what they were (absent: did not exist). */
export function changeOps(before: DesiredPolicy, next: DesiredPolicy, keys: DesiredKeys, retire: RetireMode): NftOp[] {
  return opsFor(before, next, keys, false, retire);
}

/** Deletes garbage: chains (no live element leads to them), then the sets only they looked up. */
export const collectOps = (gone: Collectable): NftOp[] => [
  ...gone.chains.flatMap((chain): NftOp[] => [{ op: 'flushChain', chain }, { op: 'deleteChain', chain }]),
  ...gone.sets.map((set): NftOp => ({ op: 'deleteSet', set })),
];

const element = (map: string, ip: string, chain: string) => ({ key: [ip], verdict: { kind: mapVerdict(map), chain } });

function opsFor(old: DesiredPolicy, next: DesiredPolicy, keys: DesiredKeys, full: boolean, retire: RetireMode): NftOp[] {
  const ops: NftOp[] = full ? baseOps() : [];
  const tail: NftOp[] = [];
  for (const name of keys.sets) {
    const set = next.sets.get(name);
    if (!set) continue;
    const before = old.sets.get(name);
    if (before === set) continue;
    if (!before) ops.push({ op: 'addSet', set: set.spec });
    const added = [...set.elements].filter(([k]) => !before?.elements.has(k)).map(([, e]) => e);
    if (added.length) ops.push({ op: 'addElements', set: name, keyType: set.spec.keyType, elements: added });
    if (before) pushRemoved(set.spec.flags?.includes('timeout') && retire === 'expiry' ? ops : tail, before, set, retire);
  }
  for (const name of keys.chains) {
    const rules = next.chains.get(name);
    if (!rules) continue;
    const before = old.chains.get(name);
    if (before && old.signatures.get(name) === next.signatures.get(name)) continue;
    ops.push(before ? { op: 'flushChain', chain: name } : { op: 'addChain', chain: name });
    for (const r of rules) ops.push({ op: 'addRule', chain: name, exprs: r.exprs, comment: r.comment });
  }
  for (const [map, pods] of next.maps) {
    if (keys.maps && !keys.maps.includes(map)) continue;
    const before = old.maps.get(map) ?? new Map<string, string>();
    const added: [string, string][] = [], removed: [string, string][] = [];
    for (const ip of keys.pods) {
      const was = before.get(ip), is = pods.get(ip);
      if (was === is) continue;
      if (was) removed.push([ip, was]);
      if (is) added.push([ip, is]);
    }
    if (removed.length && retire === 'delete') ops.push({ op: 'deleteElements', set: map, keyType: ['ipv4_addr'], elements: removed.map(([ip]) => ({ key: [ip] })) });
    if (removed.length && retire === 'expiry') ops.push({ op: 'addElements', set: map, keyType: ['ipv4_addr'], elements: removed.map(([ip, chain]) => element(map, ip, chain)), timeoutMs: LIVE_MS, expiresMs: RETIRE_MS });
    if (added.length) ops.push({ op: 'addElements', set: map, keyType: ['ipv4_addr'], elements: added.map(([ip, chain]) => element(map, ip, chain)), timeoutMs: LIVE_MS, expiresMs: LIVE_MS });
  }
  for (const name of keys.chains) {
    if (old.chains.has(name) && !next.chains.has(name)) ops.push({ op: 'flushChain', chain: name }, { op: 'deleteChain', chain: name });
  }
  ops.push(...tail);
  for (const name of keys.sets) if (old.sets.has(name) && !next.sets.has(name)) ops.push({ op: 'deleteSet', set: name });
  if (full) ops.push(...baseChainOps());
  return ops;
}

/** Elements gone: a pod's own sets (timeout flag) retire them by a short expiry where the kernel honours it, others delete. */
function pushRemoved(out: NftOp[], before: DesiredSet, after: DesiredSet, retire: RetireMode): void {
  const removed = [...before.elements].filter(([k]) => !after.elements.has(k)).map(([, e]) => ({ key: e.key }));
  if (!removed.length) return;
  if (after.spec.flags?.includes('timeout') && retire === 'expiry') out.push({ op: 'addElements', set: after.spec.name, keyType: after.spec.keyType, elements: removed, timeoutMs: LIVE_MS, expiresMs: RETIRE_MS });
  else out.push({ op: 'deleteElements', set: after.spec.name, keyType: after.spec.keyType, elements: removed });
}
