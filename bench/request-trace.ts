// What request tracing costs: creates and lists against `capstan apiserver` processes, side by
// side in one run, all of the same build — with `--request-stages=false` (no stage recorded: the
// baseline), as shipped without the opt-in header (tracing off), and with `X-Capstan-Trace: 1`
// on every request — and optionally the build before tracing (`--before-bin`). Variants run in
// interleaved rounds so a busy machine hurts each alike.
// Usage: node dist/bench/request-trace.js [--count N] [--rounds R] [--before-bin PATH]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from 'node:https';
import { ensureClusterPKI } from '../src/cli/pki-files.js';
import { APIClient } from '../test/helpers/api.js';
import { capstanBin } from '../test/helpers/apiserver-process.js';
import { timeOps, type BenchResult } from './lib/latency.js';
import { table, writeReport } from './lib/report.js';

const { values } = parseArgs({ options: {
  count: { type: 'string', default: '500' }, rounds: { type: 'string', default: '3' },
  'before-bin': { type: 'string' }, 'extra-env': { type: 'string' },
} });
const count = Number(values.count);
const rounds = Number(values.rounds);
const payload = 'v'.repeat(1024);
const lists = 40;

interface Variant { name: string; bin: string; header: boolean; env?: Record<string, string>; args?: string[] }
const variants: Variant[] = [
  { name: 'no stages (--request-stages=false)', bin: capstanBin, header: false, args: ['--request-stages', 'false'] },
  ...(values['before-bin'] ? [{ name: 'before (no tracing code)', bin: values['before-bin'], header: false }] : []),
  { name: 'tracing off (no header)', bin: capstanBin, header: false },
  { name: 'tracing on (X-Capstan-Trace: 1)', bin: capstanBin, header: true },
  // An experiment: what AsyncLocalStorage alone costs the build before (promise hooks on for the whole process).
  ...(values['extra-env'] && values['before-bin'] ? [{ name: `before, with ${values['extra-env']}`, bin: values['before-bin'], header: false, env: Object.fromEntries([values['extra-env'].split('=') as [string, string]]) }] : []),
];

async function launch(bin: string, env: Record<string, string> = {}, args: string[] = []) {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-trace-bench-'));
  const pki = ensureClusterPKI(dataDir, ['127.0.0.1'], '10.96.0.0/12');
  const child: ChildProcess = spawn(process.execPath, [bin, 'apiserver', '--data-dir', dataDir, '--secure-port', '0', '--store', `sqlite://${join(dataDir, 'state.db')}`, '--disable-admission-plugins', 'ServiceAccount', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready on https:\/\/[^:]+:(\d+)/.exec(out) ?? /"port":(\d+)/.exec(out);
      if (out.includes('ready on') && m) res(Number(m[1]));
    });
    child.once('exit', (code) => rej(new Error(`apiserver exited with ${code}: ${out}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { port, pki, stop, pid: child.pid! };
}

/** CPU time (user + system) the process has used, in ms: unlike wall time, other load on the machine does not change it. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function mustOK(p: Promise<{ status: number; text: string }>, want: number): Promise<void> {
  const r = await p;
  if (r.status !== want) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 200)}`);
}

interface Run { create: BenchResult; list: BenchResult; createCpuUs: number; listCpuUs: number }

async function runVariant(v: Variant, round: number): Promise<Run> {
  const server = await launch(v.bin, v.env, v.args);
  try {
    const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 8 }));
    const headers: Record<string, string> = v.header ? { 'X-Capstan-Trace': '1' } : {};
    const ns = `r${round}`;
    await mustOK(api.post('/api/v1/namespaces', { metadata: { name: ns } }), 201);
    // Warm up the JIT and the connections before anything is timed.
    await timeOps('warm', 100, 8, (i) => mustOK(api.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `warm-${i}` }, data: { payload } }, { headers }), 201));
    let cpu = cpuMs(server.pid);
    const create = await timeOps('create', count, 8, (i) => mustOK(api.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { payload } }, { headers }), 201));
    const createCpuUs = (cpuMs(server.pid) - cpu) * 1000 / count;
    cpu = cpuMs(server.pid);
    const list = await timeOps('list', lists, 1, () => mustOK(api.get(`/api/v1/namespaces/${ns}/configmaps`, { headers }), 200));
    const listCpuUs = (cpuMs(server.pid) - cpu) * 1000 / lists;
    return { create, list, createCpuUs, listCpuUs };
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = new Map<string, Run[]>();
for (let r = 0; r < rounds; r++) {
  // Alternating order: neither variant always runs first (or while the machine is warmer).
  for (const v of r % 2 ? [...variants].reverse() : variants) {
    const res = await runVariant(v, r);
    results.set(v.name, [...results.get(v.name) ?? [], res]);
    console.log(`round ${r} ${v.name}: create ${res.create.opsPerSec.toFixed(0)}/s p50 ${res.create.p50Ms.toFixed(2)} ms, ${res.createCpuUs.toFixed(0)} µs CPU; list of ${count + 100} p50 ${res.list.p50Ms.toFixed(2)} ms, ${res.listCpuUs.toFixed(0)} µs CPU`);
  }
}
const pick = (name: string, f: (r: Run) => number) => median(results.get(name)!.map(f));
const first = variants[0].name;
const vs = (x: number, b: number) => `${x >= b ? '+' : ''}${((x / b - 1) * 100).toFixed(1)}%`;
const rows = variants.map((v) => {
  const [cc, lc] = [pick(v.name, (r) => r.createCpuUs), pick(v.name, (r) => r.listCpuUs)];
  return [v.name, cc.toFixed(0), vs(cc, pick(first, (r) => r.createCpuUs)), pick(v.name, (r) => r.create.opsPerSec).toFixed(0), pick(v.name, (r) => r.create.p50Ms).toFixed(2),
    lc.toFixed(0), vs(lc, pick(first, (r) => r.listCpuUs)), pick(v.name, (r) => r.list.p50Ms).toFixed(2)];
});
// Each round's own ratio against the first row (same round, minutes apart at most): the noise
// between rounds cancels out of it.
const paired = variants.slice(1).map((v) => {
  const ratios = results.get(v.name)!.map((run, i) => run.createCpuUs / results.get(first)![i]!.createCpuUs);
  return `${v.name}: ${ratios.map((x) => vs(x, 1)).join(', ')} (median ${vs(median(ratios), 1)})`;
});
const body = `Request tracing's cost, side by side in one run (${rounds} interleaved rounds, medians shown). Creates: ${count} 1 KB ConfigMaps at concurrency 8 over keep-alive TLS with client certificates; lists: ${lists} sequential lists of the ${count + 100} objects. ` +
  `The API server's CPU time per request (from /proc, user + system) is the figure to read: wall-clock rates and latencies move with whatever else the machine runs. Differences are against the first row.\n\n` +
  table(['variant', 'create CPU µs/op', 'vs first', 'create ops/s', 'create p50 ms', 'list CPU µs/op', 'vs first', 'list p50 ms'], rows) + '\n\n' +
  `Create CPU per op against the first row, round by round:\n\n${paired.map((p) => `* ${p}`).join('\n')}\n`;
writeReport('request-trace', 'API server request tracing overhead', body);
