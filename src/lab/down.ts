// `lab down`: removes what the state file lists, in an order that lets the components clean
// up after themselves first (nodes stop their pods), then forcibly: processes by PID, any
// process still in a lab namespace, pod cgroups, mounts under the lab dir, namespaces, the dir.
// Idempotent: everything absent is skipped, so it also finishes a half-done teardown.
import { rmSync, existsSync } from 'node:fs';
import { cgroupPids, removeCgroup, unmountUnder } from '../kubelet/containerd/index.js';
import { deleteNetns, netnsPids } from './network.js';
import { alive, killNow, startTime, terminate } from '../util/index.js';
import { readState, type LabState } from './state.js';

export interface DownReport { problems: string[] }

export async function labDown(dir: string, log: (s: string) => void = () => undefined): Promise<DownReport> {
  const problems: string[] = [];
  const state = readState(dir);
  if (!state) {
    if (existsSync(dir)) log(`no lab state in ${dir}; nothing to do`);
    return { problems };
  }
  await teardown(state, log, problems);
  const stuck = unmountUnder(state.dir);
  if (stuck.length === 0) rmSync(state.dir, { recursive: true, force: true });
  else problems.push(`mounts remain under ${state.dir} (${stuck.join(', ')}); left it in place`);
  return { problems };
}

async function teardown(state: LabState, log: (s: string) => void, problems: string[]): Promise<void> {
  const mine = state.processes.filter((p) => alive(p.pid) && startTime(p.pid) === p.start);
  // Nodes first (graceful: they stop their pods and containerd), then the control plane.
  const nodes = mine.filter((p) => p.name !== 'control-plane').map((p) => p.pid);
  if (nodes.length) { log(`stopping ${nodes.length} node(s)`); await terminate(nodes, 30_000); }
  const cp = mine.filter((p) => p.name === 'control-plane').map((p) => p.pid);
  if (cp.length) { log('stopping the control plane'); await terminate(cp, 15_000); }
  // After a crash: containerd, shims and anything else still inside a lab namespace.
  for (const ns of state.namespaces) {
    const left = netnsPids(ns);
    if (left.length) { log(`killing ${left.length} process(es) left in ${ns}`); await terminate(left, 3000); }
  }
  // Pods run in namespaces of their own; their cgroups (under each node's root) find them.
  for (const cg of state.cgroups) {
    const left = cgroupPids(cg);
    if (left.length) {
      log(`killing ${left.length} pod process(es) in cgroup ${cg}`);
      await killNow(left);
    }
    const busy = removeCgroup(cg);
    if (busy.length) problems.push(`cgroup busy: ${busy.join(', ')}`);
  }
  for (const ns of [...state.namespaces].reverse()) {
    try { deleteNetns(ns); } catch (e) { problems.push(`netns ${ns}: ${(e as Error).message}`); }
  }
}
