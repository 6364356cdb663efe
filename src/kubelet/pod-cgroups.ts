// Pod-level cgroups, after upstream's pod container manager: each pod gets
// <root>/kubepods[/burstable|/besteffort]/pod<uid> before its sandbox starts, with the
// limits of the whole pod — cpu shares from the summed requests (2 for BestEffort), a CFS
// quota when every container has a cpu limit, a memory limit when every container has a
// memory limit — so the pod as a whole cannot take more than it declared even between
// its containers' own cgroups. cgroupfs only (no systemd here); v1 and v2 files.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { podLimits, podRequests } from '../api/core/pod-resources.js';
import { cgroupHierarchies } from './containerd/index.js';
import { CPU_PERIOD_US } from './container-config.js';
import { containersOf, initContainersOf, qosClass } from './pod-spec.js';
import type { Pod } from '../api/kinds.js';

const MIN_SHARES = 2;

export interface CgroupResources {
  cpuShares: number;
  cpuQuotaUs?: number;
  cpuPeriodUs?: number;
  memoryLimitBytes?: number;
}

const sharesFor = (milli: number) => Math.max(MIN_SHARES, Math.floor((milli * 1024) / 1000));

/** What the pod's cgroup is limited to (upstream's ResourceConfigForPod). */
export function podCgroupResources(pod: Pod): CgroupResources {
  const qos = qosClass(pod);
  if (qos === 'BestEffort') return { cpuShares: MIN_SHARES };
  const all = [...initContainersOf(pod), ...containersOf(pod)];
  const declared = (r: string) => all.every((c) => (c.resources?.limits as Record<string, string> | undefined)?.[r] !== undefined);
  const req = podRequests(pod.spec);
  const lim = podLimits(pod.spec);
  const out: CgroupResources = { cpuShares: sharesFor(req.get('cpu') ?? lim.get('cpu') ?? 0) };
  if (qos === 'Guaranteed' || declared('cpu')) {
    out.cpuPeriodUs = CPU_PERIOD_US;
    out.cpuQuotaUs = Math.max(1000, Math.floor(((lim.get('cpu') ?? 0) * CPU_PERIOD_US) / 1000));
  }
  if (qos === 'Guaranteed' || declared('memory')) out.memoryLimitBytes = Math.floor((lim.get('memory') ?? 0) / 1000);
  return out;
}

/** Writes a cgroup file this hierarchy has (v1 and v2 name them differently). */
async function write(dir: string, file: string, value: string | number): Promise<void> {
  const path = join(dir, file);
  if (await access(path).then(() => true, () => false)) await writeFile(path, String(value));
}

/** Creates the cgroup `path` (cgroupfs syntax) in every hierarchy and sets its limits;
 *  BestEffort's tier gets the minimum cpu shares, as upstream's QoS container manager.
 *  Asynchronous: creating a cgroup can take long on a busy machine, and the kubelet shares
 *  its event loop with every other pod's work. */
export async function ensurePodCgroup(path: string, res: CgroupResources, root = '/sys/fs/cgroup'): Promise<void> {
  const rel = path.replace(/^\/+/, '');
  for (const h of cgroupHierarchies(root)) {
    const dir = join(h, rel);
    await mkdir(dir, { recursive: true });
    const tier = join(dir, '..');
    if (tier.endsWith('/besteffort')) {
      await write(tier, 'cpu.shares', MIN_SHARES);
      await write(tier, 'cpu.weight', 1);
    }
    await write(dir, 'cpu.shares', res.cpuShares);
    await write(dir, 'cpu.weight', 1 + Math.floor(((res.cpuShares - 2) * 9999) / 262142));
    if (res.cpuQuotaUs !== undefined) {
      await write(dir, 'cpu.cfs_period_us', res.cpuPeriodUs!);
      await write(dir, 'cpu.cfs_quota_us', res.cpuQuotaUs);
      await write(dir, 'cpu.max', `${res.cpuQuotaUs} ${res.cpuPeriodUs}`);
    }
    if (res.memoryLimitBytes !== undefined) {
      await write(dir, 'memory.limit_in_bytes', res.memoryLimitBytes);
      await write(dir, 'memory.max', res.memoryLimitBytes);
    }
  }
}
