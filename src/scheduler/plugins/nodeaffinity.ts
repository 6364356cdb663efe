// NodeAffinity: spec.nodeSelector and required node affinity filter (both must hold);
// preferred terms score by the sum of the weights of the terms a node matches.
import { anyTermMatches, termMatches } from '../nodeselector.js';
import { normalize, type FilterPlugin, type ScorePlugin } from './types.js';

const mismatch = "node(s) didn't match Pod's node affinity/selector";

export const nodeAffinityFilter: FilterPlugin = {
  name: 'NodeAffinity',
  skip: (pod) => !pod.nodeSelector.length && !pod.requiredTerms,
  filter(pod, node) {
    for (const [k, v] of pod.nodeSelector) if (node.labels[k] !== v) return mismatch;
    if (pod.requiredTerms && !anyTermMatches(pod.requiredTerms, node.name, node.labels)) return mismatch;
    return null;
  },
};

export const nodeAffinityScore: ScorePlugin = {
  name: 'NodeAffinity',
  weight: 2,
  score(pod, nodes, out) {
    const terms = pod.preferredTerms;
    if (!terms.length) { out.fill(0, 0, nodes.length); return; }
    for (let i = 0; i < nodes.length; i++) {
      let sum = 0;
      for (const t of terms) if (termMatches(t.term, nodes[i].name, nodes[i].labels)) sum += t.weight;
      out[i] = sum;
    }
    normalize(out, nodes.length, false);
  },
};
