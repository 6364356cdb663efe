// A table's content without what the kernel assigns (handles) or counts (counter values):
// two states with equal canonical text enforce the same policy.
import type { Expr, TableState } from '../../nft/index.js';

const stripCounts = (e: Expr): Expr => (e.kind === 'counter' ? { kind: 'counter' } : e);

export function canonicalTable(t: TableState): string {
  const chains = [...t.chains].map((c) => ({ name: c.name, base: c.base ?? null })).sort((a, b) => a.name.localeCompare(b.name));
  const rules: Record<string, { exprs: Expr[]; comment: string | null }[]> = {};
  for (const r of t.rules) (rules[r.chain] ??= []).push({ exprs: r.exprs.map(stripCounts), comment: r.comment ?? null });
  const sets = [...t.sets].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({
    name: s.name, keyType: s.keyType, map: s.map ?? null, flags: s.flags ?? [],
    elements: s.elements.map((e) => JSON.stringify([e.key, e.verdict ?? null])).sort(),
  }));
  return JSON.stringify({ chains, rules: Object.keys(rules).sort().map((k) => [k, rules[k]]), sets });
}
