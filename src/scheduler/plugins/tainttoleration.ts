// TaintToleration: NoSchedule and NoExecute taints filter; PreferNoSchedule taints only
// lower the score (fewer untolerated ones is better).
import type { Taint } from '../nodeinfo.js';
import type { Toleration } from '../podinfo.js';
import { normalize, type FilterPlugin, type ScorePlugin } from './types.js';

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if ((t.operator ?? 'Equal') === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

function tolerated(tolerations: Toleration[], taint: Taint): boolean {
  for (const t of tolerations) if (tolerates(t, taint)) return true;
  return false;
}

export const taintTolerationFilter: FilterPlugin = {
  name: 'TaintToleration',
  filter(pod, node) {
    for (const taint of node.taints) {
      if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
      if (!tolerated(pod.tolerations, taint)) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
    }
    return null;
  },
};

export const taintTolerationScore: ScorePlugin = {
  name: 'TaintToleration',
  weight: 3,
  score(pod, nodes, out) {
    const preferNo = pod.tolerations.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    for (let i = 0; i < nodes.length; i++) {
      let count = 0;
      for (const taint of nodes[i].taints) if (taint.effect === 'PreferNoSchedule' && !tolerated(preferNo, taint)) count++;
      out[i] = count;
    }
    normalize(out, nodes.length, true);
  },
};
