// `capstan uninstall`: removes what the manifest says an install created, in the order that
// leaves nothing running behind: the kubelet first (it would restart pods), then the pods
// through CRI, the other units, containerd back to how the system had it, leftover shims,
// the pods' cgroups, the node's network (pod veths, VXLAN device, node routes, capstan's nft
// tables), mounts, and finally the files and directories, newest first.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { CRIClient } from '../../../cri/index.js';
import { cgroupHierarchies, removeCgroup, unmountUnder } from '../../kubelet/containerd/index.js';
import { dataDirProcesses } from '../../reset/index.js';
import { removeNodeNetwork, removePodVeths } from '../../reset/network.js';
import { killNow } from '../../util/index.js';
import { join } from 'node:path';
import type { InstallManifest } from './manifest.js';
import { SYSTEM_CONTAINERD_UNIT, type Layout } from './layout.js';
import { liveSocket } from './node.js';
import type { Systemctl } from './systemctl.js';

/** The kubelet's --cgroup-root in capstan-kubelet.service. */
export const POD_CGROUP_ROOT = '/capstan';

async function removePods(log: (l: string) => void): Promise<void> {
  if (!existsSync(liveSocket)) return;
  // A starved (emulated) node's containerd took more than 60 s to stop a container.
  const cri = new CRIClient({ socket: liveSocket, timeouts: { StopPodSandbox: 180_000, StopContainer: 180_000 } });
  const failed: string[] = [];
  try {
    const sandboxes = await cri.listPodSandbox();
    for (const s of sandboxes) {
      try {
        await removePod(cri, s.id);
      } catch (e) {
        failed.push(`${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? s.id}: ${(e as Error).message}`);
      }
    }
    if (sandboxes.length) log(`removed ${sandboxes.length - failed.length} of ${sandboxes.length} pod sandbox(es) and their containers`);
  } finally {
    cri.close();
  }
  if (failed.length) throw new Error(failed.join('; '));
}

/**
 * Stops and removes one pod. Its containers are stopped one by one first, and a removal that
 * containerd refuses because a task has not yet been seen to exit (FAILED_PRECONDITION "cannot
 * delete running task", seen on a slow VM right after StopPodSandbox) is tried again for a while.
 */
async function removePod(cri: CRIClient, sandboxId: string): Promise<void> {
  // A container that would not stop in time is left to StopPodSandbox, which kills what is left.
  for (const c of await cri.listContainers({ pod_sandbox_id: sandboxId })) await cri.stopContainer(c.id, 0).catch(() => undefined);
  await cri.stopPodSandbox(sandboxId);
  for (let delayMs = 250; ; delayMs *= 2) {
    try {
      await cri.removePodSandbox(sandboxId);
      return;
    } catch (e) {
      if (delayMs > 16_000 || !/running task/.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}

/** libcni's cached results of capstan's network (`<network>-<container>-<ifname>`), in a cache dir others may share. */
function removeCniResults(L: Layout, log: (l: string) => void): void {
  const dir = join(L.cniCache, 'results');
  if (!existsSync(dir)) return;
  // The networks are `capstan` (the network agent's conflist) and `capstan-ptp` (the kubelet's fallback).
  const ours = readdirSync(dir).filter((f) => f.startsWith('capstan-'));
  for (const f of ours) rmSync(join(dir, f), { force: true });
  if (ours.length) log(`removed ${ours.length} cached CNI result(s) from ${dir}`);
}

export async function uninstall(L: Layout, m: InstallManifest, sys: Systemctl, log: (l: string) => void): Promise<string[]> {
  const problems: string[] = [];
  const attempt = async (what: string, f: () => unknown) => {
    try { await f(); } catch (e) { problems.push(`${what}: ${(e as Error).message}`); }
  };
  const units = [...m.units].reverse();
  if (sys.live) {
    sys.stop(['capstan-kubelet.service']);
    if (m.containerd) await attempt('pods', () => removePods(log));
    sys.stop(units.filter((u) => u !== m.containerd?.unit));
    if (m.containerd) {
      if (m.containerd.unit === SYSTEM_CONTAINERD_UNIT) {
        // Back to the system's own configuration, running only if it ran before.
        if (m.containerd.dropIn) rmSync(m.containerd.dropIn, { force: true });
        sys.daemonReload();
        if (m.containerd.wasActive) sys.restart(SYSTEM_CONTAINERD_UNIT); else sys.stop([SYSTEM_CONTAINERD_UNIT]);
      } else sys.stop([m.containerd.unit]);
      log(`containerd (${m.containerd.unit}) ${m.containerd.wasActive ? 'restored' : 'stopped'}`);
      // Shims and container processes that outlived their sandboxes' removal.
      const left = dataDirProcesses(L.run);
      const pids = [...left.containers, ...left.shims].map((p) => p.pid);
      if (pids.length) { await killNow(pids); log(`killed ${pids.length} leftover shim/container process(es)`); }
      if (cgroupHierarchies().some((h) => existsSync(join(h, POD_CGROUP_ROOT)))) {
        const busy = removeCgroup(POD_CGROUP_ROOT);
        if (busy.length) problems.push(`cgroups busy: ${busy.join(', ')}`); else log(`removed cgroup ${POD_CGROUP_ROOT}`);
      }
      await attempt('pod veths', () => removePodVeths(L.varLib).forEach(log));
      await attempt('node network', () => removeNodeNetwork().forEach((r) => log(`removed ${r}`)));
      await attempt('CNI result cache', () => removeCniResults(L, log));
    }
    for (const dir of [L.varLib, L.run]) {
      const stuck = unmountUnder(dir);
      if (stuck.length) problems.push(`mounts remain under ${dir}: ${stuck.join(', ')}`);
    }
    // Sockets and containerd's volatile state: made by the running units, gone at the next boot anyway.
    if (existsSync(L.run)) { rmSync(L.run, { recursive: true, force: true }); log(`removed ${L.run}`); }
  }
  await attempt('disable units', () => sys.disable(units.filter((u) => existsSync(join(L.units, u)))));
  for (const path of [...m.created].reverse()) {
    if (existsSync(path)) {
      rmSync(path, { recursive: true, force: true });
      log(`removed ${path}`);
    }
  }
  sys.daemonReload();
  return problems;
}
