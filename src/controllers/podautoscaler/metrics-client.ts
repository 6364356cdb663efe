// The HPA's view of metrics.k8s.io: PodMetrics of the pods a selector picks, summed per pod
// over its containers (or one container), in thousandths of the resource's unit.
import type { KubeObject } from '../../api/object.js';
import type { ClientsetAPI, ResourceType } from '../../client/index.js';
import { milliValue } from '../../util/quantity.js';
import { parseDuration } from '../../util/duration.js';
import { MetricsError, type PodMetrics } from './replica-calculator.js';

export const podMetricsType: ResourceType<KubeObject> = { group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', kind: 'PodMetrics', namespaced: true };

export async function resourceMetrics(clients: ClientsetAPI, resource: string, namespace: string, selector: string, container?: string): Promise<PodMetrics> {
  let list;
  try {
    list = await clients.resource(podMetricsType).list(namespace, { labelSelector: selector });
  } catch (e) {
    throw new MetricsError(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${(e as Error).message}`);
  }
  const out: PodMetrics = new Map();
  for (const m of list.items) {
    const containers = ((m.containers ?? []) as { name: string; usage?: Record<string, string> }[]).filter((c) => !container || c.name === container);
    if (!containers.length) continue;
    let value = 0, missing = false;
    for (const c of containers) {
      const q = c.usage?.[resource];
      if (q === undefined) { missing = true; break; }
      value += milliValue(q);
    }
    if (missing) continue;
    out.set(m.metadata.name ?? '', { value, timestamp: Date.parse(m.timestamp), windowMs: windowMs(m.window) });
  }
  if (!out.size) throw new MetricsError(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  return out;
}

function windowMs(w: unknown): number {
  try {
    return typeof w === 'string' ? parseDuration(w) : 0;
  } catch {
    return 0;
  }
}
