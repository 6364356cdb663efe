// libnftnl-shaped expressions read back from the kernel → the vocabulary. Recognises the
// shapes compile.ts (and nft itself, for these statements) produce; anything else comes
// back as { kind: 'raw' } rather than being dropped.
import type { LowTable, ReadExpr as LowExpr } from './native.js';
import {
  CT_KEY_STATUS, FAMILY, FIELD_TYPE, HOOK, IPS_DST_NAT, NFT_DATA_VERDICT, SET_FLAG, decodeKey, decodeValue, ipText, keyTypesOf, verdictOf,
} from './encoding.js';
import type { CtState, Element, Expr, Family, Field, Hook, RuleState, SetFlag, SetState, TableState } from './types.js';

const bytes = (v: unknown): Uint8Array => (typeof v === 'string' ? Buffer.from(v, 'hex') : v instanceof Uint8Array ? v : new Uint8Array());
const u32 = (b: Uint8Array): number => new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);

function fieldOf(e: LowExpr): Field | undefined {
  if (e.type === 'meta' && e.dreg !== undefined) return ({ 3: 'meta mark', 15: 'meta nfproto', 16: 'meta l4proto' } as Record<number, Field>)[e.key as number];
  if (e.type !== 'payload' || e.dreg === undefined) return undefined;
  const k = `${e.base}:${e.offset}:${e.len}`;
  return ({
    '1:12:4': 'ip saddr', '1:16:4': 'ip daddr', '1:8:16': 'ip6 saddr', '1:24:16': 'ip6 daddr', '2:0:2': 'th sport', '2:2:2': 'th dport',
  } as Record<string, Field>)[k];
}

const CT_BITS: [CtState, number][] = [['invalid', 1], ['established', 2], ['related', 4], ['new', 8], ['untracked', 64]];

function prefixLen(mask: Uint8Array): number {
  let n = 0;
  for (const b of mask) for (let bit = 7; bit >= 0; bit--) if (b & (1 << bit)) n++;
  return n;
}

function raw(e: LowExpr): Expr {
  const parts = Object.entries(e).filter(([k]) => k !== 'type').map(([k, v]) => `${k}=${v}`);
  return { kind: 'raw', text: `${e.type} ${parts.join(' ')}` };
}

