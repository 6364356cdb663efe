// NodeName: a pod naming a node fits only there. Such pods are normally already bound and
// never queued; the filter keeps the rule when a caller evaluates one anyway.
import type { FilterPlugin } from './types.js';

export const nodeName: FilterPlugin = {
  name: 'NodeName',
  skip: (pod) => !pod.pod.spec?.nodeName,
  filter(pod, node) {
    const want = pod.pod.spec?.nodeName;
    return !want || want === node.name ? null : "node(s) didn't match the requested node name";
  },
};
