// Element timeouts, the service proxy's way to retire map elements without a deleting
// transaction (a delete makes the commit wait for an RCU grace period): an element re-added
// with a short `expiresMs` lapses on its own, lookups and listings stop seeing it, and its
// key can then take other data. The same behaviour through the addon, `nft -f` and the fake.
import t, { type Test } from 'tap';
import { execa } from 'execa';
import { createNftDriver, FakeNft, NftTable, type Element, type KeyType, type NftOp } from '../../src/nft/index.js';
import { release } from 'node:os';
import { FakeClock } from '../../src/util/index.js';
import { probeRetireMode } from '../../src/proxy/nft/probe.js';
import { isRoot, newNamespace } from './fixtures/netns.js';

const LONG = 3650 * 86_400_000;
const KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'];
const DATA: KeyType[] = ['ipv4_addr', 'inet_service'];
const add = (elements: Element[]): NftOp => ({ op: 'addElements', set: 'eps', keyType: KEY, dataType: DATA, elements });
const ep = (slot: number, ip: string, extra: Partial<Element> = {}): Element => ({ key: ['10.96.0.1', 'tcp', 80, slot], data: [ip, 8080], timeoutMs: LONG, ...extra });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// `pass(ms)` lets that much time go by: the fake's clock is stepped, the kernel's runs.
async function scenario(t: Test, table: NftTable, pass: (ms: number) => Promise<void>) {
  await table.apply([
    { op: 'addTable' },
    { op: 'addSet', set: { name: 'eps', keyType: KEY, data: DATA, flags: ['timeout'] } },
    add([ep(0, '10.1.0.1'), ep(1, '10.1.0.2')]),
  ]);
  const elements = async () => (await table.list()).sets.find((s) => s.name === 'eps')!.elements;
  const slot = async (n: number) => (await elements()).find((e) => e.key[3] === n);

  t.ok(((await slot(0))?.expiresMs ?? 0) > LONG - 86_400_000, 'a fresh element carries its long timeout');
  await table.apply([add([ep(0, '10.1.0.1', { expiresMs: 300 })])]);
  t.ok(((await slot(0))?.expiresMs ?? LONG) <= 300, 'retired: the element now expires within 300 ms');
  await t.rejects(table.apply([add([ep(0, '10.9.9.9')])]), { code: 'EEXIST' }, 'its key cannot take other data while it lives');
  await pass(450);
  t.equal(await slot(0), undefined, 'lapsed: no longer listed');
  t.same((await slot(1))?.data, ['10.1.0.2', 8080], 'the other element is untouched');
  await table.apply([add([ep(0, '10.9.9.9')])]);
  t.same((await slot(0))?.data, ['10.9.9.9', 8080], 'the lapsed key takes new data without a delete');

  await table.apply([add([ep(1, '10.1.0.2', { expiresMs: 300 })])]);
  await table.apply([add([ep(1, '10.1.0.2', { expiresMs: LONG })])]);
  await pass(450);
  t.ok(((await slot(1))?.expiresMs ?? 0) > LONG - 86_400_000, 're-adding with the same data and a long expiry before it lapses revives it');
}

t.test('fake driver', async (t) => {
  const clock = new FakeClock();
  await scenario(t, new NftTable(new FakeNft(clock), { family: 'ip', name: 'capstan-timeouts' }), async (ms) => clock.step(ms));
});

for (const driver of ['addon', 'nft'] as const) {
  t.test(`kernel through ${driver}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const ns = await newNamespace(t, 'timeouts');
    await scenario(t, new NftTable(createNftDriver(driver), { family: 'ip', name: 'capstan-timeouts' }, ns.path), sleep);
  });
}

t.test('the proxy\'s probe: expiry updates from Linux 6.12, deletes before', { skip: !isRoot && 'needs root' }, async (t) => {
  const ns = await newNamespace(t, 'probe');
  const [major, minor] = release().split('.').map(Number) as [number, number];
  const expected = major > 6 || (major === 6 && minor >= 12) ? 'expiry' : 'delete';
  for (const driver of ['addon', 'nft'] as const) t.equal(await probeRetireMode(createNftDriver(driver), ns.path), expected, `${driver} on ${release()}`);
  t.equal(await probeRetireMode(createNftDriver('fake'), null), 'expiry', 'the fake models a current kernel');
  const left = await execa('nsenter', [`--net=${ns.path}`, 'nft', 'list', 'tables']);
  t.notMatch(left.stdout, 'capstan-proxy-probe', 'the scratch table is gone');
});