export function decompileExprs(low: LowExpr[]): Expr[] {
  const out: Expr[] = [];
  let i = 0;
  const at = (k: number) => low[i + k];
  while (i < low.length) {
    const e = low[i]!;
    const field = fieldOf(e);
    if (field === 'meta mark' && at(1)?.type === 'bitwise' && at(2)?.type === 'meta' && at(2)!.sreg === 1 && at(2)!.key === 3) {
      out.push({ kind: 'markOr', value: u32(bytes(at(1)!.xor)) });
      i += 3;
      continue;
    }
    if (field) {
      // Consecutive loads feed a lookup (concatenation) or a single compare.
      const fields: Field[] = [field];
      let j = i + 1;
      while (j < low.length && fieldOf(low[j]!)) fields.push(fieldOf(low[j++]!)!);
      const dm = dnatMapAt(low, j, fields);
      if (dm) {
        out.push(dm.expr);
        i = dm.next;
        continue;
      }
      if (low[j]?.type === 'dynset') {
        const d = low[j]!;
        out.push({ kind: 'setUpdate', fields, set: String(d.set), ...(Number(d.timeout ?? 0) ? { timeout: Number(d.timeout) / 1000 } : {}) });
        i = j + 1;
        continue;
      }
      const next = low[j];
      if (next?.type === 'lookup') {
        if (next.dreg === 0) out.push({ kind: 'vmap', fields, map: String(next.set) });
        else out.push({ kind: 'lookup', fields, set: String(next.set), ...(Number(next.flags ?? 0) & 1 ? { op: '!=' as const } : {}) });
        i = j + 1;
        continue;
      }
      if (fields.length === 1 && next?.type === 'range' && Number(next.op ?? 0) === 0) {
        const type = FIELD_TYPE[field];
        out.push({ kind: 'range', field, from: decodeValue(type, bytes(next.from)), to: decodeValue(type, bytes(next.to)) });
        i = j + 1;
        continue;
      }
      if (fields.length === 1) {
        const type = FIELD_TYPE[field];
        const bw = at(1)?.type === 'bitwise' ? at(1) : undefined;
        const cmp = at(bw ? 2 : 1);
        if (cmp?.type === 'cmp' && (cmp.op === 0 || cmp.op === 1)) {
          const op = cmp.op === 1 ? { op: '!=' as const } : {};
          const data = bytes(cmp.data);
          if (bw && (type === 'ipv4_addr' || type === 'ipv6_addr')) {
            out.push({ kind: 'match', field, value: `${ipText(data)}/${prefixLen(bytes(bw.mask))}`, ...op });
          } else if (bw) {
            out.push({ kind: 'match', field, value: decodeValue(type, data), mask: u32(bytes(bw.mask)), ...op });
          } else {
            out.push({ kind: 'match', field, value: decodeValue(type, data), ...op });
          }
          i += bw ? 3 : 2;
          continue;
        }
      }
    }
    if (e.type === 'ct' && e.key === 0 && at(1)?.type === 'bitwise' && at(2)?.type === 'cmp') {
      const bits = u32(bytes(at(1)!.mask));
      out.push({ kind: 'ctState', states: CT_BITS.filter(([, b]) => bits & b).map(([s]) => s) });
      i += 3;
      continue;
    }
    if (e.type === 'ct' && e.key === CT_KEY_STATUS && at(1)?.type === 'bitwise' && at(2)?.type === 'cmp' && u32(bytes(at(1)!.mask)) === IPS_DST_NAT) {
      out.push({ kind: 'ctStatusDnat' });
      i += 3;
      continue;
    }
    if (e.type === 'fib' && e.result === 3 && at(1)?.type === 'cmp' && u32(bytes(at(1)!.data)) === 2) {
      out.push({ kind: 'fibDaddrLocal' });
      i += 2;
      continue;
    }
    const dm = dnatMapAt(low, i, []);
    if (dm) {
      out.push(dm.expr);
      i = dm.next;
      continue;
    }
    if (e.type === 'numgen' && at(1)?.type === 'cmp' && at(1)!.op === 0) {
      out.push({ kind: 'numgenMatch', mod: Number(e.modulus), value: u32(bytes(at(1)!.data)) });
      i += 2;
      continue;
    }
    if (e.type === 'numgen' && at(1)?.type === 'lookup' && at(1)!.dreg === 0) {
      out.push({ kind: 'numgenVmap', mod: Number(e.modulus), map: String(at(1)!.set), ...(Number(e.offset ?? 0) ? { offset: Number(e.offset) } : {}) });
      i += 2;
      continue;
    }
    if (e.type === 'immediate' && e.dreg === 0) {
      out.push(verdictOf(Number(e.verdict), e.chain as string | undefined));
      i++;
      continue;
    }
    if (e.type === 'immediate' && e.dreg === 1 && at(1)?.type === 'meta' && at(1)!.sreg === 1 && at(1)!.key === 3) {
      out.push({ kind: 'setMark', value: u32(bytes(e.data)) });
      i += 2;
      continue;
    }
    if (e.type === 'immediate' && e.dreg === 1) {
      const port = at(1)?.type === 'immediate' && at(1)!.dreg === 2 ? at(1) : undefined;
      const nat = at(port ? 2 : 1);
      if (nat?.type === 'nat' && nat.natType === 1) {
        const p = port ? bytes(port.data) : undefined;
        out.push({ kind: 'dnat', addr: ipText(bytes(e.data)), ...(p ? { port: (p[0]! << 8) | p[1]! } : {}) });
        i += port ? 3 : 2;
        continue;
      }
    }
    if (e.type === 'counter') {
      const counted = e.packets !== undefined ? { packets: Number(e.packets), bytes: Number(e.bytes ?? 0) } : {};
      out.push({ kind: 'counter', ...counted });
    }
    else if (e.type === 'masq') out.push({ kind: 'masquerade' });
    else if (e.type === 'reject') {
      const key = `${e.rejectType}:${e.code ?? 0}`; // the kernel omits the code for tcp reset
      const w = ({ '0:3': 'icmp port-unreachable', '0:4': 'icmpv6 port-unreachable', '1:0': 'tcp reset', '2:1': 'icmpx port-unreachable' } as const)[key as '0:3'];
      out.push(w ? { kind: 'reject', with: w } : raw(e));
    } else out.push(raw(e));
    i++;
  }
  return out;
}

