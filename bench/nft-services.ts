// nftables at service-proxy scale, addon vs `nft -f`, side by side in one run: full load of
// N services × 10 endpoints, then a one-endpoint delta at that size, then reading the table
// back (time and memory). Runs in scratch namespaces.
//   node dist/bench/nft-services.js [sizes (default per shape)] [nftTimeoutSeconds=300] [shapes=map-per-service,shared-map]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createNftDriver, NftCommand, NftError, NftTable, renderScript } from '../src/nft/index.js';
import { addNamespace, removeNamespace } from './lib/netns.js';
import { fmtBytes, fmtMs, fmtRatio, summarize, timeMs } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { root } from './lib/prereq.js';
import { endpointDelta, fullLoad, type Shape } from './nft-service-shape.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// By default the shared-map variant stops at 1,000: its validation cost is quadratic (see DESIGN).
let SIZES: number[] | undefined;
const DEFAULT_SIZES: Record<Shape, number[]> = { 'map-per-service': [100, 1000, 10000], 'shared-map': [100, 1000] };
let NFT_TIMEOUT_S = 300;
let SHAPES: Shape[] = ['map-per-service', 'shared-map'];
const ENDPOINTS = 10;
const DELTAS = 20;
const TABLE = { family: 'ip' as const, name: 'capstan-bench' };

interface Row {
  shape: Shape;
  services: number;
  messages: number;
  scriptBytes: number;
  loadAddon: number;
  loadNft?: number;
  nftNote?: string;
  deltaAddon?: number;
  deltaNft?: number;
  listAddon: number;
  listAddonHeap: number;
  listNft?: number;
  rules: number;
}

async function measure(shape: Shape, services: number): Promise<Row> {
  const ops = fullLoad(services, ENDPOINTS, shape);
  const script = renderScript(TABLE, ops);
  const addonNs = await addNamespace();
  const nftNs = await addNamespace();
  try {
    const addon = new NftTable(createNftDriver('addon'), TABLE, addonNs.path);
    const nft = new NftTable(new NftCommand({ timeoutMs: NFT_TIMEOUT_S * 1000 }), TABLE, nftNs.path);
    const row: Row = { shape, services, messages: ops.length, scriptBytes: script.length, loadAddon: 0, listAddon: 0, listAddonHeap: 0, rules: 0 };

    row.loadAddon = await timeMs(() => addon.apply(ops));
    try {
      row.loadNft = await timeMs(() => nft.apply(ops));
    } catch (e) {
      if (!(e instanceof NftError && e.code === 'ETIMEDOUT')) throw e;
      row.nftNote = `unfinished after ${NFT_TIMEOUT_S} s`;
    }

    const deltas = { addon: [] as number[], nft: [] as number[] };
    for (let g = 1; g <= DELTAS; g++) {
      const s = (g * 7919) % services, e = g % ENDPOINTS;
      deltas.addon.push(await timeMs(() => addon.apply(endpointDelta(s, e, g))));
      if (row.loadNft !== undefined) deltas.nft.push(await timeMs(() => nft.apply(endpointDelta(s, e, g))));
    }
    row.deltaAddon = summarize(deltas.addon).p50;
    if (deltas.nft.length) row.deltaNft = summarize(deltas.nft).p50;

    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let rules = 0;
    row.listAddon = await timeMs(async () => { rules = (await addon.list()).rules.length; });
    row.listAddonHeap = process.memoryUsage().heapUsed - heapBefore;
    row.rules = rules;
    if (row.loadNft !== undefined) row.listNft = await timeMs(() => nft.list());
    return row;
  } finally {
    // Deleting the namespace takes its tables with it.
    await removeNamespace(addonNs);
    await removeNamespace(nftNs);
  }
}

