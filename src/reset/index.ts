// `capstan reset`: stops and removes everything `capstan up` (or `capstan node`) created for
// one data dir — kubeadm reset / k3s-killall in spirit. In order: the capstan processes of the
// dir (SIGTERM: they shut down in order), its containerd, the shims and containers left
// running, their cgroups, mounts under the dir, the node's network devices, routes and nft
// tables, then the dir. Everything is found from the dir and verified to belong to it;
// everything absent is skipped, so a second reset does nothing. See DESIGN.md.
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve, basename } from 'node:path';
import { cgroupHierarchies, cgroupPids, removeCgroup, unmountUnder } from '../kubelet/containerd/index.js';
import { killNow, terminate } from '../util/index.js';
import { dataDirProcesses, otherNodeInThisNetns, type ProcessInfo } from './processes.js';
import { removeNodeNetwork, removePodVeths } from './network.js';

export { dataDirProcesses, type DataDirProcesses } from './processes.js';

export class NotADataDirError extends Error {}

export interface ResetReport {
  removed: string[];
  problems: string[];
}

/** A dir `capstan up` or `capstan node` made: the cluster CA it trusts, and its kubeconfig or a capstan-written containerd config. */
export function isCapstanDataDir(dir: string): boolean {
  if (!existsSync(join(dir, 'pki', 'ca.crt'))) return false;
  if (existsSync(join(dir, 'admin.kubeconfig'))) return true;
  try {
    return readFileSync(join(dir, 'containerd', 'config.toml'), 'utf8').startsWith('# Written by capstan');
  } catch { // no capstan containerd config: not a node's data dir
    return false;
  }
}

/** The cgroups of the dir's containers, from the OCI bundles in its containerd state (cgroupfs paths). */
function containerCgroups(dir: string): string[] {
  const base = join(dir, 'containerd', 'state', 'io.containerd.runtime.v2.task');
  const subdirs = (d: string) => { try { return readdirSync(d); } catch { return []; } }; // no state dir: no bundles
  const out = new Set<string>();
  for (const ns of subdirs(base)) {
    for (const id of subdirs(join(base, ns))) {
      try {
        const path = JSON.parse(readFileSync(join(base, ns, id, 'config.json'), 'utf8'))?.linux?.cgroupsPath;
        if (typeof path === 'string' && path.startsWith('/') && !path.split('/').includes('..')) out.add(path);
      } catch { /* no bundle config */ }
    }
  }
  return [...out];
}

/** A process's cgroup (cgroupfs: the same path in every hierarchy), if not the root. */
function processCgroup(pid: number): string | undefined {
  try {
    const paths = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').map((l) => l.slice(l.indexOf(':', l.indexOf(':') + 1) + 1)).filter((p) => p.startsWith('/') && p !== '/');
    return paths.find((p) => !p.split('/').includes('..'));
  } catch { // the process is gone
    return undefined;
  }
}

const describe = (p: ProcessInfo) => `${p.pid} (${p.args.slice(0, 3).map((a) => basename(a)).join(' ')})`;

/** rmdir, never recursive: a parent another node still uses is left alone. */
function pruneEmptyParents(path: string): void {
  for (let p = dirname(path); p !== '/' && p !== '.'; p = dirname(p)) {
    for (const h of cgroupHierarchies()) {
      try { rmdirSync(join(h, p)); } catch { /* busy, or not there */ }
    }
  }
}

export async function resetDataDir(dirArg: string, log: (line: string) => void = () => undefined): Promise<ResetReport> {
  const dir = resolve(dirArg);
  const removed: string[] = [];
  const problems: string[] = [];
  const exists = existsSync(dir);
  let procs = dataDirProcesses(dir);
  // Processes running on it prove a dir is (what is left of) a data dir, e.g. after a failed `rm -rf`.
  const running = [...procs.capstan, ...procs.containerd, ...procs.shims].length > 0;
  if (exists && existsSync(join(dir, 'lab.json'))) throw new NotADataDirError(`${dir} holds a lab: use \`capstan lab down --dir ${dir}\``);
  if (exists && !running && !isCapstanDataDir(dir)) throw new NotADataDirError(`${dir} is not a capstan data dir (no pki/ca.crt with admin.kubeconfig or a containerd config written by capstan); refusing to touch it`);
  const done = (what: string) => { removed.push(what); log(`removed ${what}`); };

  // Read before anything below removes the bundles or the processes: the containers' cgroups.
  // Only the kubelet's layout (<root>/kubepods[/<qos>]/pod<uid>/<container>): never a cgroup someone else made.
  const cgroups = [...new Set([...(exists ? containerCgroups(dir) : []), ...procs.containers.flatMap((p) => processCgroup(p.pid) ?? [])])]
    .filter((c) => basename(dirname(c)).startsWith('pod') && c.split('/').includes('kubepods'));
  const hadNode = (exists && existsSync(join(dir, 'containerd'))) || procs.containerd.length > 0 || procs.shims.length > 0;

  if (procs.capstan.length) {
    log(`stopping ${procs.capstan.map(describe).join(', ')}`);
    await terminate(procs.capstan.map((p) => p.pid), 30_000);
    procs.capstan.forEach((p) => done(`process ${describe(p)}`));
    procs = dataDirProcesses(dir);
  }
  if (procs.containerd.length) {
    await terminate(procs.containerd.map((p) => p.pid), 10_000);
    procs.containerd.forEach((p) => done(`process ${describe(p)}`));
    procs = dataDirProcesses(dir);
  }
  // Pods outlive containerd (their shims do): containers first, then their shims.
  if (procs.containers.length) {
    await killNow(procs.containers.map((p) => p.pid));
    done(`${procs.containers.length} container process(es) (${procs.containers.map((p) => p.pid).join(', ')})`);
  }
  if (procs.shims.length) {
    await killNow(procs.shims.map((p) => p.pid));
    done(`${procs.shims.length} containerd shim(s) (${procs.shims.map((p) => p.pid).join(', ')})`);
  }
  const stray = cgroups.flatMap((c) => cgroupPids(c));
  if (stray.length) {
    await killNow(stray);
    done(`${stray.length} process(es) left in the containers' cgroups`);
  }
  const present = cgroups.filter((c) => cgroupHierarchies().some((h) => existsSync(join(h, c))));
  for (const c of present) {
    const busy = [...removeCgroup(c), ...removeCgroup(dirname(c))];
    if (busy.length) problems.push(`cgroup busy: ${busy.join(', ')}`);
    pruneEmptyParents(dirname(c));
  }
  const pods = new Set(present.map((c) => dirname(c)));
  if (present.length) done(`cgroups of ${present.length} container(s) in ${pods.size} pod(s)`);

  if (exists) {
    try {
      removePodVeths(dir).forEach(done);
    } catch (e) { problems.push(`pod veths: ${(e as Error).message}`); }
  }
  const other = hadNode ? otherNodeInThisNetns(dir) : undefined;
  if (other) problems.push(`another capstan node runs in this network namespace (pid ${other.pid}); left vxlan.capstan, node routes and nft tables alone`);
  else if (hadNode) {
    try {
      removeNodeNetwork().forEach(done);
    } catch (e) { problems.push(`node network: ${(e as Error).message}`); }
  }
  if (exists) {
    const stuck = unmountUnder(dir);
    if (stuck.length) problems.push(`mounts remain under ${dir} (${stuck.join(', ')}); left it in place`);
    else {
      rmSync(dir, { recursive: true, force: true });
      done(`data dir ${dir}`);
    }
  }
  return { removed, problems };
}
