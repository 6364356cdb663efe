// The kubelet's stats API (`GET /stats/summary`, k8s.io/kubelet pkg/apis/stats/v1alpha1),
// reduced to the fields capstan fills: node CPU, memory and filesystem, and per pod and
// container CPU and memory. Times are RFC 3339 strings, counters plain numbers, as the JSON
// upstream's kubelet writes.

export interface CPUStats {
  time: string;
  /** Average over the last sampling window, in nanocores (absent when not measured yet). */
  usageNanoCores?: number;
  /** Cumulative CPU time since the object's creation, in core-nanoseconds. */
  usageCoreNanoSeconds: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  /** Usage minus inactive file pages: what the OOM killer and evictions look at. */
  workingSetBytes: number;
  rssBytes?: number;
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  fs?: FsStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** A pod's CPU and memory as the sum of its containers' (what a summary without pod cgroup figures reports). */
export function podTotals(containers: ContainerStats[], time: string): { cpu?: CPUStats; memory?: MemoryStats } {
  const cpus = containers.map((c) => c.cpu).filter((c): c is CPUStats => !!c);
  const mems = containers.map((c) => c.memory).filter((m): m is MemoryStats => !!m);
  return {
    cpu: cpus.length ? { time, usageCoreNanoSeconds: cpus.reduce((s, c) => s + c.usageCoreNanoSeconds, 0), ...(cpus.every((c) => c.usageNanoCores !== undefined) ? { usageNanoCores: cpus.reduce((s, c) => s + (c.usageNanoCores ?? 0), 0) } : {}) } : undefined,
    memory: mems.length ? { time, workingSetBytes: mems.reduce((s, m) => s + m.workingSetBytes, 0) } : undefined,
  };
}
