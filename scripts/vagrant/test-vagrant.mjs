#!/usr/bin/env node
// `npm run test:vagrant`: a real `vagrant up` of the lab in vagrant/ with one control plane and
// one node, then the node must be Ready, then `vagrant destroy` — also when a step fails.
// libvirt runs here without systemd (PLATFORM-NOTES): virtlogd and libvirtd are started in a
// network namespace of the test's own (no route off the machine), where vagrant runs too; the
// storage pool, VAGRANT_HOME and Vagrant's state are in a temp dir. The box comes from
// scripts/vagrant-box.sh, the release from `npm run package` (or CAPSTAN_RELEASE).
// Env: NODES (1), CAPSTAN_RELEASE (a release tarball), KEEP=1 (leave it up; the printed
// namespace, PIDs and directory then need removing by hand).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const id = randomBytes(3).toString('hex');
const NS = `capvg-${id}`;
const POOL = `capstan-vg-${id}`;
const NODES = Number(process.env.NODES ?? 1);
const work = mkdtempSync(join(tmpdir(), `capstan-vagrant-${id}-`));
// libvirt's QEMU runs as libvirt-qemu: it must reach the disks and the box's kernel under here.
chmodSync(work, 0o755);
mkdirSync(join(work, 'consoles'), { mode: 0o777 });
chmodSync(join(work, 'consoles'), 0o777);
const t0 = Date.now();
const times = {};
const secs = (ms) => `${(ms / 1000).toFixed(0)} s`;
const log = (l) => process.stdout.write(`   ${l}\n`);
async function phase(name, f) {
  const start = Date.now();
  process.stdout.write(`\n== ${name} (at ${secs(start - t0)})\n`);
  const v = await f();
  times[name] = Math.round((Date.now() - start) / 1000);
  process.stdout.write(`== ${name}: ${secs(Date.now() - start)}\n`);
  return v;
}
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
const inNS = (cmd, args, opts) => sh('ip', ['netns', 'exec', NS, cmd, ...args], opts);
const virsh = (...args) => inNS('virsh', ['-c', 'qemu:///system', ...args]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const env = {
  ...process.env,
  VAGRANT_CWD: join(repo, 'vagrant'),
  VAGRANT_HOME: join(work, 'vagrant.d'),
  VAGRANT_DOTFILE_PATH: join(work, 'dot-vagrant'),
  VAGRANT_CHECKPOINT_DISABLE: '1',
  VAGRANT_BOX_UPDATE_CHECK_DISABLE: '1',
  LIBVIRT_DEFAULT_URI: 'qemu:///system',
  NODES: String(NODES),
  CAPSTAN_POOL: POOL,
  CAPSTAN_CONSOLE_DIR: join(work, 'consoles'),
  CAPSTAN_BOX: join(repo, 'vagrant', '.box', 'capstan-debian12.box'),
};

/** vagrant in the namespace, its output shown as it comes and kept; resolves with its stdout, rejects on a non-zero exit. */
let running; // the vagrant process now running (ip netns exec execs it: the same process)
function vagrant(args, timeoutMs = 3 * 3600_000) {
  return new Promise((resolve_, reject) => {
    const child = spawn('ip', ['netns', 'exec', NS, 'vagrant', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    let out = '', stdout = '';
    // Shown line by line, without the progress meters (box import and upload).
    const show = (d) => {
      out += d;
      for (const l of String(d).replace(/\x1b\[K/g, '').split(/[\r\n]+/)) if (l.trim() && !/^\s*Progress: \d+%/.test(l)) process.stdout.write(`   | ${l}\n`);
    };
    child.stdout.on('data', (d) => { stdout += d; show(d); });
    child.stderr.on('data', show);
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      writeFileSync(join(work, `vagrant-${args[0]}.log`), out, { flag: 'a' });
      if (code === 0) resolve_(stdout); else reject(new Error(`vagrant ${args.join(' ')} exited ${code ?? signal}`));
    });
  });
}

function daemonPid(file) {
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
}

function startLibvirt() {
  // One libvirtd per machine: its sockets and state are at fixed paths.
  const running = sh('ps', ['-eo', 'comm']).split('\n').map((s) => s.trim()).filter((c) => c === 'libvirtd' || c === 'virtlogd');
  if (running.length) throw new Error(`${running.join(' and ')} already run${running.length > 1 ? '' : 's'} on this machine: stop it first (this test starts its own in a namespace)`);
  sh('ip', ['netns', 'add', NS]);
  inNS('ip', ['link', 'set', 'lo', 'up']);
  inNS('virtlogd', ['-d']);
  inNS('libvirtd', ['-d']);
  return { libvirtd: () => daemonPid('/run/libvirtd.pid'), virtlogd: () => daemonPid('/run/virtlogd.pid') };
}

async function waitForLibvirt() {
  for (let i = 0; ; i++) {
    try { virsh('version'); return; } catch (e) { if (i > 60) throw e; }
    await sleep(1000);
  }
}

function makePool() {
  const dir = join(work, 'pool');
  virsh('pool-define-as', POOL, 'dir', '--target', dir);
  virsh('pool-build', POOL);
  chmodSync(dir, 0o755);
  virsh('pool-start', POOL);
}

function release() {
  if (process.env.CAPSTAN_RELEASE) return resolve(process.env.CAPSTAN_RELEASE);
  const dir = join(repo, 'release');
  const find = () => existsSync(dir) && readdirSync(dir).find((f) => /^capstan-.*-linux-amd64\.tar\.gz$/.test(f));
  if (!find()) sh(process.execPath, [join(repo, 'scripts', 'package.mjs')], { stdio: 'inherit' });
  return join(dir, find());
}

let daemons;
let cleaning;
/** Once, however often asked (a signal and the failure it causes both ask). */
const cleanup = () => (cleaning ??= cleanupOnce());
async function cleanupOnce() {
  // A vagrant still running holds the machines' locks: `vagrant destroy` would be refused.
  if (running && running.exitCode === null && running.signalCode === null) {
    running.kill('SIGKILL');
    await new Promise((r) => running.once('exit', r));
  }
  if (process.env.KEEP === '1') {
    log(`KEEP=1: left up: namespace ${NS}, dir ${work}; vagrant env: VAGRANT_CWD=${env.VAGRANT_CWD} VAGRANT_HOME=${env.VAGRANT_HOME} VAGRANT_DOTFILE_PATH=${env.VAGRANT_DOTFILE_PATH} CAPSTAN_POOL=${POOL}`);
    return;
  }
  if (daemons) {
    const start = Date.now();
    try { await vagrant(['destroy', '-f'], 900_000); } catch (e) { log(`vagrant destroy: ${e.message}`); }
    // What libvirt keeps in /etc/libvirt and /var/lib/libvirt after vagrant: the pool and the networks.
    const quiet = (...a) => { try { virsh(...a); } catch { /* not there */ } };
    for (const d of (() => { try { return virsh('list', '--all', '--name').split('\n').filter((n) => n.startsWith('vagrant_')); } catch { return []; } })()) { quiet('destroy', d); quiet('undefine', d, '--nvram'); }
    for (const n of ['capstan-1', 'capstan-2', 'vagrant-libvirt']) { quiet('net-destroy', n); quiet('net-undefine', n); }
    quiet('pool-destroy', POOL);
    quiet('pool-undefine', POOL);
    times['destroy'] = Math.round((Date.now() - start) / 1000);
    // libvirtd, virtlogd, QEMU and dnsmasq: every process in the test's namespace is the test's.
    const pids = new Set([daemons.libvirtd(), daemons.virtlogd()].filter(Boolean));
    try { for (const p of sh('ip', ['netns', 'pids', NS]).split('\n').filter(Boolean)) pids.add(Number(p)); } catch { /* no namespace */ }
    for (const pid of pids) { try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }
    await sleep(3000);
    for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    // Their runtime state (PID files, the networks' status): nobody else's, as no other libvirtd ran.
    rmSync('/run/libvirt', { recursive: true, force: true });
    for (const f of ['/run/libvirtd.pid', '/run/virtlogd.pid']) rmSync(f, { force: true });
  }
  try { sh('ip', ['netns', 'del', NS]); } catch { /* not created */ }
  rmSync(work, { recursive: true, force: true });
}
process.on('SIGINT', () => { void cleanup().then(() => process.exit(130)); });
process.on('SIGTERM', () => { void cleanup().then(() => process.exit(143)); });

async function main() {
  await phase('box', () => sh('sh', [join(repo, 'scripts', 'vagrant-box.sh'), env.CAPSTAN_BOX], { stdio: 'inherit' }));
  env.CAPSTAN_RELEASE = await phase('package', () => release());
  log(`${env.CAPSTAN_RELEASE}: ${(statSync(env.CAPSTAN_RELEASE).size / 1e6).toFixed(1)} MB`);
  await phase('libvirt in a namespace', async () => {
    daemons = startLibvirt();
    await waitForLibvirt();
    makePool();
    log(`namespace ${NS}; libvirtd ${daemons.libvirtd()}, virtlogd ${daemons.virtlogd()}; pool ${POOL} in ${work}/pool`);
  });
  await phase('vagrant validate', () => vagrant(['validate']));
  await phase(`vagrant up (1 control plane, ${NODES} node${NODES > 1 ? 's' : ''})`, () => vagrant(['up']));
  await phase('nodes Ready', async () => {
    const kubeconfig = join(work, 'admin.kubeconfig');
    writeFileSync(kubeconfig, await vagrant(['ssh', 'cp', '-c', 'cat /etc/capstan/admin.kubeconfig', '--', '-q']), { mode: 0o600 });
    const want = Array.from({ length: NODES }, (_, i) => `node${i + 1}`);
    for (let i = 0; ; i++) {
      const nodes = JSON.parse(inNS('kubectl', ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'json'])).items;
      const ready = nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort();
      if (want.every((n) => ready.includes(n))) break;
      if (i > 120) throw new Error(`nodes Ready: ${ready.join(', ') || 'none'}; wanted ${want.join(', ')}`);
      await sleep(5000);
    }
    log(inNS('kubectl', ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'wide']).trim());
  });
}

main().then(async () => {
  await cleanup();
  process.stdout.write(`\ntest:vagrant passed in ${secs(Date.now() - t0)}; phases (s): ${JSON.stringify(times)}\n`);
}, async (e) => {
  process.stderr.write(`\ntest:vagrant FAILED after ${secs(Date.now() - t0)}: ${e.stack ?? e}\n`);
  for (const f of existsSync(env.CAPSTAN_CONSOLE_DIR) ? readdirSync(env.CAPSTAN_CONSOLE_DIR) : []) {
    process.stderr.write(`--- ${f} (last lines)\n${readFileSync(join(env.CAPSTAN_CONSOLE_DIR, f), 'utf8').split('\n').slice(-15).join('\n')}\n`);
  }
  await cleanup();
  process.stderr.write(`phases (s): ${JSON.stringify(times)}\n`);
  process.exit(1);
});
