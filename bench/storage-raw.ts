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

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '1' },
    etcd: { type: 'string' },
    'start-etcd': { type: 'string' },
  },
});
const count = Number(values.count);
const concurrency = Number(values.concurrency);
const print = (r: BenchResult) => console.log(formatResult(r));

const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
let cluster: EtcdCluster | undefined;
try {
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    print(await benchRawSqlite({ count, synchronous }));
    const store = await openStore(`sqlite://${join(dir, `store-${synchronous}.db`)}`, { synchronous });
    print(await benchStoreCreates(store, `sqlite store create (${synchronous})`, { count, concurrency }));
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
    print(await benchRawEtcd({ count, concurrency, endpoints }));
    const store = await openStore(url, { keyPrefix: `/capstan-bench-store-${process.pid}` });
    print(await benchStoreCreates(store, 'etcd store create', { count, concurrency }));
    await store.close();
  }
} finally {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}
