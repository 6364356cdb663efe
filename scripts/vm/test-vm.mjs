#!/usr/bin/env node
// `npm run test:vm`: capstan installed on real VMs, as a user would. Builds (or reuses) the
// Debian 12 image (scripts/vm/image.sh) and the release (npm run package), boots one
// control-plane VM and NODES node VMs (default 2) under QEMU's software emulation in a network
// namespace of their own (a bridge and one tap per VM, no route off the machine), installs over
// ssh, and checks: nodes Ready; a Deployment spread over the nodes; pod-to-pod across VMs; a
// Service by DNS name from a pod; `systemctl restart capstan-kubelet capstan-proxy` keeps the
// containers and a long-lived connection through a Service; a rebooted node comes back Ready;
// `capstan uninstall` leaves each VM as it found it. Prints each phase with its time.
// Env: NODES (2), VM_CACHE (/var/cache/capstan-vm), VM_MEMORY (MiB, 1536), KEEP=1 (leave the
// VMs up for a look; cleanup then needs `ip netns del` and the printed PIDs killed).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const NODES = Number(process.env.NODES ?? 2);
const CACHE = process.env.VM_CACHE ?? '/var/cache/capstan-vm';
const MEMORY = process.env.VM_MEMORY ?? '1536';
const id = randomBytes(3).toString('hex');
const NS = `capvm-${id}`;
const work = mkdtempSync(join(tmpdir(), `capstan-vm-${id}-`));
const key = join(CACHE, 'id_ed25519');
const t0 = Date.now();
const times = {};
let phaseStart = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
function phase(name) {
  const now = Date.now();
  process.stdout.write(`\n== ${name} (at ${secs(now - t0)})\n`);
  phaseStart = now;
  return () => { times[name] = (Date.now() - phaseStart) / 1000; process.stdout.write(`== ${name}: done in ${secs(Date.now() - phaseStart)}\n`); };
}
const log = (l) => process.stdout.write(`   ${l}\n`);
// stdin is a pipe only when there is input to give (execFileSync ignores `input` when stdin is 'ignore').
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
const inNS = (cmd, args, opts) => sh('ip', ['netns', 'exec', NS, cmd, ...args], opts);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const vms = [{ name: 'cp', ip: '10.77.0.10' }, ...Array.from({ length: NODES }, (_, i) => ({ name: `node${i + 1}`, ip: `10.77.0.${11 + i}` }))];
const [cp, ...nodes] = vms;
const pids = [];

const SSH_OPTS = ['-i', key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-o', 'ConnectTimeout=60', '-o', 'ServerAliveInterval=30', '-o', 'ServerAliveCountMax=10'];
const run = promisify(execFile);
/** A command over ssh; a connection that fails (exit 255: an emulated VM under load is slow to answer) is tried again. */
async function ssh(vm, command, timeoutMs = 1_800_000, tries = 5) {
  for (let i = 1; ; i++) {
    try {
      return (await run('ip', ['netns', 'exec', NS, 'ssh', ...SSH_OPTS, `root@${vm.ip}`, command], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 })).stdout;
    } catch (e) {
      if (e.code !== 255 || i >= tries) throw e;
      log(`ssh to ${vm.name} failed (${String(e.stderr).trim()}); again`);
      await sleep(5000);
    }
  }
}
const kubeconfig = join(work, 'admin.kubeconfig');
/** kubectl, tried again (up to 5 times, 5 s apart) when it could not reach the API server at all:
 *  an emulated control plane under load can miss kubectl's 10 s TLS handshake timeout. */
function kubectl(args, opts) {
  for (let i = 1; ; i++) {
    try {
      return inNS('kubectl', ['--kubeconfig', kubeconfig, ...args], opts);
    } catch (e) {
      if (i >= 5 || !/Unable to connect to the server/.test(String(e.stderr))) throw e;
      log(`kubectl ${args[0]}: ${String(e.stderr).trim()}; again`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000);
    }
  }
}
const kjson = (args) => JSON.parse(kubectl([...args, '-o', 'json']));

