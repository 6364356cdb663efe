// CLI: node dist/bench/storage-raw.js [--count N] [--concurrency C] [--etcd etcd://h:p,...]
//      [--start-etcd 1|3]
// Prints raw SQLite and etcd write rates next to the same writes through capstan's stores.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/storage/index.js';
import { startEtcd, type EtcdCluster } from '../test/helpers/etcd.js';
import { formatResult, type BenchResult } from './lib/latency.js';
import { benchRawEtcd, benchRawSqlite, benchStoreCreates } from './lib/raw-store.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { command } from './lib/prereq.js';

const options = {
  count: { type: 'string', default: '2000' },
  concurrency: { type: 'string', default: '1' },
  etcd: { type: 'string', default: '' },
  'start-etcd': { type: 'string', default: '' },
} as const;
let values = parseArgs({ args: [], options }).values;
let count = Number(values.count);
let concurrency = Number(values.concurrency);

async function main(progress: Progress) {
const rec = new Recorder();
// Every result is printed (the script's own output) and kept as a metric; the raw SQLite inserts anchor the store's creates.
const anchors = new Map<string, ReturnType<Recorder['metric']>>();
const print = (r: BenchResult, anchor?: string) => {
  console.log(formatResult(r));
  progress(r.name);
  const m = rec.metric({ figure: 'writes of 1 KB values', system: r.name, baseline: r.name.includes('raw'), unit: 'ms', samples: r.samples, rate: r.opsPerSec });
  if (m.baseline) anchors.set(r.name, m);
  const a = anchor && anchors.get(anchor);
  if (a) rec.ratio(m, a, 'rate');
};
const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
let cluster: EtcdCluster | undefined;
try {
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    const raw = await benchRawSqlite({ count, synchronous });
    print(raw);
    const store = await openStore(`sqlite://${join(dir, `store-${synchronous}.db`)}`, { synchronous });
    print(await benchStoreCreates(store, `sqlite store create (${synchronous})`, { count, concurrency }), raw.name);
    await store.close();
  }
  print(await benchRawSqlite({ count, rowsPerTransaction: 100 }));

  let url = values.etcd;
  if (!url && values['start-etcd']) {
    cluster = await startEtcd({ members: values['start-etcd'] === '3' ? 3 : 1 });
    url = cluster.url;
  }
  if (url) {
    const endpoints = url.replace(/^etcd:\/\//, '').split(',').map((hp) => `http://${hp}`);
    const raw = await benchRawEtcd({ count, concurrency, endpoints });
    print(raw);
    const store = await openStore(url, { keyPrefix: `/capstan-bench-store-${process.pid}` });
    print(await benchStoreCreates(store, 'etcd store create', { count, concurrency }), raw.name);
    await store.close();
  }
} finally {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}
return rec.output();
}

export const suite = defineSuite({
  name: 'storage-raw',
  title: 'Raw SQLite and etcd writes beside capstan stores',
  params: { full: { count: 2000, concurrency: 1, etcd: '', startEtcd: '1' }, quick: { count: 200, concurrency: 1, etcd: '', startEtcd: '' } },
  requires: [(p) => (p.startEtcd ? command('etcd', 'etcd-server')(p) : undefined)],
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { count: Number(v.count), concurrency: Number(v.concurrency), etcd: v.etcd, startEtcd: v['start-etcd'] };
  },
  run: (p, progress) => {
    values = { count: String(p.count), concurrency: String(p.concurrency), etcd: p.etcd, 'start-etcd': p.startEtcd };
    [count, concurrency] = [p.count, p.concurrency];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
