// Vocabulary → `nft -f` text, one line per operation so nft's line numbers name the op.
import { FIELD_TYPE } from './encoding.js';
import type { Element, Expr, KeyType, NftOp, SetSpec, TableRef, Value, Verdict } from './types.js';

// nft 1.0.6 accepts neither quoted table/chain/set names nor keywords as names, so the
// fallback only handles plain identifiers (capstan's own names are generated that way).
const q = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_.\-]*$/.test(name)) throw new TypeError(`name not usable with nft -f: ${name}`);
  return name;
};

function value(type: KeyType | 'nfproto', v: Value): string {
  if (type === 'mark' || type === 'integer') return `0x${Number(v).toString(16)}`;
  return String(v);
}

export function renderVerdict(v: Verdict): string {
  return 'chain' in v ? `${v.kind} ${q(v.chain)}` : v.kind;
}

export function renderExpr(e: Expr, family: TableRef['family']): string {
  switch (e.kind) {
    case 'match': {
      const type = FIELD_TYPE[e.field];
      const op = e.op === '!=' ? '!= ' : '';
      if (e.mask !== undefined) return `${e.field} & 0x${e.mask.toString(16)} ${e.op ?? '=='} ${value(type, e.value)}`;
      return `${e.field} ${op}${value(type, e.value)}`;
    }
    case 'range': return `${e.field} ${value(FIELD_TYPE[e.field], e.from)}-${value(FIELD_TYPE[e.field], e.to)}`;
    case 'ctState': return `ct state ${e.states.join(',')}`;
    case 'fibDaddrLocal': return 'fib daddr type local';
    case 'ctStatusDnat': return 'ct status dnat';
    case 'lookup': return `${e.fields.join(' . ')} ${e.op === '!=' ? '!= ' : ''}@${q(e.set)}`;
    case 'vmap': return `${e.fields.join(' . ')} vmap @${q(e.map)}`;
    case 'numgenVmap': return `numgen random mod ${e.mod}${e.offset ? ` offset ${e.offset}` : ''} vmap @${q(e.map)}`;
    case 'counter': return 'counter';
    case 'dnatMap': {
      const key = [...e.fields, ...(e.numgen !== undefined ? [`numgen random mod ${e.numgen}`] : [])].join(' . ');
      return `dnat ip to ${key} map @${q(e.map)}`;
    }
    case 'markOr': return `meta mark set meta mark or 0x${e.value.toString(16)}`;
    case 'numgenMatch': return `numgen random mod ${e.mod} == ${e.value}`;
    case 'setUpdate': return `update @${q(e.set)} { ${e.fields.join(' . ')}${e.timeout !== undefined ? ` timeout ${e.timeout}s` : ''} }`;
    case 'accept': case 'drop': case 'return': case 'continue': case 'jump': case 'goto': return renderVerdict(e);
    case 'reject': {
      const w = { 'icmp port-unreachable': 'icmp type port-unreachable', 'icmpv6 port-unreachable': 'icmpv6 type port-unreachable', 'icmpx port-unreachable': 'icmpx type port-unreachable', 'tcp reset': 'tcp reset' }[e.with];
      return `reject with ${w}`;
    }
    case 'dnat': {
      const v6 = e.addr.includes(':');
      const fam = family === 'inet' ? (v6 ? 'ip6 ' : 'ip ') : '';
      const addr = v6 && e.port !== undefined ? `[${e.addr}]` : e.addr;
      return `dnat ${fam}to ${addr}${e.port !== undefined ? `:${e.port}` : ''}`;
    }
    case 'masquerade': return 'masquerade';
    case 'setMark': return `meta mark set 0x${e.value.toString(16)}`;
    case 'raw': throw new TypeError(`cannot render a raw expression: ${e.text}`);
  }
}

// `integer` has no size in nft's type syntax, so a key containing one is declared with
// typeof and an expression of each type (data too: typeof covers both sides).
const TYPEOF: Record<KeyType, string> = {
  ipv4_addr: 'ip daddr', ipv6_addr: 'ip6 daddr', inet_proto: 'meta l4proto', inet_service: 'th dport', mark: 'meta mark', integer: 'numgen random mod 1',
};