async function until(what, timeoutMs, f, everyMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) { last = e; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last.stderr || last.message || '').toString().trim().split('\n').slice(-3).join(' | ')}` : ''}`);
    await sleep(everyMs);
  }
}

function cleanup() {
  if (process.env.KEEP === '1') { log(`KEEP=1: VMs left running (PIDs ${pids.join(' ')}, namespace ${NS}, dir ${work})`); return; }
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  try { sh('ip', ['netns', 'del', NS]); } catch { /* not created */ }
  rmSync(work, { recursive: true, force: true });
}
process.on('SIGINT', () => { cleanup(); process.exit(130); });
process.on('SIGTERM', () => { cleanup(); process.exit(143); });

function network() {
  sh('ip', ['netns', 'add', NS]);
  inNS('ip', ['link', 'set', 'lo', 'up']);
  inNS('ip', ['link', 'add', 'br0', 'type', 'bridge']);
  inNS('ip', ['addr', 'add', '10.77.0.1/24', 'dev', 'br0']);
  inNS('ip', ['link', 'set', 'br0', 'up']);
  vms.forEach((vm, i) => {
    vm.tap = `tap${i}`;
    inNS('ip', ['tuntap', 'add', 'dev', vm.tap, 'mode', 'tap']);
    inNS('ip', ['link', 'set', vm.tap, 'master', 'br0', 'up']);
  });
}

/** The unpacked release as an ext4 disk each VM mounts read-only (scp and tar take minutes under emulation). */
function releaseDisk(tarball) {
  const dir = join(work, 'release');
  mkdirSync(dir);
  sh('tar', ['-xzf', tarball, '-C', dir]);
  const img = join(work, 'release.img');
  sh('mkfs.ext4', ['-q', '-F', '-L', 'release', '-d', dir, img, '512M']);
  rmSync(dir, { recursive: true, force: true });
  return img;
}

function boot(vm, i) {
  const disk = join(work, `${vm.name}.qcow2`);
  sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', join(CACHE, 'root.qcow2'), disk]);
  vm.console = join(work, `${vm.name}.console.log`);
  const append = `console=ttyS0 root=/dev/vda rw net.ifnames=0 ip=${vm.ip}::10.77.0.1:255.255.255.0:${vm.name}:eth0:off systemd.hostname=${vm.name}`;
  const child = spawn('ip', ['netns', 'exec', NS, 'qemu-system-x86_64', '-accel', 'tcg,tb-size=128', '-machine', 'q35', '-cpu', 'max', '-m', MEMORY, '-smp', '1',
    '-nographic', '-nodefaults', '-serial', `file:${vm.console}`, '-kernel', join(CACHE, 'vmlinux'), '-initrd', join(CACHE, 'initrd.img'), '-append', append,
    '-drive', `file=${disk},if=virtio,format=qcow2,cache=unsafe`, '-drive', `file=${vm.releaseDisk},if=virtio,format=raw,readonly=on`, '-netdev', `tap,id=n0,ifname=${vm.tap},script=no,downscript=no`,
    '-device', `virtio-net-pci,netdev=n0,mac=52:54:00:77:00:${(10 + i).toString(16).padStart(2, '0')}`], { stdio: 'ignore', detached: true });
  child.unref();
  pids.push(child.pid);
  vm.pid = child.pid;
}

/** What "as found" means: packages, unit files, links, routes, nftables tables, /etc and /opt. */
const SNAPSHOT = "dpkg-query -W; echo ==; systemctl list-unit-files --no-legend --no-pager | sort; echo ==; ip -o link show | sed 's/^[0-9]*: //; s/ state [A-Z]*//; s/qlen [0-9]*//' | awk '{print $1, $2}'; echo ==; ip route; echo ==; nft list tables; echo ==; find /etc /opt /var/lib -xdev -path /var/lib/dpkg -prune -o -path /var/lib/apt -prune -o -path /var/lib/systemd -prune -o -path /var/lib/containerd -prune -o -print | sort";

