// CustomResourceDefinitions at scale: with 10, 100 and 1,000 CRDs installed in a `capstan
// apiserver` process (SQLite), the time from a new CRD's create to its resource being served
// (first 200 on a list of it) and to its OpenAPI v3 document being published (listed in the
// /openapi/v3 index and carrying the kind's schema), and the server's resident memory per CRD.
// Every CRD is cert-manager's Certificate definition (test/fixtures/crds, 46 KB of YAML) in a
// group of its own, so each has a real-world schema.
// Usage: node dist/bench/crd.js [--counts 10,100,1000] [--probes 5]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { timeOps } from './lib/latency.js';
import { repoRoot, table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';

const options = { counts: { type: 'string', default: '10,100,1000' }, probes: { type: 'string', default: '5' } } as const;
let counts = [10, 100, 1000];
let probes = 5;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface Definition { metadata: { name: string }; spec: { group: string } }
const template = yaml.load(readFileSync(join(repoRoot(), 'test/fixtures/crds/cert-manager.io_certificates.yaml'), 'utf8')) as Definition;
function definition(i: number | string): Definition {
  const d = structuredClone(template);
  const group = `bench${i}.example.com`;
  d.metadata = { name: `certificates.${group}` };
  d.spec.group = group;
  return d;
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function until(check: () => Promise<boolean>, start: number, limitMs = 120_000): Promise<number> {
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(progress: Progress) {
const rec = new Recorder();
try {
  const p = await startAPIServerProcess(t);
  // One connection per request: large POST bodies on kept-alive connections to a `capstan
  // apiserver` process are sometimes reset (seen with 60 KB ConfigMaps too; not CRD-specific).
  const api = new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem });
  // A first request of each kind warms the server before the baseline is taken.
  await api.get('/openapi/v3');
  const baseline = rssMB(p.pid);
  const rows: (string | number)[][] = [];
  let have = 0;
  for (const n of counts) {
    progress(`${n} CRDs`);
    await timeOps(`create ${n - have} CRDs`, n - have, 4, async (j) => {
      const r = await api.post(CRDS, definition(have + j));
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 200)}`);
    });
    have = n;
    // Everything installed: the last one is served.
    await until(async () => (await api.get(`/apis/bench${n - 1}.example.com/v1/certificates`)).status === 200, performance.now());
    const rss = rssMB(p.pid);
    const served: number[] = [], published: number[] = [];
    for (let k = 0; k < probes; k++) {
      const name = `probe${n}-${k}`;
      const start = performance.now();
      const r = await api.post(CRDS, definition(name));
      if (r.status !== 201) throw new Error(`probe create: ${r.status}`);
      served.push(await until(async () => (await api.get(`/apis/bench${name}.example.com/v1/certificates`)).status === 200, start));
      published.push(await until(async () => {
        const index = (await api.get('/openapi/v3')).body;
        const url = index.paths?.[`apis/bench${name}.example.com/v1`]?.serverRelativeURL;
        if (!url) return false;
        const doc = (await api.get(url)).body;
        return Boolean(doc.components?.schemas?.[`com.example.bench${name}.v1.Certificate`]);
      }, start));
      const del = await api.delete(`${CRDS}/certificates.bench${name}.example.com`);
      if (del.status !== 200) throw new Error(`probe delete: ${del.status}`);
    }
    const perCRD = (rss - baseline) / n;
    console.log(`${n} CRDs: served ${median(served).toFixed(0)} ms, OpenAPI ${median(published).toFixed(0)} ms, RSS ${rss.toFixed(0)} MB (${perCRD.toFixed(2)} MB/CRD)`);
    const x = { name: 'CRDs installed', value: n };
    rec.metric({ figure: 'new CRD create → served', system: 'capstan', unit: 'ms', samples: served, x });
    rec.metric({ figure: 'new CRD create → OpenAPI published', system: 'capstan', unit: 'ms', samples: published, x });
    rec.metric({ figure: 'server memory per CRD', system: 'capstan', unit: 'bytes', samples: [perCRD * 1e6], x });
    rows.push([n.toLocaleString('en'), median(served).toFixed(0), Math.max(...served).toFixed(0), median(published).toFixed(0), Math.max(...published).toFixed(0), rss.toFixed(0), perCRD.toFixed(2)]);
  }
  const body = `One \`capstan apiserver\` process (SQLite store) with the given number of CustomResourceDefinitions, each cert-manager's Certificate definition (46 KB of YAML, a real-world schema) in a group of its own. At each size, ${probes} more CRDs are created one at a time: *served* is the time from the create request to the first 200 on a list of the new resource; *OpenAPI* is the time until the \`/openapi/v3\` index lists the new group version and its document carries the kind's schema (both polled every 5 ms; each probe is deleted again). Memory is the server's resident set size; per CRD is its growth over the empty server (${baseline.toFixed(0)} MB) divided by the number of CRDs. kube-apiserver is reported to grow by about 13 MB per CRD and to take tens of seconds to minutes to republish OpenAPI with several hundred CRDs.\n\n` +
    table(['CRDs', 'served ms (median)', 'served ms (max)', 'OpenAPI ms (median)', 'OpenAPI ms (max)', 'server RSS MB', 'MB per CRD'], rows);
  return rec.output(writeReport('crd', 'CustomResourceDefinitions at scale', body));
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'crd',
  title: 'CustomResourceDefinitions at scale',
  params: { full: { counts, probes }, quick: { counts: [5, 15], probes: 2 } },
  fromArgv: (argv) => {
    const v = parseArgs({ args: argv, options }).values;
    return { counts: v.counts.split(',').map(Number), probes: Number(v.probes) };
  },
  run: (p, progress) => {
    [counts, probes] = [p.counts, p.probes];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
