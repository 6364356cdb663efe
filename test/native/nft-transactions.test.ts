// nftables transactions over each driver: read-back in the same vocabulary, atomicity (a
// bad operation leaves no trace), errors with errno and the failing operation's index.
import t from 'tap';
import { createNftDriver, NftError, NftTable, type NftDriver, type NftOp } from '../../src/nft/index.js';
import { isRoot, newNamespace } from './fixtures/netns.js';
import { VOCABULARY_RULES, normalize, proxyTableOps } from './fixtures/nft-tables.js';

const TABLE = { family: 'ip' as const, name: 'capstan-test' };

async function driverFor(t: import('tap').Test, impl: 'addon' | 'nft' | 'fake'): Promise<{ driver: NftDriver; netns: string | null }> {
  if (impl === 'fake') return { driver: createNftDriver('fake'), netns: '/run/netns/fake' };
  const ns = await newNamespace(t, 'nft');
  return { driver: createNftDriver(impl), netns: ns.path };
}

const base = (): NftOp[] => [
  ...proxyTableOps('10.96.0.10', 80, [{ ip: '10.0.4.2', port: 8080 }, { ip: '10.0.4.3', port: 8080 }]),
  { op: 'addElements', set: 'local-nets', keyType: ['ipv4_addr'], elements: [{ key: ['10.0.0.1'] }] },
  ...VOCABULARY_RULES.map((exprs): NftOp => ({ op: 'addRule', chain: 'output', exprs })),
];

for (const impl of ['addon', 'nft', 'fake'] as const) {
  t.test(`nft read-back round trip with ${impl}`, { skip: impl !== 'fake' && !isRoot && 'needs root' }, async (t) => {
    const { driver, netns } = await driverFor(t, impl);
    const table = new NftTable(driver, TABLE, netns);
    await table.apply(base());
    const state = normalize(await table.list());
    const rulesOf = (chain: string) => state.rules.find((r) => r.chain === chain)!.rules.map((r) => r.exprs);
    t.same(rulesOf('output'), [[{ kind: 'jump', chain: 'services' }], ...VOCABULARY_RULES], 'every vocabulary form reads back as written');
    t.same(state.rules.find((r) => r.chain === 'services')!.rules, [{ exprs: [{ kind: 'vmap', fields: ['ip daddr', 'meta l4proto', 'th dport'], map: 'service-ips' }], comment: 'dispatch' }], 'dispatch rule with comment');
    t.same(state.chains.find((c) => c.name === 'prerouting'), { name: 'prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'accept' } }, 'base chain');
    t.same(state.sets.find((s) => s.name === 'service-ips'), {
      name: 'service-ips', keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict',
      elements: [{ key: ['10.96.0.10', 'tcp', 80], verdict: { kind: 'goto', chain: 'svc-web' } }],
    }, 'concatenated verdict map with its element');
    t.same(state.sets.find((s) => s.name === 'svc-web-eps')?.elements.map((e) => e.key), [[0], [1]], 'numgen-keyed map');

    // A delta: swap one endpoint's rule and move the service port, in one transaction.
    await table.apply([
      { op: 'flushChain', chain: 'ep-web-1' },
      { op: 'addRule', chain: 'ep-web-1', exprs: [{ kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'dnat', addr: '10.0.4.9', port: 9090 }] },
      { op: 'deleteElements', set: 'service-ips', keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], elements: [{ key: ['10.96.0.10', 'tcp', 80] }] },
      { op: 'addElements', set: 'service-ips', keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], elements: [{ key: ['10.96.0.10', 'tcp', 81], verdict: { kind: 'goto', chain: 'svc-web' } }] },
    ]);
    const after = normalize(await table.list());
    t.same(after.rules.find((r) => r.chain === 'ep-web-1')!.rules[0]!.exprs[1], { kind: 'dnat', addr: '10.0.4.9', port: 9090 }, 'endpoint rule replaced');
    t.same(after.sets.find((s) => s.name === 'service-ips')!.elements.map((e) => e.key), [['10.96.0.10', 'tcp', 81]], 'element moved');
  });

  t.test(`nft batch with one bad operation leaves no trace with ${impl}`, { skip: impl !== 'fake' && !isRoot && 'needs root' }, async (t) => {
    const { driver, netns } = await driverFor(t, impl);
    const table = new NftTable(driver, TABLE, netns);
    // Fresh table: the failure must not even leave the table behind.
    const err = await table.apply([
      { op: 'addTable' },
      { op: 'addChain', chain: 'a' },
      { op: 'addRule', chain: 'no-such-chain', exprs: [{ kind: 'accept' }] },
      { op: 'addChain', chain: 'b' },
    ]).catch((e) => e);
    t.ok(err instanceof NftError, 'NftError');
    t.match(err, { code: 'ENOENT', errno: 2, index: 2 }, 'errno, code and the failing operation');
    t.equal(await table.tryList(), undefined, 'no table was created');

    await table.apply(base());
    const before = normalize(await table.list());
    const err2 = await table.apply([
      { op: 'addChain', chain: 'new-one' },
      { op: 'flushChain', chain: 'svc-web' },
      { op: 'addElements', set: 'service-ips', keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], elements: [{ key: ['10.96.0.11', 'udp', 53], verdict: { kind: 'jump', chain: 'no-such-chain' } }] },
    ]).catch((e) => e);
    t.match(err2, { code: 'ENOENT', index: 2 }, 'verdict to a missing chain fails at op 2');
    t.same(normalize(await table.list()), before, 'table unchanged after the failed transaction');

    const busy = await table.apply([{ op: 'deleteChain', chain: 'svc-web' }]).catch((e) => e);
    t.match(busy, { code: 'EBUSY', errno: 16, index: 0 }, 'deleting a referenced chain: EBUSY');
    await table.remove();
    t.equal(await table.tryList(), undefined, 'remove() deletes the table');
    await table.remove();
    t.pass('remove() of an absent table succeeds');
  });
}

