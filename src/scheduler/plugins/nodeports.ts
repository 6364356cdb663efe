// NodePorts: a hostPort is taken on a node when a pod there uses the same protocol and port
// on the same host IP, or either side binds the wildcard 0.0.0.0.
import type { FilterPlugin } from './types.js';

export const nodePorts: FilterPlugin = {
  name: 'NodePorts',
  skip: (pod) => !pod.hostPorts.length,
  filter(pod, node) {
    if (!pod.hostPorts.length || !node.usedPorts.size) return null;
    for (const hp of pod.hostPorts) {
      const ips = node.usedPorts.get(`${hp.protocol}/${hp.port}`);
      if (!ips) continue;
      if (hp.ip === '0.0.0.0' || ips.has('0.0.0.0') || ips.has(hp.ip)) return "node(s) didn't have free ports for the requested pod ports";
    }
    return null;
  },
};
