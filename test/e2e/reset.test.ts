// `capstan reset` after `capstan up` with running pods, as a user meets it: up (with a real
// node, inside a network namespace of its own) runs a Deployment, then is stopped the way
// Ctrl-C stops it (SIGINT to capstan, its containerd and its network agent: the terminal's
// whole foreground group), which leaves the pods running and says so. `capstan reset` must
// then leave no process, mount, cgroup, link, route or nft table, and no data dir; a second
// reset is a no-op. Also after the user removed the data dir by hand first.
import t, { type Test } from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const root = process.getuid?.() === 0;

function cmdline(pid: number): string {
  try {
    if (/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) return ''; // a zombie holds nothing
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
const pidsMatching = (s: string) => readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((p) => p !== process.pid && cmdline(p).includes(s));
const alive = (pid: number) => cmdline(pid) !== '';
const mountsUnder = (dir: string) => readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4]).filter((m) => m && m.startsWith(dir));
const cgroupDirs = (path: string) => readdirSync('/sys/fs/cgroup').map((h) => join('/sys/fs/cgroup', h, path)).filter((d) => existsSync(d));

/** `capstan up` with a node in a fresh namespace, running a 2-replica Deployment, then stopped as Ctrl-C stops it. */
async function upWithPodsThenCtrlC(t: Test) {
  const netns = `capstan-reset-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  const inNetns = (cmd: string, args: string[]) => spawnSync('nsenter', [`--net=/run/netns/${netns}`, cmd, ...args], { encoding: 'utf8' });
  const reset = (dir: string) => inNetns(process.execPath, [capstanBin, 'reset', '--data-dir', dir]);
  let dataDir = '';
  t.teardown(() => {
    if (dataDir) reset(dataDir); // idempotent: also after a failure half-way
    try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ }
  });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  // An uplink with a default route, as a node has; nothing leaves the namespace.
  addNodeUplink(netns, '192.168.251');
  const links = () => execFileSync('ip', ['-n', netns, '-br', 'link'], { encoding: 'utf8' }).split('\n').filter(Boolean).map((l) => l.split(/\s+/)[0].split('@')[0]).sort();
  const baseline = links();

  const up = await startCapstanUp(t, ['--node-name', 'node-r'], { netns });
  dataDir = up.dataDir;
  const k = kubectlFor(t, up.kubeconfig, { netns });
  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-r', '--no-headers'])), 60_000, 'node Ready');
  await k.ok(['create', 'deployment', 'sleepers', '--image=localhost/capstan/busybox:1', '--replicas=2', '--', 'sleep', '3600']);
  await k.ok(['rollout', 'status', 'deploy/sleepers', '--timeout=120s']);

  const socket = join(dataDir, 'containerd', 'containerd.sock');
  const shims = pidsMatching(`-address ${socket}`);
  t.ok(shims.length >= 2, `${shims.length} shims running`);
  const containers = readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((p) => {
    try { return shims.includes(Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1])); } catch { return false; }
  });
  const podCgroups = [...new Set(containers.map((p) => /:\/(capstan[^/]*\/kubepods\/\S*pod[^/]+)\//.exec(readFileSync(`/proc/${p}/cgroup`, 'utf8'))?.[1]).filter((c): c is string => !!c))];
  t.equal(podCgroups.length, 2, 'two pod cgroups');
  t.ok(links().some((l) => /^cap[0-9a-f]{11}$/.test(l)), 'pod veths exist');
  t.match(inNetns('nft', ['list', 'tables']).stdout, /capstan-proxy/, 'the proxy table exists');

  // Ctrl-C in a terminal signals the whole foreground group: capstan, containerd and the agent.
  const containerdPid = Number(readFileSync(join(dataDir, 'containerd', 'containerd.pid'), 'utf8'));
  const agentPid = Number(readFileSync(join(dataDir, 'network-agent.pid'), 'utf8'));
  for (const pid of [up.pid, containerdPid, agentPid]) process.kill(pid, 'SIGINT');
  await eventually(() => !alive(up.pid), 120_000, 'capstan up exited');
  t.ok(shims.every(alive), 'the shims are still running after the stop');

  /** Everything the node made is gone. */
  const nothingLeft = (t: Test) => {
    t.same(pidsMatching(dataDir), [], 'no process refers to the data dir');
    t.same([...shims, ...containers].filter(alive), [], 'no shim or container is left');
    t.same(mountsUnder(dataDir), [], 'no mount under the data dir');
    t.same(podCgroups.flatMap(cgroupDirs), [], 'the pods\' cgroups are gone');
    t.same(links(), baseline, 'only the links the namespace started with');
    t.equal(inNetns('nft', ['list', 'tables']).stdout.trim(), '', 'no nft table');
    t.equal(inNetns('ip', ['route', 'show', 'proto', '80']).stdout.trim() + inNetns('ip', ['route', 'show', 'proto', '81']).stdout.trim(), '', 'no pod or node routes');
    t.notOk(existsSync(dataDir), 'the data dir is gone');
  };
  return { up, dataDir, reset, nothingLeft };
}

t.test('capstan reset removes everything up left running', { skip: root ? false : 'needs root' }, async (t) => {
  const { up, dataDir, reset, nothingLeft } = await upWithPodsThenCtrlC(t);
  t.match(up.stdout(), /pod process\(es\) under \d+ containerd shim\(s\) keep running/, 'the stop says the pods keep running');
  t.match(up.stdout(), new RegExp(`capstan reset --data-dir ${dataDir}`), 'and how to remove them');

  const r = reset(dataDir);
  t.equal(r.status, 0, `reset exits 0: ${r.stderr}`);
  t.match(r.stdout, /removed \d+ container process\(es\)/);
  t.match(r.stdout, /removed \d+ containerd shim\(s\)/);
  t.match(r.stdout, /removed cgroups of \d+ container\(s\) in 2 pod\(s\)/);
  t.match(r.stdout, /removed nft table ip capstan-proxy/);
  t.match(r.stdout, new RegExp(`removed data dir ${dataDir}`));
  nothingLeft(t);

  const again = reset(dataDir);
  t.equal(again.status, 0);
  t.match(again.stdout, /nothing to do/, 'a second reset is a no-op');
});

t.test('capstan reset after the data dir was removed by hand still finds the orphaned pods', { skip: root ? false : 'needs root' }, async (t) => {
  const { dataDir, reset, nothingLeft } = await upWithPodsThenCtrlC(t);
  spawnSync('rm', ['-rf', dataDir]); // what a user tries first; it may stop half-way at a busy mount
  const r = reset(dataDir);
  t.equal(r.status, 0, `reset exits 0: ${r.stderr}`);
  t.match(r.stdout, /removed \d+ containerd shim\(s\)/);
  t.match(r.stdout, /removed cgroups of \d+ container\(s\) in 2 pod\(s\)/, 'the cgroups, from the live containers');
  t.match(r.stdout, /removed nft table ip capstan-proxy/);
  nothingLeft(t);
});

t.test('capstan reset refuses a dir that is not a capstan data dir', { skip: root ? false : 'needs root' }, async (t) => {
  const dir = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
  t.teardown(() => execFileSync('rm', ['-rf', dir]));
  execFileSync('touch', [join(dir, 'precious')]);
  const r = spawnSync(process.execPath, [capstanBin, 'reset', '--data-dir', dir], { encoding: 'utf8' });
  t.equal(r.status, 1);
  t.match(r.stderr, /is not a capstan data dir/);
  t.ok(existsSync(join(dir, 'precious')), 'nothing removed');
});
