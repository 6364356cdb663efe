// A full sync's read-back in columns (the addon's bulk listing) must diff exactly as the same
// table read back as elements: random desired tables, random drift (elements deleted, added by
// hand, retired, given other data), both forms diffed, the same transaction expected.
import t from 'tap';
import { buildPlans, type ProxyConfig } from '../../src/proxy/model.js';
import { desiredTable } from '../../src/proxy/nft/ruleset.js';
import { diffTablesWith, fromTableState, readElements } from '../../src/proxy/nft/diff.js';
import { FakeNft, NftTable, type Element, type NftOp, type SetState, type TableState } from '../../src/nft/index.js';
import { encodeKey, verdictCode } from '../../src/nft/encoding.js';
import type { ElementColumns } from '../../src/nft/columns.js';
import { mulberry32, testSeeds } from '../util/seeded.js';

const cfg: ProxyConfig = { nodeName: 'node-a', clusterCIDR: '10.244.0.0/16' };
const svc = (name: string, ip: string) => ({ metadata: { namespace: 'default', name }, spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', port: 80, protocol: 'TCP' as const }] } });
const slice = (svcName: string, eps: { ip: string; node: string }[]) => ({
  metadata: { namespace: 'default', name: `${svcName}-abc`, labels: { 'kubernetes.io/service-name': svcName } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: { ready: true, serving: true, terminating: false }, nodeName: e.node })),
});

/** What the addon's column listing would return for these elements. */
function toColumns(s: SetState): ElementColumns {
  const keys: number[] = [], data: number[] = [];
  const verdicts: number[] = [], chains: string[] = [];
  for (const el of s.elements) {
    keys.push(...encodeKey(s.keyType, el.key));
    if (s.data) data.push(...encodeKey(s.data, el.data!));
    if (s.map === 'verdict') { const v = verdictCode(el.verdict!); verdicts.push(v.verdict); chains.push(v.chain ?? ''); }
  }
  return {
    count: s.elements.length, keys: Uint8Array.from(keys),
    ...(s.data ? { data: Uint8Array.from(data) } : {}),
    ...(s.map === 'verdict' ? { verdicts: Int32Array.from(verdicts), chains } : {}),
    timeouts: Float64Array.from(s.elements.map((e) => e.timeoutMs ?? -1)),
    expires: Float64Array.from(s.elements.map((e) => e.expiresMs ?? -1)),
  };
}

const columnsOf = (st: TableState): TableState => ({ ...st, sets: st.sets.map((s) => ({ ...s, elements: [], columns: toColumns(s) })) });
/** Ops with their elements in a stable order (the two forms list the same elements). */
const normal = (ops: NftOp[]) => ops.map((op) => ('elements' in op ? { ...op, elements: [...op.elements].sort((a, b) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key))) } : op));

for (const seed of testSeeds([1, 2, 3, 4])) {
  t.test(`seed ${seed}: columns and elements diff the same`, async (t) => {
    const rnd = mulberry32(seed);
    const n = 5 + Math.floor(rnd() * 20);
    const services = Array.from({ length: n }, (_, i) => svc(`s${i}`, `10.96.0.${10 + i}`));
    const slices = services.map((_, i) => slice(`s${i}`, Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, k) => ({ ip: `10.244.${i}.${k + 2}`, node: rnd() < 0.3 ? 'node-a' : 'node-b' }))));
    const plans = buildPlans(services, slices, cfg);
    const driver = new FakeNft();
    const table = new NftTable(driver, { family: 'ip', name: 'capstan-proxy' });
    await table.apply(diffTablesWith(undefined, desiredTable(plans, cfg)).ops);
    // Drift, by hand: per element, sometimes deleted, retired or given other data; foreign ones added.
    const listed = await table.list();
    const drift: NftOp[] = [];
    for (const s of listed.sets) {
      if (s.flags?.includes('dynamic')) continue;
      const del: Element[] = [], retire: Element[] = [];
      for (const el of s.elements) {
        const r = rnd();
        if (r < 0.1) del.push({ key: el.key });
        else if (r < 0.2 && s.flags?.includes('timeout')) retire.push({ ...el, expiresMs: 50 });
      }
      const base = { set: s.name, keyType: s.keyType, ...(s.data ? { dataType: s.data } : {}) };
      if (del.length) drift.push({ op: 'deleteElements', ...base, elements: del });
      if (retire.length) drift.push({ op: 'addElements', ...base, elements: retire });
      if (s.data && s.elements.length && rnd() < 0.5) {
        const victim = s.elements.find((e) => !del.some((d) => d.key.join() === e.key.join()) && !retire.some((d) => d.key.join() === e.key.join()));
        if (victim) drift.push({ op: 'deleteElements', ...base, elements: [{ key: victim.key }] }, { op: 'addElements', ...base, elements: [{ ...victim, data: ['10.250.0.9', 9999] }] });
      }
    }
    drift.push({ op: 'addElements', set: 'cluster-ips', keyType: ['ipv4_addr'], elements: [{ key: ['10.96.9.9'], timeoutMs: 3650 * 86_400_000 }] });
    await table.apply(drift);
    const actual = await table.list();
    const desired = desiredTable(plans, cfg);
    const byElements = diffTablesWith(fromTableState(actual), desired);
    const byColumns = diffTablesWith(fromTableState(columnsOf(actual)), desired);
    t.ok(byElements.ops.length > 1, 'the drift needs repairs');
    t.same(normal(byColumns.ops), normal(byElements.ops), 'the same transaction');
    // Applying it leaves nothing to do, whichever form reads the table back.
    await table.apply(byColumns.ops);
    t.same(diffTablesWith(fromTableState(columnsOf(await table.list())), desired).ops, [], 'repaired');
    // A restart reads the elements by id out of the columns.
    const cols = fromTableState(columnsOf(actual));
    for (const s of actual.sets) t.same([...readElements(cols.sets.get(s.name)!).keys()].sort(), [...fromTableState(actual).sets.get(s.name)!.elements.keys()].sort(), `${s.name}: same ids`);
  });
}