/** A snapshot, taken again while a section that is never empty came back empty (seen once:
 *  `systemctl list-unit-files` printed nothing on a VM still busy after its boot). */
async function snapshot(vm) {
  for (let i = 1; ; i++) {
    const out = await ssh(vm, SNAPSHOT);
    const empty = out.split('==\n').slice(0, 3).some((section) => !section.trim());
    if (!empty || i >= 5) return out;
    log(`${vm.name}: a snapshot section came back empty; again`);
    await sleep(10_000);
  }
}

function diffLines(a, b) {
  const A = new Set(a.split('\n')), B = new Set(b.split('\n'));
  return [...[...A].filter((l) => !B.has(l)).map((l) => `- ${l}`), ...[...B].filter((l) => !A.has(l)).map((l) => `+ ${l}`)];
}

const webDeployment = (replicas) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: {
    replicas, selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
        containers: [{ name: 'web', image: 'localhost/capstan/busybox:1', imagePullPolicy: 'Never',
          command: ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 8080 -h /www'] }],
      },
    },
  },
});
const service = (name, app, port) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app }, ports: [{ port, targetPort: port }] } });
const pod = (name, nodeName, labels, command) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
  spec: { nodeName, containers: [{ name: 'main', image: 'localhost/capstan/busybox:1', imagePullPolicy: 'Never', command: ['sh', '-c', command] }] },
});
const apply = (obj) => kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });

const runningPods = (selector) => kjson(['get', 'pods', '-l', selector]).items.filter((p) => p.status?.phase === 'Running' && p.status?.podIP);
const containerIDs = () => Object.fromEntries(kjson(['get', 'pods']).items.map((p) => [p.metadata.name, (p.status.containerStatuses ?? []).map((c) => c.containerID).join(',')]));
const nodeReady = (name) => kjson(['get', 'node', name]).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const lines = (podName) => Number(kubectl(['exec', podName, '--', 'sh', '-c', 'wc -l < /tmp/out']).trim());

/** A check the later ones do not depend on: its failure is reported at the end, and the run goes on
 *  (a run takes an hour under emulation: one run should say everything that is wrong). */
const failures = [];
async function check(name, f) {
  const done = phase(name);
  try {
    await f();
    done();
  } catch (e) {
    failures.push(`${name}: ${e.message ?? e}`);
    process.stdout.write(`== ${name}: FAILED after ${secs(Date.now() - phaseStart)}: ${e.stack ?? e}\n${e.stderr ? `   stderr: ${e.stderr}\n` : ''}`);
  }
}

