// SelectorSpread: fewer pods of the same group on a node (and in its zone) scores higher, so
// replicas of one workload land apart. A group is the pods with the same controlling owner,
// plus the pods in the namespace that a Service selecting this pod also selects. Owner
// counts come from NodeInfo's running totals; Service membership needs a walk over the
// node's pods, done only when a Service selects the pod. Zones weigh 2/3 when nodes carry
// zone labels, as in kube-scheduler's SelectorSpread.
import { matches } from '../../api/labels.js';
import { zoneCount, type NodeInfo } from '../nodeinfo.js';
import type { PodInfo } from '../podinfo.js';
import { maxNodeScore, type CycleState, type ScorePlugin } from './types.js';

const zoneWeighting = 2 / 3;

let tally = new Float64Array(16);
/** A zeroed scratch array of at least `n` zone slots (reused: scoring is single-threaded). */
function zoneTally(n: number): Float64Array {
  if (tally.length < n) tally = new Float64Array(n * 2);
  tally.fill(0, 0, n);
  return n === tally.length ? tally : tally.subarray(0, n);
}

function countOn(pod: PodInfo, node: NodeInfo, state: CycleState): number {
  const owner = pod.ownerUID;
  if (!state.serviceSelectors.length) {
    if (!owner) return 0;
    return state.ownerNodes ? state.ownerNodes.get(node) ?? 0 : node.ownerCounts.get(owner) ?? 0;
  }
  let count = 0;
  for (const other of node.pods.values()) {
    if (owner && other.ownerUID === owner) { count++; continue; }
    if (other.namespace !== pod.namespace) continue;
    const labels = other.pod.metadata.labels;
    for (const sel of state.serviceSelectors) if (matches(sel, labels)) { count++; break; }
  }
  return count;
}

export const selectorSpread: ScorePlugin = {
  name: 'SelectorSpread',
  weight: 2,
  score(pod, nodes, out, state) {
    const n = nodes.length;
    const noGroup = !pod.ownerUID && !state.serviceSelectors.length;
    const noneYet = !state.serviceSelectors.length && state.ownerNodes !== undefined && state.ownerNodes.size === 0;
    if (noGroup || noneYet) { out.fill(maxNodeScore, 0, n); return; }
    let maxNode = 0;
    const zones = zoneTally(zoneCount());
    let zoned = false;
    for (let i = 0; i < n; i++) {
      const c = countOn(pod, nodes[i], state);
      out[i] = c;
      if (c > maxNode) maxNode = c;
      const z = nodes[i].zoneId;
      if (z >= 0) { zones[z] += c; zoned = true; }
    }
    let maxZone = 0;
    if (zoned) for (const c of zones) if (c > maxZone) maxZone = c;
    for (let i = 0; i < n; i++) {
      let s = maxNode > 0 ? (maxNodeScore * (maxNode - out[i])) / maxNode : maxNodeScore;
      const z = nodes[i].zoneId;
      if (zoned && z >= 0) {
        const zs = maxZone > 0 ? (maxNodeScore * (maxZone - zones[z])) / maxZone : maxNodeScore;
        s = s * (1 - zoneWeighting) + zs * zoneWeighting;
      }
      out[i] = s;
    }
  },
};
