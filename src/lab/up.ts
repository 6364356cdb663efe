// `lab up`: the namespaces and links, then the control plane, then one `capstan node` per
// node namespace, all detached; returns once every node is Ready, or tears down and throws.
// The API server is reached from the host on a loopback port like kind's: `lab up` opens the
// listening socket here, in the host namespace, and hands it to the control plane.
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { labTopology, type LabTopology } from './topology.js';
import { addNetns, attachHost, buildRouter, listNetns, sysctl } from './network.js';
import { alive, capstanBin, kubectl, spawnInNetns, startTime, tail } from './processes.js';
import { spawn } from 'node:child_process';
import { readState, writeState, type LabState } from './state.js';
import { hostListener } from './host-listener.js';
import { labDown } from './down.js';
import { waitWhileProgressing } from './progress-wait.js';

export interface LabUpOptions {
  dir: string;
  nodes: number;
  subnets: number;
  readyTimeoutMs?: number;
  /**
   * The control plane is waited for while it makes progress (log lines or CPU): given up on
   * after this long without any (default 60 s), or after controlPlaneLimitMs in all (600 s).
   */
  controlPlaneStallMs?: number;
  controlPlaneLimitMs?: number;
  /** Passed to the control plane's `capstan up` as they are (e.g. --metric-resolution, --horizontal-pod-autoscaler-sync-period). */
  controlPlaneArgs?: string[];
  log?: (s: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, ms: number, check: () => boolean | string): Promise<void> {
  for (const until = Date.now() + ms; ;) {
    const r = check();
    if (r === true) return;
    if (typeof r === 'string') throw new Error(r);
    if (Date.now() > until) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await sleep(500);
  }
}

export async function labUp(o: LabUpOptions): Promise<LabState> {
  const log = o.log ?? (() => undefined);
  const dir = resolve(o.dir);
  if (readState(dir)) throw new Error(`${dir} already holds a lab; run \`capstan lab down --dir ${dir}\` first`);
  if (process.getuid?.() !== 0) throw new Error('capstan lab needs root (network namespaces, containerd)');
  let topology: LabTopology;
  for (;;) {
    topology = labTopology(randomBytes(2).toString('hex'), o.nodes, o.subnets);
    const taken = new Set(listNetns());
    if (![topology.routerNetns, topology.controlPlane.netns].some((n) => taken.has(n))) break;
  }
  mkdirSync(join(dir, 'logs'), { recursive: true, mode: 0o700 });
  const state: LabState = { version: 1, dir, topology, namespaces: [], processes: [], cgroups: [] };
  writeState(state);
  try {
    await build(state, o, log);
  } catch (e) {
    log(`lab up failed, tearing down: ${(e as Error).message}`);
    await labDown(dir, log).catch((err: Error) => log(`tearing down failed too (run \`capstan lab down\`): ${err.message}`));
    throw e;
  }
  return state;
}

function record(state: LabState, f: (s: LabState) => void): void {
  f(state);
  writeState(state);
}

async function build(state: LabState, o: LabUpOptions, log: (s: string) => void): Promise<void> {
  const t = state.topology;
  const dir = state.dir;
  log(`lab ${t.id}: router, ${t.segments.length} segment(s), control plane, ${t.nodes.length} node(s)`);
  record(state, (s) => s.namespaces.push(t.routerNetns));
  addNetns(t.routerNetns);
  buildRouter(t);
  record(state, (s) => s.namespaces.push(t.controlPlane.netns));
  addNetns(t.controlPlane.netns);
  attachHost(t, t.controlPlane.netns, t.controlPlane.routerIf, 0, t.controlPlane.ip);
  for (const n of t.nodes) {
    record(state, (s) => s.namespaces.push(n.netns));
    addNetns(n.netns);
    attachHost(t, n.netns, n.routerIf, n.segment, n.ip);
    sysctl(n.netns, 'net.ipv4.ip_forward', '1');
  }

  const cpDir = join(dir, 'control-plane');
  const cpLog = join(dir, 'logs', 'control-plane.log');
  // The child gets the socket as fd 3; our copy closes once it has it (the socket lives on in the child).
  const host = await hostListener();
  let cpPid: number;
  try {
    cpPid = spawnInNetns(t.controlPlane.netns, ['up', '--no-node', '--data-dir', cpDir, '--bind-address', t.controlPlane.ip, '--port', String(t.apiPort),
      '--extra-listen-fd', '3', ...(o.controlPlaneArgs ?? [])], cpLog, [host.fd]);
  } finally {
    host.close();
  }
  record(state, (s) => s.processes.push({ name: 'control-plane', pid: cpPid, netns: t.controlPlane.netns, log: cpLog, start: startTime(cpPid) }));
  await waitWhileProgressing({
    what: `the control plane (capstan up in ${t.controlPlane.netns}) to log "capstan is ready"`, pid: cpPid, log: cpLog,
    stallMs: o.controlPlaneStallMs ?? 60_000, limitMs: o.controlPlaneLimitMs ?? 600_000,
    check: () => {
      if (readFileSync(cpLog, 'utf8').includes('capstan is ready')) return true;
      return alive(cpPid) ? false : `the control plane exited:\n${tail(cpLog)}`;
    },
  });
  // Two kubeconfigs: the host's (loopback socket) and the nodes' (10.77.0.2, inside the lab).
  const kubeconfig = join(dir, 'admin.kubeconfig');
  const internal = join(dir, 'internal.kubeconfig');
  copyFileSync(join(cpDir, 'extra-listener.kubeconfig'), kubeconfig);
  copyFileSync(join(cpDir, 'admin.kubeconfig'), internal);
  record(state, (s) => { s.kubeconfig = kubeconfig; s.internalKubeconfig = internal; s.hostServer = `https://${host.address}:${host.port}`; });
  log(`control plane ready at https://${t.controlPlane.ip}:${t.apiPort} in the lab, https://${host.address}:${host.port} from the host`);

  // Nodes join with a bootstrap token and nothing else (kubeadm's discovery, the kubelet's
  // certificate from a CSR; the node then requests its proxy's, network agent's and DNS's
  // certificates with CSRs too): no node holds the CA's key.
  const join_ = await joinCommand(dir, kubeconfig);
  for (const n of t.nodes) {
    const nodeLog = join(dir, 'logs', `${n.name}.log`);
    const nodeDir = join(dir, 'nodes', n.name);
    mkdirSync(join(nodeDir, 'pki'), { recursive: true, mode: 0o700 });
    record(state, (s) => s.cgroups.push(n.cgroupRoot));
    const pid = spawnInNetns(n.netns, ['join', '--server', `https://${t.controlPlane.ip}:${t.apiPort}`, '--token', join_.token,
      '--discovery-token-ca-cert-hash', join_.hash, '--data-dir', nodeDir, '--node-name', n.name, '--node-ip', n.ip, '--cgroup-root', n.cgroupRoot], nodeLog);
    record(state, (s) => s.processes.push({ name: n.name, pid, netns: n.netns, log: nodeLog, start: startTime(pid) }));
  }
  let last = '';
  await waitFor('all nodes Ready', o.readyTimeoutMs ?? 240_000, () => {
    for (const p of state.processes) if (!alive(p.pid)) return `${p.name} exited:\n${tail(p.log)}`;
    try {
      const items = (JSON.parse(kubectl(kubeconfig, ['get', 'nodes', '-o', 'json'])) as { items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }).items;
      const ready = items.filter((i) => i.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((i) => i.metadata.name);
      const now = `${ready.length}/${t.nodes.length} nodes Ready`;
      if (now !== last) { log(now); last = now; }
      return t.nodes.every((n) => ready.includes(n.name));
    } catch { // the API server is not answering yet: poll again
      return false;
    }
  });
}

/**
 * A bootstrap token and the CA hash, from `capstan token create` run as the lab's admin. A
 * process start takes over 30 s at load 35, so it is waited for while it makes progress too.
 */
async function joinCommand(dir: string, kubeconfig: string): Promise<{ token: string; hash: string }> {
  const log = join(dir, 'logs', 'token-create.log');
  const fd = openSync(log, 'w');
  let exit: string | number | undefined;
  const child = spawn(process.execPath, [capstanBin, 'token', 'create', '--ttl', '2h', '--description', 'capstan lab nodes', '--kubeconfig', kubeconfig], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.on('exit', (code, sig) => { exit = code ?? sig ?? 'unknown'; });
  child.on('error', (e) => { exit = e.message; });
  try {
    await waitWhileProgressing({
      what: '`capstan token create` to print the nodes\' join command', pid: child.pid ?? -1, log, stallMs: 60_000, limitMs: 300_000,
      check: () => (exit === undefined ? false : exit === 0 ? true : `capstan token create failed (${exit}):\n${tail(log)}`),
    });
  } finally {
    if (exit === undefined) child.kill('SIGKILL');
  }
  const out = readFileSync(log, 'utf8');
  const m = / --token (\S+) --discovery-token-ca-cert-hash (\S+)/.exec(out);
  if (!m) throw new Error(`capstan token create printed no join command: ${out}`);
  return { token: m[1], hash: m[2] };
}

export function usage(state: LabState): string {
  const t = state.topology;
  return [
    `lab ${t.id} is up: ${t.nodes.length} node(s) on ${t.segments.length} segment(s), API server ${state.hostServer} (https://${t.controlPlane.ip}:${t.apiPort} inside the lab)`,
    ...t.nodes.map((n) => `  ${n.name.padEnd(8)} ${n.ip.padEnd(12)} segment ${n.segment}  netns ${n.netns}`),
    `  export KUBECONFIG=${state.kubeconfig}`,
    `  kubectl get nodes -o wide            (or: capstan lab kubectl --dir ${state.dir} -- get nodes -o wide)`,
    `Logs: ${join(state.dir, 'logs')}. Tear down: capstan lab down --dir ${state.dir}`,
    '',
  ].join('\n');
}

export function labExists(dir: string): boolean {
  return existsSync(join(resolve(dir), 'lab.json'));
}
