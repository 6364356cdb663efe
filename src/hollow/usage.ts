// Synthetic usage for hollow nodes' /stats/summary and /metrics/resource. Hollow pods run no
// processes, so there is nothing to measure: each running container "uses" a modest, steady
// share of what it requests (10% of its CPU request, 50% of its memory request; 1m and 8Mi
// without requests), integrated over time into cumulative CPU counters that only grow, and
// the node uses its pods' sum plus a fixed base. For scale runs of the control plane
// (metrics.k8s.io, the HPA), never for measuring anything real.
//
// A test hook, of hollow nodes only: the pod annotations `hollow.capstan.io/cpu-usage` and
// `hollow.capstan.io/memory-usage` (quantities, per container, e.g. "450m", "64Mi") set what
// each of the pod's containers uses from the moment they are seen.
import type { Container } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../api/kinds.js';
import { podTotals, type ContainerStats, type PodStats, type Summary } from '../api/stats/summary.js';
import { milliValue, value } from '../util/quantity.js';

export const CPU_USAGE_ANNOTATION = 'hollow.capstan.io/cpu-usage';
export const MEMORY_USAGE_ANNOTATION = 'hollow.capstan.io/memory-usage';

const NODE_BASE = { milliCPU: 50, memory: 256 * 2 ** 20 };

/** What a container of the pod uses: millicores and working-set bytes. */
export function containerUsage(pod: Pod, c: Container): { milliCPU: number; memory: number } {
  const ann = pod.metadata.annotations ?? {};
  const req = c.resources?.requests ?? {};
  const milliCPU = ann[CPU_USAGE_ANNOTATION] !== undefined ? milliValue(ann[CPU_USAGE_ANNOTATION], 0)
    : req.cpu !== undefined ? Math.max(1, Math.round(milliValue(req.cpu, 0) / 10)) : 1;
  const memory = ann[MEMORY_USAGE_ANNOTATION] !== undefined ? value(ann[MEMORY_USAGE_ANNOTATION], 0)
    : req.memory !== undefined ? Math.round(value(req.memory, 0) / 2) : 8 * 2 ** 20;
  return { milliCPU, memory };
}

interface Counter { ns: number; at: number }

/** Cumulative CPU counters per node and container, advanced at each read at the current rate. */
export class HollowUsage {
  private counters = new Map<string, Counter>();

  private advance(key: string, milliCPU: number, now: number, since: number): number {
    const c = this.counters.get(key) ?? { ns: 0, at: since };
    c.ns += Math.max(0, now - c.at) * milliCPU * 1000; // ms × millicores × 1e3 = core-ns
    c.at = now;
    this.counters.set(key, c);
    return c.ns;
  }

  summary(node: string, nodeStart: string, pods: Pod[], now: number): Summary {
    const time = new Date(now).toISOString();
    const seen = new Set<string>();
    const out: PodStats[] = [];
    let nodeCPU = NODE_BASE.milliCPU, nodeMemory = NODE_BASE.memory;
    for (const pod of pods) {
      if (pod.status?.phase !== 'Running') continue;
      const containers: ContainerStats[] = [];
      for (const st of pod.status.containerStatuses ?? []) {
        const spec = pod.spec?.containers.find((c) => c.name === st.name);
        const started = st.state?.running?.startedAt;
        if (!spec || !started) continue;
        const use = containerUsage(pod, spec);
        const key = `${pod.metadata.uid}/${st.name}/${started}`;
        seen.add(key);
        const ns = this.advance(key, use.milliCPU, now, Math.min(now, Date.parse(started)));
        containers.push({ name: st.name, startTime: started, cpu: { time, usageCoreNanoSeconds: ns, usageNanoCores: use.milliCPU * 1e6 }, memory: { time, workingSetBytes: use.memory } });
        nodeCPU += use.milliCPU;
        nodeMemory += use.memory;
      }
      out.push({
        podRef: { name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? '', uid: pod.metadata.uid ?? '' },
        startTime: pod.status.startTime ?? time, containers, ...podTotals(containers, time),
      });
    }
    for (const key of this.counters.keys()) if (key.includes('/') && !seen.has(key)) this.counters.delete(key);
    const nodeNs = this.advance(node, nodeCPU, now, Math.min(now, Date.parse(nodeStart)));
    return {
      node: { nodeName: node, startTime: nodeStart, cpu: { time, usageCoreNanoSeconds: nodeNs, usageNanoCores: nodeCPU * 1e6 }, memory: { time, workingSetBytes: nodeMemory } },
      pods: out,
    };
  }
}
