// The addon's column listing reads back the same elements as its object listing: keys,
// verdicts with chains, data, timeouts and expiry, for the set shapes the proxy uses.
import t from 'tap';
import { ColumnReader, createNftDriver, NftTable, type Element, type KeyType } from '../../src/nft/index.js';
import { isRoot, newNamespace } from './fixtures/netns.js';

const LONG = 3650 * 86_400_000;
const EP_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'];
const EP_DATA: KeyType[] = ['ipv4_addr', 'inet_service'];
const SVC_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];

t.test('columns list what elements list', { skip: !isRoot && 'needs root' }, async (t) => {
  const ns = await newNamespace(t, 'columns');
  const driver = createNftDriver('addon');
  const table = new NftTable(driver, { family: 'ip', name: 'capstan-columns' }, ns.path);
  const eps: Element[] = Array.from({ length: 700 }, (_, i) => ({ key: [`10.96.${i >> 8}.${i & 255}`, i % 2 ? 'udp' : 'tcp', 80 + (i % 3), i % 5], data: [`10.244.${i >> 8}.${i & 255}`, 8080] }));
  await table.apply([
    { op: 'addTable' },
    { op: 'addChain', chain: 'lb-1' }, { op: 'addChain', chain: 'lb-2' },
    { op: 'addSet', set: { name: 'eps', keyType: EP_KEY, data: EP_DATA, flags: ['timeout'] } },
    { op: 'addSet', set: { name: 'verdicts', keyType: SVC_KEY, map: 'verdict', flags: ['timeout'] } },
    { op: 'addSet', set: { name: 'ips', keyType: ['ipv4_addr'] } },
    { op: 'addElements', set: 'eps', keyType: EP_KEY, dataType: EP_DATA, elements: eps, timeoutMs: LONG, expiresMs: LONG },
    { op: 'addElements', set: 'verdicts', keyType: SVC_KEY, elements: [
      { key: ['10.96.0.1', 'tcp', 80], verdict: { kind: 'goto', chain: 'lb-1' } },
      { key: ['10.96.0.2', 'tcp', 80], verdict: { kind: 'goto', chain: 'lb-2' }, expiresMs: 60_000 },
      { key: ['10.96.0.3', 'udp', 53], verdict: { kind: 'drop' } }], timeoutMs: LONG },
    { op: 'addElements', set: 'ips', keyType: ['ipv4_addr'], elements: [{ key: ['10.96.0.1'] }, { key: ['10.96.0.2'] }] },
  ]);
  const byObjects = await table.list();
  const byColumns = await driver.listColumns!(ns.path, table.table);
  t.same(byColumns.chains, byObjects.chains, 'chains as list() has them');
  t.same(byColumns.rules, byObjects.rules, 'rules as list() has them');
  for (const s of byObjects.sets) {
    const c = byColumns.sets.find((x) => x.name === s.name)!;
    t.same(c.elements, [], `${s.name}: no element objects`);
    t.equal(c.columns?.count, s.elements.length, `${s.name}: every element`);
    const r = new ColumnReader(c, c.columns!);
    const strip = (e: Element) => ({ ...e, expiresMs: e.expiresMs === undefined ? undefined : Math.round(e.expiresMs / 600_000) });
    const got = Array.from({ length: r.count }, (_, i) => strip(r.element(i)));
    t.same(got, s.elements.map(strip), `${s.name}: the same elements, in the same order`);
    for (let i = 0; i < r.count; i++) if (r.keyText(i) !== s.elements[i]!.key.join('|')) t.fail(`${s.name}: key text ${r.keyText(i)}`);
  }
});