t.test('nft addon: malformed input is a TypeError', { skip: !isRoot && 'needs root' }, async (t) => {
  const driver = createNftDriver('addon');
  const cases: NftOp[][] = [
    [{ op: 'addRule', chain: 'c', exprs: [{ kind: 'dnat', addr: 'not-an-ip' }] }],
    [{ op: 'addElements', set: 's', keyType: ['ipv4_addr', 'inet_service'], elements: [{ key: ['10.0.0.1'] }] }],
    [{ op: 'addRule', chain: 'c', exprs: [{ kind: 'match', field: 'th dport', value: 70000 }] }],
    [{ op: 'addChain', chain: '' }],
  ];
  for (const ops of cases) await t.rejects(driver.apply(null, TABLE, ops), TypeError, JSON.stringify(ops));
  const native = (await import('../../src/nft/native.js')).nativeNft();
  await t.rejects(async () => native.nftApply(null, [{ op: 'addRule', family: 2, table: 't', chain: 'c', exprs: [{ type: 'payload', bogus: 1 }] }] as never), TypeError, 'unknown attribute');
  await t.rejects(async () => native.nftApply(null, [{ op: 'addRule', family: 2, table: 't', chain: 'c', exprs: [{ type: 'cmp', data: 'str' }] }] as never), TypeError, 'bytes must be bytes');
  await t.rejects(async () => native.nftList(null, 'x' as never, 't'), TypeError, 'family must be a number');
  // The binary form is decoded off the JS thread; malformed bytes still come back as TypeErrors.
  for (const bytes of [[1, 0, 0, 0], [1, 0, 0, 0, 42], [1, 0, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0x61], [0, 0, 0, 0, 9]]) {
    await t.rejects(native.nftApply(null, Uint8Array.from(bytes)), TypeError, `malformed wire ${bytes}`);
  }
  await t.rejects(async () => native.nftApply(null, [{ op: 'addTable', family: 2, table: 7 }] as never), TypeError, 'table must be a string');
  await t.rejects(async () => native.nftApply(null, [{ op: 'addElements', family: 2, table: 't', set: 's', elements: [{ key: new Uint8Array(65) }] }] as never), TypeError, 'key too long');
});
