// NodeResourcesFit (filter), NodeResourcesLeastAllocated and NodeResourcesBalancedAllocation
// (scores) over the NodeInfo running totals: no per-node walk over its pods.
import { maxNodeScore, type FilterPlugin, type ScorePlugin } from './types.js';

export const nodeResourcesFit: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(pod, node) {
    const want = pod.requests;
    let freePods = node.freePods, freeCPU = node.freeMilliCPU, freeMemory = node.freeMemory, freeStorage = node.freeEphemeralStorage;
    if (node.nominated.size) {
      for (const p of node.nominated.values()) {
        if (p.uid === pod.uid || p.priority < pod.priority) continue;
        freePods--; freeCPU -= p.requests.milliCPU; freeMemory -= p.requests.memory; freeStorage -= p.requests.ephemeralStorage;
      }
    }
    const pods = freePods < 1;
    const cpu = want.milliCPU > 0 && want.milliCPU > freeCPU;
    const memory = want.memory > 0 && want.memory > freeMemory;
    const storage = want.ephemeralStorage > 0 && want.ephemeralStorage > freeStorage;
    if (!pods && !cpu && !memory && !storage && !want.scalar) return null;
    const a = node.allocatable, used = node.requested;
    // The uncommon path: say everything that is short, as Kubernetes does.
    const reasons: string[] = [];
    if (pods) reasons.push('Too many pods');
    if (cpu) reasons.push('Insufficient cpu');
    if (memory) reasons.push('Insufficient memory');
    if (storage) reasons.push('Insufficient ephemeral-storage');
    for (const [name, q] of Object.entries(want.scalar ?? {})) {
      if (q > 0 && q > (a.scalar?.[name] ?? 0) - (used.scalar?.[name] ?? 0)) reasons.push(`Insufficient ${name}`);
    }
    return reasons.length ? reasons : null;
  },
};

/** Fraction of `allocatable` left after adding the pod, scaled to 0..maxNodeScore. */
function least(requested: number, allocatable: number): number {
  if (allocatable <= 0 || requested > allocatable) return 0;
  return ((allocatable - requested) * maxNodeScore) / allocatable;
}

export const leastAllocated: ScorePlugin = {
  name: 'NodeResourcesLeastAllocated',
  weight: 1,
  score(pod, nodes, out) {
    const cpu = pod.nonZero.milliCPU, mem = pod.nonZero.memory;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      out[i] = (least(n.nonZeroMilliCPU + cpu, n.allocMilliCPU) + least(n.nonZeroMemory + mem, n.allocMemory)) / 2;
    }
  },
};

export const balancedAllocation: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  weight: 1,
  score(pod, nodes, out) {
    const cpu = pod.requests.milliCPU, mem = pod.requests.memory;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      const fc = n.allocMilliCPU > 0 ? Math.min(1, (n.reqMilliCPU + cpu) / n.allocMilliCPU) : 1;
      const fm = n.allocMemory > 0 ? Math.min(1, (n.reqMemory + mem) / n.allocMemory) : 1;
      // The standard deviation of two fractions is half their difference.
      out[i] = (1 - Math.abs(fc - fm) / 2) * maxNodeScore;
    }
  },
};
