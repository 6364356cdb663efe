// A new packet walked through a listed nftables table (the fake driver's, or the kernel's read
// back), written from nft's documented semantics: base chains of a hook in priority order, an
// accept ends only its base chain, a drop ends all; `jump` returns to the next rule, `goto`
// does not, `return` (or the end of a chain) goes back to the caller, or to the base chain's
// policy. Lets model tests check the table a sync builds judges as the semantics say.
import type { Element, Expr, TableState } from '../../src/nft/index.js';
import { inCidr } from './policy-oracle.js';

export interface Packet { saddr: string; daddr: string; protocol: 'tcp' | 'udp'; dport: number }

function field(p: Packet, f: string): string {
  switch (f) {
    case 'ip saddr': return p.saddr;
    case 'ip daddr': return p.daddr;
    case 'meta l4proto': return p.protocol;
    case 'th dport': return String(p.dport);
    default: throw new Error(`walk: field ${f}`);
  }
}

const PROTO_NUMBERS: Record<string, string> = { 6: 'tcp', 17: 'udp', 132: 'sctp' };
const norm = (v: unknown): string => PROTO_NUMBERS[String(v)] ?? String(v);
const live = (e: Element) => e.expiresMs === undefined || e.expiresMs > 1;

function find(t: TableState, set: string, key: string[]): Element | undefined {
  const s = t.sets.find((x) => x.name === set);
  if (!s) throw new Error(`walk: no set ${set}`);
  return s.elements.find((e) => live(e) && e.key.length === key.length && e.key.every((k, i) => norm(k) === key[i]));
}

type Verdict = { kind: 'accept' | 'drop' | 'return' } | { kind: 'jump' | 'goto'; chain: string } | undefined;

function rule(t: TableState, p: Packet, exprs: Expr[]): Verdict {
  for (const e of exprs) {
    switch (e.kind) {
      case 'ctState': if (!e.states.includes('new')) return undefined; break;
      case 'counter': break;
      case 'match': {
        const v = field(p, e.field), want = String(e.value);
        const hit = want.includes('/') ? inCidr(v, want) : norm(want) === v;
        if (hit === (e.op === '!=')) return undefined;
        break;
      }
      case 'range': { const v = Number(field(p, e.field)); if (v < Number(e.from) || v > Number(e.to)) return undefined; break; }
      case 'lookup': { const hit = !!find(t, e.set, e.fields.map((f) => field(p, f))); if (hit === (e.op === '!=')) return undefined; break; }
      case 'vmap': { const el = find(t, e.map, e.fields.map((f) => field(p, f))); if (!el) return undefined; return el.verdict as Verdict; }
      case 'accept': case 'drop': case 'return': return { kind: e.kind };
      case 'jump': case 'goto': return { kind: e.kind, chain: e.chain };
      default: throw new Error(`walk: expression ${e.kind}`);
    }
  }
  return undefined;
}

/** 'accept' or 'drop', and the comments of the rules whose verdict decided on the way. */
export function walk(t: TableState, p: Packet, hook: 'forward' | 'input'): { verdict: 'accept' | 'drop'; trail: string[] } {
  const trail: string[] = [];
  const bases = t.chains.filter((c) => c.base?.hook === hook).sort((a, b) => a.base!.priority - b.base!.priority);
  for (const base of bases) {
    const stack: { chain: string; i: number }[] = [];
    let chain = base.name, i = 0, verdict: 'accept' | 'drop' | undefined;
    for (let steps = 0; steps < 10_000 && !verdict; steps++) {
      const rules = t.rules.filter((r) => r.chain === chain);
      if (i >= rules.length) {
        const back = stack.pop();
        if (!back) break;
        ({ chain, i } = back);
        continue;
      }
      const r = rules[i++]!;
      const v = rule(t, p, r.exprs);
      if (!v) continue;
      if (r.comment) trail.push(r.comment);
      if (v.kind === 'accept' || v.kind === 'drop') verdict = v.kind;
      else if (v.kind === 'return') { const back = stack.pop(); if (!back) break; ({ chain, i } = back); }
      else if (v.kind === 'jump' || v.kind === 'goto') { if (v.kind === 'jump') stack.push({ chain, i }); chain = v.chain; i = 0; }
    }
    if (verdict === 'drop') return { verdict, trail };
    // accept, or the base chain's policy (accept here): the next base chain judges.
  }
  return { verdict: 'accept', trail };
}
