// The vocabulary the service proxy added (data maps, dnat through a numgen-keyed map, mark
// or, numgen match, set update with timeout, dynamic sets): written through one driver,
// read back through each, it comes back as written — so the proxy can diff read-back
// against desired state with either driver.
import t, { type Test } from 'tap';
import { createNftDriver, NftTable, type Expr, type NftOp, type TableState } from '../../src/nft/index.js';
import { isRoot, newNamespace } from './fixtures/netns.js';

const RULES: Record<string, Expr[][]> = {
  lb: [
    [{ kind: 'dnatMap', fields: ['ip daddr', 'meta l4proto', 'th dport'], numgen: 3, map: 'eps' }],
    [{ kind: 'dnatMap', fields: ['meta l4proto', 'th dport'], numgen: 2, map: 'npeps' }],
  ],
  aff: [
    [{ kind: 'lookup', fields: ['ip saddr'], set: 'aff1' }, { kind: 'goto', chain: 'sep' }],
    [{ kind: 'numgenMatch', mod: 2, value: 0 }, { kind: 'goto', chain: 'sep' }],
    [{ kind: 'goto', chain: 'sep' }],
  ],
  sep: [
    [{ kind: 'setUpdate', fields: ['ip saddr'], set: 'aff1', timeout: 600 }],
    [{ kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'dnat', addr: '10.1.0.1', port: 80 }],
  ],
  post: [
    [{ kind: 'markOr', value: 0x4000 }],
    [{ kind: 'match', field: 'meta mark', value: 0x4000, mask: 0x4000 }, { kind: 'masquerade' }],
    [{ kind: 'ctStatusDnat' }, { kind: 'lookup', fields: ['ip saddr', 'ip daddr'], set: 'hairpin' }, { kind: 'masquerade' }],
  ],
};

const EPS = [
  { key: ['10.96.0.1', 'tcp', 80, 0], data: ['10.1.0.1', 8080] },
  { key: ['10.96.0.1', 'tcp', 80, 1], data: ['10.1.0.2', 8080] },
];

function ops(): NftOp[] {
  return [
    { op: 'addTable' },
    { op: 'addSet', set: { name: 'eps', keyType: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], data: ['ipv4_addr', 'inet_service'] } },
    { op: 'addSet', set: { name: 'npeps', keyType: ['inet_proto', 'inet_service', 'integer'], data: ['ipv4_addr', 'inet_service'] } },
    { op: 'addSet', set: { name: 'aff1', keyType: ['ipv4_addr'], flags: ['dynamic', 'timeout'] } },
    { op: 'addSet', set: { name: 'hairpin', keyType: ['ipv4_addr', 'ipv4_addr'] } },
    { op: 'addChain', chain: 'pre', base: { type: 'nat', hook: 'prerouting', priority: -100 } },
    { op: 'addChain', chain: 'post', base: { type: 'nat', hook: 'postrouting', priority: 100 } },
    { op: 'addChain', chain: 'lb' }, { op: 'addChain', chain: 'aff' }, { op: 'addChain', chain: 'sep' },
    { op: 'addRule', chain: 'pre', exprs: [{ kind: 'match', field: 'ip daddr', value: '10.96.0.1' }, { kind: 'jump', chain: 'lb' }] },
    { op: 'addRule', chain: 'pre', exprs: [{ kind: 'match', field: 'ip daddr', value: '10.96.0.2' }, { kind: 'jump', chain: 'aff' }] },
    ...Object.entries(RULES).flatMap(([chain, rules]) => rules.map((exprs): NftOp => ({ op: 'addRule', chain, exprs }))),
    { op: 'addElements', set: 'eps', keyType: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], dataType: ['ipv4_addr', 'inet_service'], elements: EPS },
    { op: 'addElements', set: 'hairpin', keyType: ['ipv4_addr', 'ipv4_addr'], elements: [{ key: ['10.1.0.1', '10.1.0.1'] }] },
  ];
}

function check(t: Test, s: TableState, label: string) {
  for (const [chain, rules] of Object.entries(RULES)) {
    t.same(s.rules.filter((r) => r.chain === chain).map((r) => r.exprs), rules, `${label}: chain ${chain} reads back as written`);
  }
  const eps = s.sets.find((x) => x.name === 'eps');
  t.same(eps?.data, ['ipv4_addr', 'inet_service'], `${label}: data map type`);
  t.same([...(eps?.elements ?? [])].sort((a, b) => Number(a.key[3]) - Number(b.key[3])), EPS, `${label}: data map elements`);
  t.ok(s.sets.find((x) => x.name === 'aff1')?.flags?.includes('timeout'), `${label}: timeout flag`);
}

t.test('fake driver keeps the new vocabulary', async (t) => {
  const table = new NftTable(createNftDriver('fake'), { family: 'ip', name: 'capstan-vocab' });
  await table.apply(ops());
  check(t, await table.list(), 'fake');
  await t.rejects(table.apply([{ op: 'addElements', set: 'eps', keyType: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], dataType: ['ipv4_addr', 'inet_service'], elements: [{ key: EPS[0]!.key, data: ['10.9.9.9', 1] }] }]), { code: 'EEXIST' });
});

for (const writer of ['addon', 'nft'] as const) {
  t.test(`written with ${writer}, read back with both`, { skip: !isRoot && 'needs root' }, async (t) => {
    const ns = await newNamespace(t, 'vocab');
    const ref = { family: 'ip' as const, name: 'capstan-vocab' };
    await new NftTable(createNftDriver(writer), ref, ns.path).apply(ops());
    for (const reader of ['addon', 'nft'] as const) check(t, await new NftTable(createNftDriver(reader), ref, ns.path).list(), `${writer}→${reader}`);
  });
}
