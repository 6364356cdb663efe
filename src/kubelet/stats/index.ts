// The kubelet's stats: one summary (node from the kernel, pods from CRI) behind
// /stats/summary and /metrics/resource.
import type { CRIRuntime } from '../../../cri/index.js';
import type { Summary } from '../../api/stats/summary.js';
import { NodeStatsReader } from './node.js';
import { podStats } from './pods.js';

export { NodeStatsReader } from './node.js';
export { podStats } from './pods.js';

export interface StatsOptions {
  cri: Pick<CRIRuntime, 'listContainerStats' | 'listContainers' | 'listPodSandbox'>;
  nodeName: string;
  /** The kubelet's root directory: node.fs is its filesystem. */
  rootDir: string;
  procDir?: string;
  now?: () => Date;
}

export function summaryProvider(o: StatsOptions): () => Promise<Summary> {
  const node = new NodeStatsReader(o.rootDir, o.procDir);
  let boot: Promise<string> | undefined;
  return async () => {
    const now = o.now?.() ?? new Date();
    const [cpu, memory, fs, startTime, pods] = await Promise.all([node.cpu(now), node.memory(now), node.fs(now), boot ??= node.bootTime(), podStats(o.cri)]);
    return { node: { nodeName: o.nodeName, startTime, cpu, memory, fs }, pods };
  };
}
