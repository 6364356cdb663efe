// Desired policy state → one nftables transaction. Against what the agent applied last
// (partial) or from nothing (full: the table is recreated). A change costs what changed:
// a pod joining a selector is one element, a policy edit rewrites the chains of the pods it
// selects, nothing else is touched. Order inside the transaction follows the kernel's
// references: sets before the rules that look them up, chains before the map elements that
// jump to them, map elements gone before their chains, rules gone before their sets.
import type { NftOp } from '../../nft/index.js';
import { BASE_CHAINS, MAPS, baseRules, type DesiredPolicy, type DesiredSet } from './ruleset.js';

const EMPTY: DesiredPolicy = { sets: new Map(), chains: new Map(), signatures: new Map(), maps: new Map(MAPS.map((m) => [m.name, new Map()])) };

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
  const ops: NftOp[] = prev ? [] : baseOps();
  const old = prev ?? EMPTY;
  const tail: NftOp[] = [];

  for (const [name, set] of next.sets) {
    const before = old.sets.get(name);
    if (!before) ops.push({ op: 'addSet', set: set.spec });
    const added = [...set.elements].filter(([k]) => !before?.elements.has(k)).map(([, e]) => e);
    if (added.length) ops.push({ op: 'addElements', set: name, keyType: set.spec.keyType, elements: added });
    if (before) pushRemoved(tail, before, set);
  }
  for (const [name, rules] of next.chains) {
    const before = old.chains.get(name);
    if (before && old.signatures.get(name) === next.signatures.get(name)) continue;
    ops.push(before ? { op: 'flushChain', chain: name } : { op: 'addChain', chain: name });
    for (const r of rules) ops.push({ op: 'addRule', chain: name, exprs: r.exprs, comment: r.comment });
  }
  for (const [map, pods] of next.maps) {
    const before = old.maps.get(map) ?? new Map<string, string>();
    const added = [...pods].filter(([ip, chain]) => before.get(ip) !== chain);
    const removed = [...before].filter(([ip, chain]) => pods.get(ip) !== chain);
    if (removed.length) ops.push({ op: 'deleteElements', set: map, keyType: ['ipv4_addr'], elements: removed.map(([ip]) => ({ key: [ip] })) });
    if (added.length) ops.push({ op: 'addElements', set: map, keyType: ['ipv4_addr'], elements: added.map(([ip, chain]) => ({ key: [ip], verdict: { kind: 'goto', chain } })) });
  }
  for (const name of old.chains.keys()) {
    if (!next.chains.has(name)) ops.push({ op: 'flushChain', chain: name }, { op: 'deleteChain', chain: name });
  }
  ops.push(...tail);
  for (const name of old.sets.keys()) if (!next.sets.has(name)) ops.push({ op: 'deleteSet', set: name });
  if (!prev) ops.push(...baseChainOps());
  return ops;
}

function pushRemoved(out: NftOp[], before: DesiredSet, after: DesiredSet): void {
  const removed = [...before.elements].filter(([k]) => !after.elements.has(k)).map(([, e]) => ({ key: e.key }));
  if (removed.length) out.push({ op: 'deleteElements', set: after.spec.name, keyType: after.spec.keyType, elements: removed });
}
