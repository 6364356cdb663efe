// Which nftables changes make the kernel re-validate the whole table at commit? A scratch
// table shaped like `ip capstan-policy` (a base chain, a verdict map keyed by pod address
// leading to N pod chains of 11 rules) and one transaction of each kind, timed through the
// addon. The policy engine's set-based shape (src/network/policy/DESIGN notes) rests on
// element changes staying cheap at any N while any added rule or jump does not.
//   node dist/bench/nft-validation.js [chains=100,1000,10000] [repeats=9]
import { createNftDriver, NftTable, type Expr, type NftOp } from '../src/nft/index.js';
import { addNamespace, removeNamespace } from './lib/netns.js';
import { summarize, timeMs } from './lib/stats.js';

const SIZES = (process.argv[2] ?? '100,1000,10000').split(',').map(Number);
const REPEATS = Number(process.argv[3] ?? 9);
const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const TUPLE = ['ipv4_addr', 'inet_proto', 'inet_service'] as const;

function chainRules(i: number): Expr[][] {
  const rules: Expr[][] = [[{ kind: 'lookup', fields: ['ip saddr', 'meta l4proto', 'th dport'], set: `t-${i}` }, { kind: 'counter' }, { kind: 'accept' }]];
  for (let k = 0; k < 9; k++) rules.push([{ kind: 'lookup', fields: ['ip saddr'], set: `p-${i}` }, { kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'match', field: 'th dport', value: 9000 + k }, { kind: 'counter' }, { kind: 'accept' }]);
  rules.push([{ kind: 'counter' }, { kind: 'drop' }]);
  return rules;
}

async function build(table: NftTable, n: number): Promise<void> {
  const ops: NftOp[] = [{ op: 'addTable' }, { op: 'addChain', chain: 'fwd', base: { type: 'filter', hook: 'forward', priority: 0, policy: 'accept' } },
    { op: 'addSet', set: { name: 'pods', keyType: ['ipv4_addr'], map: 'verdict', flags: ['timeout'] } },
    { op: 'addSet', set: { name: 'accepts', keyType: [...TUPLE], map: 'verdict', flags: ['timeout'] } },
    { op: 'addRule', chain: 'fwd', exprs: [{ kind: 'ctState', states: ['established', 'related'] }, { kind: 'accept' }] },
    { op: 'addRule', chain: 'fwd', exprs: [{ kind: 'vmap', fields: ['ip daddr'], map: 'pods' }] }];
  for (let i = 0; i < n; i++) {
    ops.push({ op: 'addSet', set: { name: `t-${i}`, keyType: [...TUPLE], flags: ['timeout'] } }, { op: 'addSet', set: { name: `p-${i}`, keyType: ['ipv4_addr'] } },
      { op: 'addElements', set: `p-${i}`, keyType: ['ipv4_addr'], elements: [{ key: [ip(i + 1_000_000)] }] }, { op: 'addChain', chain: `c-${i}` });
    for (const exprs of chainRules(i)) ops.push({ op: 'addRule', chain: `c-${i}`, exprs });
    ops.push({ op: 'addElements', set: 'pods', keyType: ['ipv4_addr'], elements: [{ key: [ip(i)], verdict: { kind: 'goto', chain: `c-${i}` }, timeoutMs: 3_600_000 }] });
  }
  await table.apply(ops);
}

type Kind = [string, (k: number, n: number) => NftOp[]];
const KINDS: Kind[] = [
  ['element (concatenated key) add', (k) => [{ op: 'addElements', set: `t-${k}`, keyType: [...TUPLE], elements: [{ key: [ip(2_000_000 + k), 'tcp', 80], timeoutMs: 3_600_000 }] }]],
  ['element retired (re-added, expires 1 ms)', (k) => [{ op: 'addElements', set: `t-${k}`, keyType: [...TUPLE], elements: [{ key: [ip(2_000_000 + k), 'tcp', 80], timeoutMs: 3_600_000, expiresMs: 1 }] }]],
  ['element with verdict accept (map)', (k) => [{ op: 'addElements', set: 'accepts', keyType: [...TUPLE], elements: [{ key: [ip(3_000_000 + k), 'tcp', 80], verdict: { kind: 'accept' }, timeoutMs: 3_600_000 }] }]],
  ['element with verdict goto (map)', (k, n) => [{ op: 'addElements', set: 'pods', keyType: ['ipv4_addr'], elements: [{ key: [ip(4_000_000 + k)], verdict: { kind: 'goto', chain: `c-${(k * 7) % n}` }, timeoutMs: 3_600_000 }] }]],
  ['rule without verdict (counter)', (k, n) => [{ op: 'addRule', chain: `c-${k % n}`, exprs: [{ kind: 'counter' }] }]],
  ['rule without verdict (lookup, counter)', (k, n) => [{ op: 'addRule', chain: `c-${k % n}`, exprs: [{ kind: 'lookup', fields: ['ip saddr'], set: `p-${k % n}` }, { kind: 'counter' }] }]],
  ['rule with verdict accept', (k, n) => [{ op: 'addRule', chain: `c-${k % n}`, exprs: [{ kind: 'match', field: 'th dport', value: 7000 + k }, { kind: 'accept' }] }]],
  ['element delete (verdict map)', (k) => [{ op: 'deleteElements', set: 'accepts', keyType: [...TUPLE], elements: [{ key: [ip(3_000_000 + k), 'tcp', 80] }] }]],
];

for (const n of SIZES) {
  const ns = await addNamespace();
  try {
    const table = new NftTable(createNftDriver('addon'), { family: 'ip', name: 'capstan-validation' }, ns.path);
    const load = await timeMs(() => build(table, n));
    const cells: string[] = [];
    for (const [name, ops] of KINDS) {
      const times: number[] = [];
      for (let r = 0; r < REPEATS; r++) times.push(await timeMs(() => table.apply(ops(r, n)).then(() => undefined)));
      cells.push(`${name}: ${summarize(times).p50.toFixed(2)} ms`);
    }
    console.log(`${n} chains (built in ${load.toFixed(0)} ms)\n  ${cells.join('\n  ')}`);
  } finally {
    await removeNamespace(ns);
  }
}
