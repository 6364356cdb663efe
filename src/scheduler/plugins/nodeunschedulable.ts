// NodeUnschedulable: cordoned nodes (spec.unschedulable) take only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.
import { taintUnschedulable } from '../nodeinfo.js';
import { tolerates } from './tainttoleration.js';
import type { FilterPlugin } from './types.js';

const cordon = { key: taintUnschedulable, effect: 'NoSchedule' };

export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  skip: (pod) => pod.tolerations.some((t) => tolerates(t, cordon)),
  filter(pod, node) {
    if (!node.unschedulable) return null;
    for (const t of pod.tolerations) if (tolerates(t, cordon)) return null;
    return 'node(s) were unschedulable';
  },
};
