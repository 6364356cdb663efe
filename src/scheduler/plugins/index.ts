// The default plugin set, in kube-scheduler's filter order (cheap, decisive checks first).
import { nodeAffinityFilter, nodeAffinityScore } from './nodeaffinity.js';
import { nodeName } from './nodename.js';
import { nodePorts } from './nodeports.js';
import { balancedAllocation, leastAllocated, nodeResourcesFit } from './noderesources.js';
import { nodeUnschedulable } from './nodeunschedulable.js';
import { selectorSpread } from './spread.js';
import { taintTolerationFilter, taintTolerationScore } from './tainttoleration.js';
import type { FilterPlugin, ScorePlugin } from './types.js';

export const defaultFilters: FilterPlugin[] = [nodeUnschedulable, nodeName, taintTolerationFilter, nodeAffinityFilter, nodePorts, nodeResourcesFit];
export const defaultScorers: ScorePlugin[] = [taintTolerationScore, nodeAffinityScore, leastAllocated, balancedAllocation, selectorSpread];

export * from './types.js';
export { nodeAffinityFilter, nodeAffinityScore, nodeName, nodePorts, balancedAllocation, leastAllocated, nodeResourcesFit, nodeUnschedulable, selectorSpread, taintTolerationFilter, taintTolerationScore };
export { tolerates } from './tainttoleration.js';