async function main(progress: Progress) {
  const rows: Row[] = [];
  for (const shape of SHAPES) {
    for (const n of SIZES ?? DEFAULT_SIZES[shape]) {
      progress(`${shape}, ${n} services`);
      rows.push(await measure(shape, n));
      console.error(JSON.stringify(rows[rows.length - 1]));
    }
  }
  const opt = (v: number | undefined, note?: string) => (v === undefined ? note ?? 'n/a' : fmtMs(v));
  const ratio = (base: number | undefined, cand: number | undefined) => (base === undefined || cand === undefined ? '—' : fmtRatio(base, cand));
  const body = `Shape: dispatch verdict map \`ip daddr . meta l4proto . th dport\`, per service a chain choosing an endpoint with numgen through a verdict map, and 10 endpoint chains each with \`meta l4proto tcp dnat to addr:port\`; no anonymous sets. Two variants: *map-per-service* (\`numgen random mod 10 vmap @svc-N-eps\`, one named map per service) and *shared-map* (\`numgen random mod 10 offset N*16 vmap @endpoints\`, one map for all services). One transaction per load. Delta = flush one endpoint chain + add its new rule (p50 of ${DELTAS}). Read-back = whole table (chains, rules, maps with elements) decoded to the rule vocabulary; the nft column is \`nft -j list table\` parsed into the same vocabulary.

### Full load

${table(['shape', 'services × 10 eps', 'operations', 'nft script', 'addon', 'nft -f', 'nft/addon'], rows.map((r) => [
    r.shape, r.services, r.messages, fmtBytes(r.scriptBytes), fmtMs(r.loadAddon), opt(r.loadNft, r.nftNote), ratio(r.loadNft, r.loadAddon),
  ]))}

### One endpoint changed, at that size

${table(['shape', 'services', 'addon p50', 'nft -f p50', 'nft/addon'], rows.map((r) => [r.shape, r.services, opt(r.deltaAddon), opt(r.deltaNft), ratio(r.deltaNft, r.deltaAddon)]))}

### Reading the table back

${table(['shape', 'services', 'rules', 'addon list', 'JS heap for the result', 'nft -j list', 'nft/addon'], rows.map((r) => [
    r.shape, r.services, r.rules, fmtMs(r.listAddon), fmtBytes(r.listAddonHeap), opt(r.listNft), ratio(r.listNft, r.listAddon),
  ]))}
`;
  const rec = new Recorder();
  for (const r of rows) {
    const x = { name: 'services', value: r.services };
    for (const [figure, addon, nft] of [['full load', r.loadAddon, r.loadNft], ['one endpoint changed (p50)', r.deltaAddon, r.deltaNft], ['read the table back', r.listAddon, r.listNft]] as const) {
      if (addon === undefined) continue;
      const a = rec.metric({ figure: `${r.shape}: ${figure}`, system: 'capstan addon', unit: 'ms', samples: [addon], x });
      if (nft !== undefined) rec.ratio(a, rec.metric({ figure: `${r.shape}: ${figure}`, system: 'nft -f', baseline: true, unit: 'ms', samples: [nft], x }), 'p50');
    }
  }
  return rec.output(writeReport('nft-services', 'nftables service-proxy load: addon vs nft -f', body));
}

export const suite = defineSuite({
  name: 'nft-services',
  title: 'nftables service-proxy load: addon vs nft -f',
  params: { full: { sizes: [] as number[], nftTimeoutSeconds: NFT_TIMEOUT_S, shapes: SHAPES as string[] }, quick: { sizes: [30, 100], nftTimeoutSeconds: 60, shapes: SHAPES as string[] } },
  requires: [root],
  fromArgv: (argv, full) => ({ sizes: argv[0] ? argv[0].split(',').map(Number) : [], nftTimeoutSeconds: Number(argv[1] ?? full.nftTimeoutSeconds), shapes: argv[2] ? argv[2].split(',') : full.shapes }),
  run: (p, progress) => {
    SIZES = p.sizes.length ? p.sizes : undefined;
    [NFT_TIMEOUT_S, SHAPES] = [p.nftTimeoutSeconds, p.shapes as Shape[]];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