function renderSetBody(s: SetSpec): string {
  const useTypeof = s.keyType.includes('integer') || Boolean(s.data?.includes('integer'));
  const key = useTypeof ? `typeof ${s.keyType.map((t) => TYPEOF[t]).join(' . ')}` : `type ${s.keyType.join(' . ')}`;
  const data = s.map ? ' : verdict' : s.data ? ` : ${s.data.map((t) => (useTypeof ? TYPEOF[t] : t)).join(' . ')}` : '';
  const flags = s.flags?.length ? ` flags ${s.flags.join(',')};` : '';
  return `{ ${key}${data};${flags} }`;
}

/** nft's parser takes a ms count only below 2^32: long times go in days or seconds. */
const duration = (ms: number): string => (ms % 86_400_000 === 0 ? `${ms / 86_400_000}d` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

function renderElements(types: KeyType[], elements: Element[], withData: boolean, dataTypes?: KeyType[], times: { timeoutMs?: number; expiresMs?: number } = {}): string {
  return elements
    .map((el) => {
      const plain = el.key.map((k, i) => value(types[i]!, k)).join(' . ');
      if (!withData) return plain;
      const timeout = el.timeoutMs ?? times.timeoutMs, expires = el.expiresMs ?? times.expiresMs;
      const key = `${plain}${timeout ? ` timeout ${duration(timeout)}` : ''}${expires ? ` expires ${duration(expires)}` : ''}`;
      if (el.verdict) return `${key} : ${renderVerdict(el.verdict)}`;
      if (el.data) return `${key} : ${el.data.map((d, i) => value(dataTypes?.[i] ?? 'integer', d)).join(' . ')}`;
      return key;
    })
    .join(', ');
}

export function renderOp(t: TableRef, op: NftOp): string {
  const tbl = `${t.family} ${q(t.name)}`;
  switch (op.op) {
    case 'addTable': return `add table ${tbl}`;
    case 'deleteTable': return `delete table ${tbl}`;
    case 'addChain': {
      const b = op.base;
      const body = b ? ` { type ${b.type} hook ${b.hook} priority ${b.priority}; policy ${b.policy ?? 'accept'}; }` : '';
      return `add chain ${tbl} ${q(op.chain)}${body}`;
    }
    case 'deleteChain': return `delete chain ${tbl} ${q(op.chain)}`;
    case 'flushChain': return `flush chain ${tbl} ${q(op.chain)}`;
    case 'addRule': {
      const comment = op.comment ? ` comment ${JSON.stringify(op.comment)}` : '';
      return `add rule ${tbl} ${q(op.chain)} ${op.exprs.map((e) => renderExpr(e, t.family)).join(' ')}${comment}`;
    }
    case 'deleteRule': return `delete rule ${tbl} ${q(op.chain)} handle ${op.handle}`;
    case 'addSet': return `add ${op.set.map || op.set.data ? 'map' : 'set'} ${tbl} ${q(op.set.name)} ${renderSetBody(op.set)}`;
    case 'deleteSet': return `delete ${op.map ? 'map' : 'set'} ${tbl} ${q(op.set)}`;
    case 'flushSet': return `flush ${op.map ? 'map' : 'set'} ${tbl} ${q(op.set)}`;
    case 'addElements':
      return op.elements.length ? `add element ${tbl} ${q(op.set)} { ${renderElements(op.keyType, op.elements, true, op.dataType, op)} }` : '';
    case 'deleteElements':
      return op.elements.length ? `delete element ${tbl} ${q(op.set)} { ${renderElements(op.keyType, op.elements, false)} }` : '';
  }
}

/** The whole transaction as an `nft -f` script; line N+1 is op N. */
export function renderScript(t: TableRef, ops: NftOp[]): string {
  return ops.map((op) => renderOp(t, op)).join('\n') + '\n';
}