async function main() {
  let done = phase('image');
  sh('sh', [join(repo, 'scripts', 'vm', 'image.sh'), CACHE], { stdio: 'inherit' });
  done();

  done = phase('package');
  const releaseDir = join(repo, 'release');
  let tarball = existsSync(releaseDir) && readdirSync(releaseDir).find((f) => /^capstan-.*-linux-amd64\.tar\.gz$/.test(f));
  if (!tarball || process.env.REBUILD_PACKAGE === '1') {
    sh(process.execPath, [join(repo, 'scripts', 'package.mjs')], { stdio: 'inherit' });
    tarball = readdirSync(releaseDir).find((f) => /^capstan-.*-linux-amd64\.tar\.gz$/.test(f));
  } else log(`reusing release/${tarball} (REBUILD_PACKAGE=1 builds it again)`);
  tarball = join(releaseDir, tarball);
  const releaseName = basename(tarball).replace(/\.tar\.gz$/, '');
  log(`${tarball}: ${(statSync(tarball).size / 1e6).toFixed(1)} MB`);
  done();

  done = phase(`boot (1 control plane + ${NODES} node${NODES === 1 ? '' : 's'})`);
  network();
  const disk = releaseDisk(tarball);
  for (const vm of vms) vm.releaseDisk = disk;
  vms.forEach(boot);
  await Promise.all(vms.map((vm) => until(`ssh on ${vm.name}`, 900_000, async () => await ssh(vm, 'systemctl is-system-running --wait >/dev/null 2>&1; true', 300_000, 1) !== undefined, 5000)
    .then(() => log(`${vm.name} up at ${secs(Date.now() - phaseStart)}`))));
  done();

  done = phase('snapshot of each VM before the install');
  const before = Object.fromEntries(await Promise.all(vms.map(async (vm) => [vm.name, await snapshot(vm)])));
  done();

  // The release is on /dev/vdb, as if copied: mounted where a user would have unpacked it.
  await Promise.all(vms.map((vm) => ssh(vm, 'mkdir -p /mnt/release && mount -o ro /dev/vdb /mnt/release')));
  const capstan = `/mnt/release/${releaseName}/bin/capstan`;

  done = phase('install the control plane');
  // An emulated VM answers API calls slowly: leader election gets more room than the defaults give it.
  const slow = "CAPSTAN_CONTROLLER_MANAGER_ARGS='--leader-elect-lease-duration 120s --leader-elect-renew-deadline 90s --leader-elect-retry-period 5s' CAPSTAN_SCHEDULER_ARGS='--leader-elect-lease-duration 120s --leader-elect-renew-deadline 90s --leader-elect-retry-period 5s'";
  const cpOut = await ssh(cp, `${slow} ${capstan} install --role control-plane --advertise-address ${cp.ip}`);
  process.stdout.write(cpOut.split('\n').map((l) => `   | ${l}`).join('\n') + '\n');
  const joinLine = cpOut.split('\n').map((l) => l.trim()).find((l) => l.startsWith('capstan install --role node --join'));
  if (!joinLine) throw new Error('the control plane install printed no join command');
  writeFileSync(kubeconfig, await ssh(cp, 'cat /etc/capstan/admin.kubeconfig'));
  done();

  done = phase('install the nodes');
  await Promise.all(nodes.map(async (vm) => {
    const start = Date.now();
    const out = await ssh(vm, `${joinLine.replace(/^capstan/, capstan)} --advertise-address ${vm.ip}`);
    process.stdout.write(out.split('\n').map((l) => `   | ${l}`).join('\n') + '\n');
    log(`${vm.name} installed and Ready in ${secs(Date.now() - start)}`);
  }));
  done();

  done = phase('all nodes Ready');
  await until('every node Ready', 600_000, () => nodes.every((vm) => nodeReady(vm.name)));
  log(kubectl(['get', 'nodes', '-o', 'wide']).trim());
  done();

  done = phase('a Deployment spread over the nodes');
  apply(webDeployment(2 * NODES));
  const firstPod = Date.now();
  await until('a first web pod Running', 900_000, () => runningPods('app=web').length > 0);
  times['first pod Running'] = (Date.now() - firstPod) / 1000;
  log(`first pod Running after ${secs(Date.now() - firstPod)}`);
  const web = await until('every web pod Running', 900_000, () => { const r = runningPods('app=web'); return r.length === 2 * NODES && r; });
  const byNode = {};
  for (const p of web) (byNode[p.spec.nodeName] ??= []).push(p);
  log(`pods per node: ${JSON.stringify(Object.fromEntries(Object.entries(byNode).map(([n, ps]) => [n, ps.length])))}`);
  if (Object.keys(byNode).length !== NODES) throw new Error(`the Deployment is on ${Object.keys(byNode).length} of ${NODES} nodes`);
  done();

  await check('pod-to-pod across VMs', async () => {
    if (NODES >= 2) {
      const [a, b] = [byNode[nodes[0].name][0], byNode[nodes[1].name][0]];
      const got = kubectl(['exec', a.metadata.name, '--', 'wget', '-qO-', '-T', '10', `http://${b.status.podIP}:8080/`]).trim();
      log(`${a.metadata.name} (${nodes[0].name}) → ${b.status.podIP} (${nodes[1].name}): "${got}"`);
      if (got !== b.metadata.name) throw new Error(`expected ${b.metadata.name}, got "${got}"`);
    } else {
      const [a, b] = web;
      const got = kubectl(['exec', a.metadata.name, '--', 'wget', '-qO-', '-T', '10', `http://${b.status.podIP}:8080/`]).trim();
      log(`one node only: ${a.metadata.name} → ${b.status.podIP}: "${got}"`);
      if (got !== b.metadata.name) throw new Error(`expected ${b.metadata.name}, got "${got}"`);
    }
  });

  await check('a Service by DNS name from a pod', async () => {
    apply(service('web', 'web', 8080));
    const client = web[0].metadata.name;
    const viaDNS = await until('web.default.svc.cluster.local to answer', 300_000, () => kubectl(['exec', client, '--', 'wget', '-qO-', '-T', '5', 'http://web.default.svc.cluster.local:8080/']).trim());
    log(`${client} → http://web.default.svc.cluster.local:8080/: "${viaDNS}"`);
    if (!web.some((p) => p.metadata.name === viaDNS)) throw new Error(`the Service answered "${viaDNS}", not a web pod`);
  });

  const target = nodes[0];
  await check(`restart capstan-kubelet and capstan-proxy on ${target.name}`, async () => {
    apply({ ...pod('echo', target.name, { app: 'echo' }, 'exec nc -ll -p 9000 -e /bin/cat') });
    apply(service('echo', 'echo', 9000));
    // The talker dials once: it starts after the echo server runs, so that its first connection is the one kept.
    await until('echo Running', 600_000, () => runningPods('app=echo').length === 1);
    apply(pod('talker', target.name, { app: 'talker' }, 'i=0; while true; do i=$((i+1)); echo $i; sleep 1; done | nc echo 9000 > /tmp/out'));
    await until('echo and talker Running', 600_000, () => runningPods('app in (echo,talker)').length === 2);
    await until('the connection through the echo Service to carry lines', 120_000, () => lines('talker') > 3);
    const idsBefore = containerIDs();
    const restartsBefore = kjson(['get', 'pod', 'talker']).status.containerStatuses[0].restartCount;
    const linesBefore = lines('talker');
    const restartedAt = Date.now();
    await ssh(target, 'systemctl restart capstan-kubelet capstan-proxy');
    log('restarted; waiting for the new kubelet to serve exec');
    // The Node's Ready condition stays True from before the restart until the node lifecycle
    // controller's grace period ends, so it says nothing about the new kubelet: exec does.
    await until(`the kubelet on ${target.name} to serve exec again`, 600_000, () => lines('talker') >= 0);
    log(`the kubelet served exec ${secs(Date.now() - restartedAt)} after the restart began`);
    await until(`${target.name} Ready`, 300_000, () => nodeReady(target.name));
    // Checked after the container IDs, so that a replaced talker is reported with its cause.
    const carried = await until('the connection to keep carrying lines', 120_000, () => lines('talker') > linesBefore + 5).catch((e) => { log(e.message); return false; });
    const idsAfter = containerIDs();
    const changed = Object.keys(idsBefore).filter((k) => idsBefore[k] !== idsAfter[k]);
    if (changed.length) {
      // What replaced them: the old container's end (exit code, reason) and what the kubelet and proxy logged.
      for (const name of changed) log(`${name}: ${JSON.stringify(kjson(['get', 'pod', name]).status.containerStatuses?.map((c) => ({ restartCount: c.restartCount, lastState: c.lastState, state: c.state })))}`);
      log(kubectl(['get', 'events', '--sort-by=.lastTimestamp']).trim().split('\n').slice(-25).join('\n   '));
      log(await ssh(target, `journalctl -o short-precise --no-pager -u capstan-kubelet -u capstan-proxy --since '-${Math.ceil((Date.now() - restartedAt) / 1000) + 30}s' | tail -n 120`).catch((e) => String(e)));
      throw new Error(`containers changed across the restart: ${changed.join(', ')}`);
    }
    if (!carried) throw new Error('the connection through the echo Service stopped carrying lines');
    const talker = kjson(['get', 'pod', 'talker']).status.containerStatuses[0].restartCount;
    if (talker !== restartsBefore) throw new Error(`the talker restarted (${restartsBefore} → ${talker} restarts): its connection broke`);
    log(`container IDs unchanged (${Object.keys(idsAfter).length} pods); the connection carried ${lines('talker') - linesBefore} more lines`);
  });

  await check(`reboot ${target.name}`, async () => {
    const bootID = () => ssh(target, 'cat /proc/sys/kernel/random/boot_id', 120_000, 1).then((o) => o.trim());
    const oldBoot = await bootID();
    const preReboot = containerIDs();
    try { await ssh(target, 'systemctl reboot', 30_000, 1); } catch { /* the connection drops */ }
    await sleep(20_000);
    // An emulated VM takes a while to go down: until the boot ID changes, ssh may still reach the old boot.
    const newBoot = await until(`${target.name} up again with a new boot ID`, 900_000, async () => { const b = await bootID(); return b !== oldBoot && b; }, 5000);
    log(`${target.name} rebooted (boot ID ${oldBoot} → ${newBoot}) at ${secs(Date.now() - phaseStart)}`);
    // Ready as reported by the kubelet of the new boot (the Node carries its boot ID).
    await until(`${target.name} Ready after the reboot`, 900_000, () => { const n = kjson(['get', 'node', target.name]); return n.status?.nodeInfo?.bootID === newBoot && nodeReady(target.name); });
    log(`${target.name} Ready at ${secs(Date.now() - phaseStart)}`);
    // Running again in new containers: the old ones died with the boot.
    await until(`the pods on ${target.name} Running again`, 900_000, () => kjson(['get', 'pods']).items.filter((p) => p.spec.nodeName === target.name)
      .every((p) => p.status.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.ready || c.state?.running)
        && (p.status.containerStatuses ?? []).map((c) => c.containerID).join(',') !== preReboot[p.metadata.name]));
    log(`${target.name} is Ready with its pods running again`);
  });

  done = phase('uninstall');
  kubectl(['delete', 'deployment', 'web', '--wait=false']);
  const uninstall = async (vm) => {
    const start = Date.now();
    // A rebooted VM no longer has the release mounted.
    const out = await ssh(vm, `mountpoint -q /mnt/release || mount -o ro /dev/vdb /mnt/release; ${capstan} uninstall`);
    log(`${vm.name} (${secs(Date.now() - start)}): ${out.trim().split('\n').pop()}`);
  };
  await Promise.all(nodes.map(uninstall));
  await uninstall(cp);
  const problems = [];
  await Promise.all(vms.map((vm) => ssh(vm, 'umount /mnt/release && rmdir /mnt/release')));
  for (const vm of vms) {
    const d = diffLines(before[vm.name], await snapshot(vm));
    if (d.length) problems.push(`${vm.name} differs after uninstall:\n${d.map((l) => `     ${l}`).join('\n')}`);
    else log(`${vm.name}: packages, units, links, routes, nft tables and files as before`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
  done();
  if (failures.length) throw new Error(`${failures.length} check(s) failed:\n${failures.join('\n')}`);
}

main().then(() => {
  process.stdout.write(`\ntest:vm passed in ${secs(Date.now() - t0)}; phases (s): ${JSON.stringify(times)}\n`);
  cleanup();
}, (e) => {
  process.stderr.write(`\ntest:vm FAILED after ${secs(Date.now() - t0)}: ${e.stack ?? e}\n${e.stderr ? `stderr: ${e.stderr}\n` : ''}`);
  for (const vm of vms) if (vm.console && existsSync(vm.console)) process.stderr.write(`--- ${vm.name} console (last lines)\n${readFileSync(vm.console, 'utf8').split('\n').slice(-15).join('\n')}\n`);
  process.stderr.write(`phases (s): ${JSON.stringify(times)}\n`);
  cleanup();
  process.exit(1);
});
