// NodeResourcesFit (filter), NodeResourcesLeastAllocated and NodeResourcesBalancedAllocation
// (scores) over the NodeInfo running totals: no per-node walk over its pods.
import { maxNodeScore, type FilterPlugin, type ScorePlugin } from './types.js';

export const nodeResourcesFit: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(pod, node) {
    let reasons: string[] | null = null;
    const add = (r: string) => { (reasons ??= []).push(r); };
    if (node.pods.size + 1 > node.allocatable.pods) add('Too many pods');
    const want = pod.requests, a = node.allocatable, used = node.requested;
    if (want.milliCPU > 0 && want.milliCPU > a.milliCPU - used.milliCPU) add('Insufficient cpu');
    if (want.memory > 0 && want.memory > a.memory - used.memory) add('Insufficient memory');
    if (want.ephemeralStorage > 0 && want.ephemeralStorage > a.ephemeralStorage - used.ephemeralStorage) add('Insufficient ephemeral-storage');
    if (want.scalar) {
      for (const [name, q] of Object.entries(want.scalar)) {
        if (q > 0 && q > (a.scalar?.[name] ?? 0) - (used.scalar?.[name] ?? 0)) add(`Insufficient ${name}`);
      }
    }
    return reasons;
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
      out[i] = (least(n.nonZeroRequested.milliCPU + cpu, n.allocatable.milliCPU) + least(n.nonZeroRequested.memory + mem, n.allocatable.memory)) / 2;
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
      const fc = n.allocatable.milliCPU > 0 ? Math.min(1, (n.requested.milliCPU + cpu) / n.allocatable.milliCPU) : 1;
      const fm = n.allocatable.memory > 0 ? Math.min(1, (n.requested.memory + mem) / n.allocatable.memory) : 1;
      // The standard deviation of two fractions is half their difference.
      out[i] = (1 - Math.abs(fc - fm) / 2) * maxNodeScore;
    }
  },
};