/** `[numgen] lookup dreg 1; nat dnat` at index j (after the field loads) → dnatMap. */
function dnatMapAt(low: LowExpr[], j: number, fields: Field[]): { expr: Expr; next: number } | undefined {
  let k = j;
  const ng = low[k]?.type === 'numgen' && !Number(low[k]!.offset ?? 0) ? low[k++] : undefined;
  const lookup = low[k], nat = low[k + 1];
  if (lookup?.type !== 'lookup' || lookup.dreg !== 1 || nat?.type !== 'nat' || nat.natType !== 1 || nat.regProtoMin !== 9) return undefined;
  if (!ng && !fields.length) return undefined;
  return { expr: { kind: 'dnatMap', fields, ...(ng ? { numgen: Number(ng.modulus) } : {}), map: String(lookup.set) }, next: k + 2 };
}

function commentOf(hex: string | undefined): string | undefined {
  if (!hex) return undefined;
  const userdata = bytes(hex);
  for (let off = 0; off + 2 <= userdata.length; off += 2 + userdata[off + 1]!) {
    if (userdata[off] === 0) {
      const text = userdata.subarray(off + 2, off + 2 + userdata[off + 1]!);
      return new TextDecoder().decode(text[text.length - 1] === 0 ? text.subarray(0, -1) : text);
    }
  }
  return undefined;
}

const familyName = (n: number): Family => (Object.entries(FAMILY).find(([, v]) => v === n)?.[0] ?? 'inet') as Family;
const hookName = (n: number): Hook => (Object.entries(HOOK).find(([, v]) => v === n)?.[0] ?? 'input') as Hook;

export function decompileTable(t: LowTable): TableState {
  const sets: SetState[] = t.sets.map((s) => {
    const keyType = keyTypesOf(s.keyType);
    const flags = (['constant', 'interval', 'timeout', 'dynamic'] as SetFlag[]).filter((f) => s.flags & SET_FLAG[f]);
    const data = s.flags & SET_FLAG.map && s.dataType !== undefined && s.dataType !== NFT_DATA_VERDICT ? keyTypesOf(s.dataType) : undefined;
    const elements: Element[] = s.elements.map((el) => ({
      key: decodeKey(keyType, bytes(el.key)),
      ...(el.verdict !== undefined ? { verdict: verdictOf(el.verdict, el.chain) } : {}),
      ...(data && el.data !== undefined ? { data: decodeKey(data, bytes(el.data)) } : {}),
      ...(el.timeout ? { timeoutMs: el.timeout } : {}),
      ...(el.expiration !== undefined ? { expiresMs: el.expiration } : {}),
    }));
    return {
      name: s.name, keyType, elements,
      ...(s.flags & SET_FLAG.map && s.dataType === NFT_DATA_VERDICT ? { map: 'verdict' as const } : {}),
      ...(data ? { data } : {}),
      ...(flags.length ? { flags } : {}),
    };
  });
  const rules: RuleState[] = t.rules.map((r) => {
    const comment = commentOf(r.userdata);
    return { chain: r.chain, handle: r.handle, exprs: decompileExprs(r.exprs), ...(comment ? { comment } : {}) };
  });
  return {
    family: familyName(t.family),
    name: t.name,
    chains: t.chains.map((c) => ({
      name: c.name, handle: c.handle,
      ...(c.hook !== undefined
        ? { base: { type: (c.type ?? 'filter') as 'filter', hook: hookName(c.hook), priority: c.priority ?? 0, policy: c.policy === 0 ? 'drop' as const : 'accept' as const } }
        : {}),
    })),
    rules,
    sets,
  };
}
