// CNI ADD/DEL latency, capstan (thin C plugin → network agent → addon) against the reference
// ptp + host-local plugins, side by side in one run on the same machine. Each pod gets a
// fresh network namespace (not timed); the plugins run as containerd runs them: a process
// per call, CNI_* environment, config on stdin, in the node's namespace. The order of the
// two plugins alternates per pod so drift hits both alike.
//   node dist/bench/cni.js [pods=100]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { CONFLIST_NAME } from '../src/network/index.js';
import { addNamespace, removeNamespace, type BenchNamespace } from './lib/netns.js';
import { fmtMs, fmtRatio, summarize, type Summary } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress, type SuiteOutput } from './lib/suite.js';
import { command, root as needRoot } from './lib/prereq.js';

let PODS = 100;
const CONCURRENT = 10;
const REF_BIN = ['/usr/lib/cni', '/opt/cni/bin'].find((d) => existsSync(join(d, 'ptp')))!;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Plugin {
  name: string;
  bin: string;
  path: string;
  conf: string;
}

function exec(bin: string, env: Record<string, string>, stdin: string): Promise<{ ms: number; code: number | null; out: string }> {
  return new Promise((res, rej) => {
    const start = process.hrtime.bigint();
    const child = spawn(bin, [], { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', rej);
    child.on('close', (code) => res({ ms: Number(process.hrtime.bigint() - start) / 1e6, code, out }));
    child.stdin.end(stdin);
  });
}

async function call(p: Plugin, command: 'ADD' | 'DEL', id: string, netns: string): Promise<number> {
  const env = { CNI_COMMAND: command, CNI_CONTAINERID: id, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: p.path, CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=bench;K8S_POD_NAME=${id}` };
  const r = await exec(p.bin, env, p.conf);
  if (r.code !== 0) throw new Error(`${p.name} ${command} ${id} failed: ${r.out}`);
  return r.ms;
}

async function startAgent(dir: string): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(root, 'bin', 'capstan.js'), 'network-agent', '--pod-cidr', '10.78.0.0/16',
    '--socket', join(dir, 'cni.sock'), '--state-dir', join(dir, 'state'), '--cni-bin-dir', join(dir, 'bin'),
    '--cni-conf-dir', join(dir, 'net.d'), '--health-port=-1'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CAPSTAN_LOG_LEVEL: 'warn' } });
  await new Promise<void>((res, rej) => {
    child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('running')) res(); });
    child.once('exit', (c) => rej(new Error(`agent exited ${c}`)));
  });
  return { stop: () => new Promise((res) => { child.once('exit', () => res()); child.kill('SIGTERM'); }) };
}

function pluginConf(confDir: string): string {
  const list = JSON.parse(readFileSync(join(confDir, CONFLIST_NAME), 'utf8')) as { name: string; cniVersion: string; plugins: object[] };
  return JSON.stringify({ ...list.plugins[0], name: list.name, cniVersion: list.cniVersion });
}

async function inNode(): Promise<SuiteOutput> {
  const dir = mkdtempSync('/tmp/ccnib-');
  const agent = await startAgent(dir);
  const plugins: Plugin[] = [
    { name: 'capstan', bin: join(dir, 'bin', 'capstan'), path: join(dir, 'bin'), conf: pluginConf(join(dir, 'net.d')) },
    {
      name: 'ptp+host-local', bin: join(REF_BIN, 'ptp'), path: REF_BIN,
      conf: JSON.stringify({ cniVersion: '0.4.0', name: 'bench-ptp', type: 'ptp', ipMasq: false, ipam: { type: 'host-local', ranges: [[{ subnet: '10.79.0.0/16' }]], dataDir: join(dir, 'host-local') } }),
    },
  ];
  const loopbacks: Plugin[] = [
    { name: 'capstan loopback', bin: join(dir, 'bin', 'loopback'), path: join(dir, 'bin'), conf: JSON.stringify({ cniVersion: '0.3.1', name: 'cni-loopback', type: 'loopback' }) },
    { name: 'reference loopback', bin: join(REF_BIN, 'loopback'), path: REF_BIN, conf: JSON.stringify({ cniVersion: '0.3.1', name: 'cni-loopback', type: 'loopback' }) },
  ];
  const add: Record<string, number[]> = {}, del: Record<string, number[]> = {}, wall: Record<string, number[]> = {};
  const pods: { ns: BenchNamespace; p: Plugin; id: string }[] = [];
  try {
    for (let i = 0; i < PODS; i++) {
      const order = i % 2 ? [...plugins].reverse() : plugins;
      for (const p of order) {
        const ns = await addNamespace('capstan-bcni');
        const id = `${p.name === 'capstan' ? 'c' : 'r'}${i}`;
        (add[p.name] ??= []).push(await call(p, 'ADD', id, ns.path));
        pods.push({ ns, p, id });
      }
      const lo = i % 2 ? [...loopbacks].reverse() : loopbacks;
      for (const p of lo) (add[p.name] ??= []).push(await call(p, 'ADD', `l${i}`, pods[pods.length - 1]!.ns.path));
    }
    for (const [k, { ns, p, id }] of pods.entries()) {
      // Same alternation for DEL: pods were pushed in alternating plugin order already.
      (del[p.name] ??= []).push(await call(p, 'DEL', id, ns.path));
      if (k % 2) (del[`${p.name} (2nd DEL, empty netns)`] ??= []).push(await call(p, 'DEL', id, ''));
    }
    for (const { ns } of pods) await removeNamespace(ns);
    pods.length = 0;
    // CONCURRENT ADDs at once, as a node starting a Deployment's pods sees them; 5 rounds each.
    for (let round = 0; round < 5; round++) {
      for (const p of round % 2 ? [...plugins].reverse() : plugins) {
        const batch = await Promise.all(Array.from({ length: CONCURRENT }, () => addNamespace('capstan-bcni')));
        const start = process.hrtime.bigint();
        await Promise.all(batch.map((ns, j) => call(p, 'ADD', `w${round}-${j}`, ns.path)));
        (wall[p.name] ??= []).push(Number(process.hrtime.bigint() - start) / 1e6);
        await Promise.all(batch.map((ns, j) => call(p, 'DEL', `w${round}-${j}`, ns.path)));
        for (const ns of batch) await removeNamespace(ns);
      }
    }
  } finally {
    for (const { ns } of pods) await removeNamespace(ns);
    await agent.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const s = (x: number[] | undefined): Summary => summarize(x ?? []);
  const row = (name: string, v: Summary) => [name, fmtMs(v.p50), fmtMs(v.p99), fmtMs(v.mean), fmtMs(v.max)];
  const ratio = (name: string, ref: Summary, cap: Summary) => [name, fmtRatio(ref.p50, cap.p50), fmtRatio(ref.p99, cap.p99), fmtRatio(ref.mean, cap.mean), ''];
  const [c, r] = ['capstan', 'ptp+host-local'];
  const body = `${PODS} pods per plugin, each in a fresh network namespace (creation not timed), calls alternating between the two plugins, every call a process exec'd from Node (spawn → exit, as containerd execs a plugin; the spawn cost is in both columns). capstan = the static C plugin forwarding to a running \`capstan network-agent\` (IPAM on disk, netlink through the addon: 2 batches per ADD); reference = Debian containernetworking-plugins ${'`ptp`'} + ${'`host-local`'} (Go). Same node namespace, same shape (veth, /32, host route). Load average at the end ${loadavg()[0]!.toFixed(1)} on this shared 2-core VM (other engineers' tests run too): tails are noisy. Ratio = reference ÷ capstan (above 1× means capstan is faster).

${table(['call', 'p50', 'p99', 'mean', 'max'], [
    row(`ADD capstan`, s(add[c])), row(`ADD ${r}`, s(add[r])), ratio('ADD ratio', s(add[r]), s(add[c])),
    row(`DEL capstan`, s(del[c])), row(`DEL ${r}`, s(del[r])), ratio('DEL ratio', s(del[r]), s(del[c])),
    row(`DEL again, empty netns, capstan`, s(del[`${c} (2nd DEL, empty netns)`])), row(`DEL again, empty netns, ${r}`, s(del[`${r} (2nd DEL, empty netns)`])),
    row('ADD loopback, capstan', s(add['capstan loopback'])), row('ADD loopback, reference', s(add['reference loopback'])),
    row(`${CONCURRENT} concurrent ADDs (wall), capstan`, s(wall[c])), row(`${CONCURRENT} concurrent ADDs (wall), ${r}`, s(wall[r])),
    ratio('concurrent wall ratio', s(wall[r]), s(wall[c])),
  ])}
`;
  const rec = new Recorder();
  const pair = (figure: string, samples: Record<string, number[]>, key = (n: string) => n) => {
    const cap = rec.metric({ figure, system: 'capstan', unit: 'ms', samples: samples[key(c)] ?? [] });
    const ref = rec.metric({ figure, system: r, baseline: true, unit: 'ms', samples: samples[key(r)] ?? [] });
    rec.ratio(cap, ref, 'p50');
    rec.ratio(cap, ref, 'p99');
  };
  pair('ADD', add);
  pair('DEL', del);
  pair('DEL again, empty netns', del, (n) => `${n} (2nd DEL, empty netns)`);
  pair(`${CONCURRENT} concurrent ADDs (wall)`, wall);
  rec.metric({ figure: 'ADD loopback', system: 'capstan', unit: 'ms', samples: add['capstan loopback'] ?? [] });
  rec.metric({ figure: 'ADD loopback', system: 'reference loopback', baseline: true, unit: 'ms', samples: add['reference loopback'] ?? [] });
  const out = rec.output(writeReport('cni', 'CNI ADD/DEL: capstan vs ptp + host-local', body));
  if (process.env.CAPSTAN_BENCH_RESULT) writeFileSync(process.env.CAPSTAN_BENCH_RESULT, JSON.stringify(out));
  return out;
}

async function main(progress: Progress): Promise<SuiteOutput> {
  if (process.env.CAPSTAN_BENCH_NODE) return inNode();
  // The plugins act on "their" namespace: run this script again inside a scratch node
  // namespace with a fake uplink (proxy ARP and ptp both want a route out).
  const node = await addNamespace('capstan-bcni-node');
  const resultDir = mkdtempSync('/tmp/ccnib-result-');
  const resultFile = join(resultDir, 'result.json');
  try {
    const ip = (...a: string[]) => execa('ip', ['-n', node.name, ...a]);
    await ip('link', 'set', 'lo', 'up');
    await ip('link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up1');
    await ip('link', 'set', 'up0', 'up');
    await ip('link', 'set', 'up1', 'up');
    await ip('addr', 'add', '192.0.2.1/24', 'dev', 'up0');
    await ip('route', 'add', 'default', 'via', '192.0.2.254', 'dev', 'up0', 'onlink');
    progress(`${PODS} pods per plugin, in node namespace ${node.name}`);
    await execa('nsenter', [`--net=${node.path}`, process.execPath, fileURLToPath(import.meta.url), String(PODS)], { stdio: 'inherit', env: { ...process.env, CAPSTAN_BENCH_NODE: node.name, CAPSTAN_BENCH_RESULT: resultFile } });
    return JSON.parse(readFileSync(resultFile, 'utf8')) as SuiteOutput;
  } finally {
    await removeNamespace(node);
    rmSync(resultDir, { recursive: true, force: true });
  }
}

export const suite = defineSuite({
  name: 'cni',
  title: 'CNI ADD/DEL: capstan vs ptp + host-local',
  params: { full: { pods: PODS }, quick: { pods: 5 } },
  requires: [needRoot, () => (REF_BIN ? undefined : 'the reference CNI plugins are missing (Debian: apt-get install containernetworking-plugins)'), command('nsenter', 'util-linux')],
  fromArgv: (argv, full) => ({ pods: Number(argv[0] ?? full.pods) }),
  run: (p, progress) => { PODS = p.pods; return main(progress); },
});
runIfMain(import.meta.url, suite);
