// The in-memory nftables driver keeps what it was given as its own copy, finds elements by
// the set's key type (not the op's), and chains by name in creation order, as the kernel.
import t from 'tap';
import { FakeNft, type Element, type NftOp, type TableRef } from '../../src/nft/index.js';

const table: TableRef = { family: 'ip', name: 'capstan-fake' };
const setup: NftOp[] = [
  { op: 'addTable' },
  { op: 'addChain', chain: 'one' }, { op: 'addChain', chain: 'two' },
  { op: 'addSet', set: { name: 'vm', keyType: ['ipv4_addr', 'inet_service'], map: 'verdict' } },
  { op: 'addSet', set: { name: 'dm', keyType: ['ipv4_addr'], data: ['ipv4_addr'], flags: ['timeout'] } },
];

t.test('added elements are copies: changing the caller\'s objects afterwards changes nothing', async (t) => {
  const nft = new FakeNft();
  await nft.apply(null, table, setup);
  const vmEl: Element = { key: ['10.0.0.1', 80], verdict: { kind: 'jump', chain: 'one' } };
  const dmEl: Element = { key: ['10.0.0.2'], data: ['10.244.0.2'], timeoutMs: 60_000 };
  await nft.apply(null, table, [
    { op: 'addElements', set: 'vm', keyType: ['ipv4_addr', 'inet_service'], elements: [vmEl] },
    { op: 'addElements', set: 'dm', keyType: ['ipv4_addr'], dataType: ['ipv4_addr'], elements: [dmEl] },
  ]);
  vmEl.key[1] = 81;
  (vmEl.verdict as { chain: string }).chain = 'two';
  dmEl.data![0] = '10.244.0.3';
  const listed = await nft.list(null, table);
  const els = (name: string) => listed.sets.find((s) => s.name === name)!.elements;
  t.same(els('vm'), [{ key: ['10.0.0.1', 80], verdict: { kind: 'jump', chain: 'one' } }]);
  t.same(els('dm').map(({ expiresMs: _, ...e }) => e), [{ key: ['10.0.0.2'], data: ['10.244.0.2'], timeoutMs: 60_000 }]);
  // and what list() returns is a copy too
  els('vm')[0]!.key[0] = '10.9.9.9';
  t.same((await nft.list(null, table)).sets.find((s) => s.name === 'vm')!.elements[0]!.key, ['10.0.0.1', 80]);
  // a re-add of the same element with another verdict is EEXIST, as in the kernel
  await t.rejects(nft.apply(null, table, [{ op: 'addElements', set: 'vm', keyType: ['ipv4_addr', 'inet_service'], elements: [{ key: ['10.0.0.1', 80], verdict: { kind: 'jump', chain: 'two' } }] }]),
    { code: 'EEXIST' });
});

t.test('elements are found by the set\'s key type, whatever the op says', async (t) => {
  const nft = new FakeNft();
  await nft.apply(null, table, [...setup, { op: 'addSet', set: { name: 'ports', keyType: ['inet_service'] } }]);
  // Added under an op that calls the key an integer (4 bytes), it is still the set's port.
  await nft.apply(null, table, [{ op: 'addElements', set: 'ports', keyType: ['integer'], elements: [{ key: [80] }] }]);
  await nft.apply(null, table, [{ op: 'deleteElements', set: 'ports', keyType: ['inet_service'], elements: [{ key: [80] }] }]);
  t.same((await nft.list(null, table)).sets.find((s) => s.name === 'ports')!.elements, []);
});

t.test('chains: looked up by name, listed in creation order, busy while a verdict points at them', async (t) => {
  const nft = new FakeNft();
  await nft.apply(null, table, setup);
  await nft.apply(null, table, [{ op: 'deleteChain', chain: 'one' }, { op: 'addChain', chain: 'one' }, { op: 'addChain', chain: 'two' }]);
  t.same((await nft.list(null, table)).chains.map((c) => c.name), ['two', 'one']);
  await t.rejects(nft.apply(null, table, [{ op: 'addElements', set: 'vm', keyType: ['ipv4_addr', 'inet_service'], elements: [{ key: ['10.0.0.1', 80], verdict: { kind: 'jump', chain: 'three' } }] }]),
    { code: 'ENOENT', index: 0 });
  await nft.apply(null, table, [{ op: 'addElements', set: 'vm', keyType: ['ipv4_addr', 'inet_service'], elements: [{ key: ['10.0.0.1', 80], verdict: { kind: 'jump', chain: 'two' } }] }]);
  await t.rejects(nft.apply(null, table, [{ op: 'deleteChain', chain: 'two' }]), { code: 'EBUSY' });
  const before = await nft.list(null, table);
  // a failed transaction changes nothing, also chains it added before failing
  await t.rejects(nft.apply(null, table, [{ op: 'addChain', chain: 'three' }, { op: 'deleteChain', chain: 'four' }]));
  t.same(await nft.list(null, table), before);
});
