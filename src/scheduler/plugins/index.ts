// The default plugin set, in kube-scheduler's filter order (cheap, decisive checks first).
// SelectorSpread is gone, as upstream: PodTopologySpread's system defaults spread a group.
import { interPodAffinityFilter, interPodAffinityScore } from './interpodaffinity.js';
import { nodeAffinityFilter, nodeAffinityScore } from './nodeaffinity.js';
import { nodeName } from './nodename.js';
import { nodePorts } from './nodeports.js';
import { balancedAllocation, leastAllocated, nodeResourcesFit } from './noderesources.js';
import { nodeUnschedulable } from './nodeunschedulable.js';
import { podTopologySpreadFilter, podTopologySpreadScore } from './podtopologyspread.js';
import { taintTolerationFilter, taintTolerationScore } from './tainttoleration.js';
import type { FilterPlugin, ScorePlugin } from './types.js';

export const defaultFilters: FilterPlugin[] = [nodeUnschedulable, nodeName, taintTolerationFilter, nodeAffinityFilter, nodePorts, nodeResourcesFit, podTopologySpreadFilter, interPodAffinityFilter];
export const defaultScorers: ScorePlugin[] = [taintTolerationScore, nodeAffinityScore, leastAllocated, balancedAllocation, podTopologySpreadScore, interPodAffinityScore];

export * from './types.js';
export {
  nodeAffinityFilter, nodeAffinityScore, nodeName, nodePorts, balancedAllocation, leastAllocated, nodeResourcesFit, nodeUnschedulable,
  taintTolerationFilter, taintTolerationScore, interPodAffinityFilter, interPodAffinityScore, podTopologySpreadFilter, podTopologySpreadScore,
};
export { tolerates } from './tainttoleration.js';
export { errAffinity, errAntiAffinity, errExistingAntiAffinity } from './interpodaffinity.js';
export { errConstraintsNotMatch, errMissingLabel } from './podtopologyspread.js';
