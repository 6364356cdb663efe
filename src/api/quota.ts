// What an object counts against a ResourceQuota, after upstream's quota evaluators
// (pkg/quota/v1/evaluator/core): `count/<resource>[.<group>]` for every object, the legacy
// counts (`pods`, `services`, `configmaps`, …), a pod's compute requests and limits, a
// Service's node ports and load balancers. Amounts are thousandths, as pod-resources.ts.
// Both the ResourceQuota admission plugin and the quota controller count with this.
import type { Fields, KubeObject } from './object.js';
import { podLimits, podRequests, type ResourceAmounts } from './core/pod-resources.js';
import { milliValue } from '../util/quantity.js';

const ONE = 1000;
/** Core resources whose count has a name of its own besides count/<resource>. */
const legacyCounts = new Set(['pods', 'services', 'configmaps', 'secrets', 'persistentvolumeclaims', 'resourcequotas', 'replicationcontrollers']);

export const countName = (group: string, resource: string): string => (group ? `count/${resource}.${group}` : `count/${resource}`);

/** Terminal pods (Succeeded, Failed) and pods past their deletion grace use no compute. */
export function podIsActive(pod: KubeObject, now: Date): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deleting = pod.metadata.deletionTimestamp;
  if (deleting) {
    const grace = Number(pod.metadata.deletionGracePeriodSeconds ?? 0);
    if (Date.parse(deleting) + grace * 1000 < now.getTime()) return false;
  }
  return true;
}

export function usageOf(group: string, resource: string, obj: KubeObject, now = new Date()): ResourceAmounts {
  const usage: ResourceAmounts = new Map([[countName(group, resource), ONE]]);
  if (group !== '') return usage;
  if (resource === 'pods') {
    if (!podIsActive(obj, now)) return usage;
    usage.set('pods', ONE);
    const requests = podRequests(obj.spec), limits = podLimits(obj.spec);
    for (const [k, v] of requests) {
      usage.set(`requests.${k}`, v);
      if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') usage.set(k, v);
    }
    for (const [k, v] of limits) usage.set(`limits.${k}`, v);
    return usage;
  }
  if (legacyCounts.has(resource)) usage.set(resource, ONE);
  if (resource === 'services') {
    const type = obj.spec?.type;
    if (type === 'LoadBalancer') usage.set('services.loadbalancers', ONE);
    if (type === 'NodePort' || type === 'LoadBalancer') {
      const ports = ((obj.spec?.ports ?? []) as Fields[]).length;
      usage.set('services.nodeports', ports * ONE);
    }
  }
  if (resource === 'persistentvolumeclaims') {
    const storage = obj.spec?.resources?.requests?.storage;
    if (storage !== undefined) usage.set('requests.storage', milliValue(storage, 0));
  }
  return usage;
}

/** Whether a pod is in every one of a quota's scopes (a quota with scopes counts only pods). */
export function quotaMatches(quota: KubeObject, resource: string, obj: KubeObject): boolean {
  const scopes: { name: string; operator: string; values: string[] }[] = [
    ...((quota.spec?.scopes ?? []) as string[]).map((name) => ({ name, operator: 'Exists', values: [] })),
    ...((quota.spec?.scopeSelector?.matchExpressions ?? []) as Fields[]).map((e) => ({ name: e.scopeName, operator: e.operator, values: e.values ?? [] })),
  ];
  if (!scopes.length) return true;
  if (resource !== 'pods') return false;
  return scopes.every((s) => scopeMatches(s, obj));
}

function scopeMatches(s: { name: string; operator: string; values: string[] }, pod: KubeObject): boolean {
  const spec = pod.spec ?? {};
  const bestEffort = () => {
    const all = [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Fields[];
    return all.every((c) => !['requests', 'limits'].some((f) => ['cpu', 'memory'].some((r) => c.resources?.[f]?.[r] !== undefined)));
  };
  switch (s.name) {
    case 'Terminating': return spec.activeDeadlineSeconds != null;
    case 'NotTerminating': return spec.activeDeadlineSeconds == null;
    case 'BestEffort': return bestEffort();
    case 'NotBestEffort': return !bestEffort();
    case 'PriorityClass': {
      const name = spec.priorityClassName ?? '';
      switch (s.operator) {
        case 'In': return s.values.includes(name);
        case 'NotIn': return !s.values.includes(name);
        case 'Exists': return name !== '';
        case 'DoesNotExist': return name === '';
      }
      return false;
    }
    case 'CrossNamespacePodAffinity': {
      const terms = [...(spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []), ...(spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [])] as Fields[];
      return terms.some((t) => (t.namespaces ?? []).length > 0 || t.namespaceSelector != null);
    }
  }
  return false;
}
