// A pod as the scheduler needs it, derived once per pod version so the filter and score
// loops read plain fields instead of walking JSON for every node.
import { podRequests, type Resources } from './resources.js';
import { compileNodeSelectorTerms, type CompiledTerm } from './nodeselector.js';
import type { Pod } from '../api/kinds.js';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { compileAffinityTerms, compileSpreadConstraints, type PodAffinityTerms, type SpreadConstraint } from './terms.js';

export interface Toleration {
  key?: string;
  operator?: 'Equal' | 'Exists';
  value?: string;
  effect?: string;
}

export interface HostPort {
  protocol: string;
  ip: string;
  port: number;
}

export interface PodInfo {
  readonly pod: Pod;
  readonly uid: string;
  /** namespace/name */
  readonly key: string;
  readonly namespace: string;
  readonly priority: number;
  readonly requests: Resources;
  /** Requests with the scoring defaults for containers without requests. */
  readonly nonZero: Resources;
  readonly hostPorts: HostPort[];
  readonly tolerations: Toleration[];
  readonly nodeSelector: [string, string][];
  /** Required node affinity terms (ORed); undefined when there are none. */
  readonly requiredTerms?: CompiledTerm[];
  readonly preferredTerms: { weight: number; term: CompiledTerm }[];
  /** UID of the controlling owner (ReplicaSet, StatefulSet, ...), for spreading. */
  readonly ownerUID?: string;
  readonly labels: Record<string, string>;
  /** Inter-pod (anti-)affinity terms; undefined when the pod has none. */
  readonly affinity?: PodAffinityTerms;
  /** topologySpreadConstraints as written (empty: the scheduler's defaults apply). */
  readonly spread: SpreadConstraint[];
  /** preemptionPolicy: Never. */
  readonly preemptNever: boolean;
  /** Set when the pod cannot be scheduled as written (malformed quantity, selector). */
  readonly invalid?: string;
}

function hostPorts(spec: Partial<PodSpec>): HostPort[] {
  const out: HostPort[] = [];
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? []).filter((c: { restartPolicy?: string }) => c.restartPolicy === 'Always')];
  for (const c of containers) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort) continue;
      out.push({ protocol: p.protocol ?? 'TCP', ip: p.hostIP || '0.0.0.0', port: Number(p.hostPort) });
    }
  }
  return out;
}

export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
}

export function newPodInfo(pod: Pod): PodInfo {
  const spec: Partial<PodSpec> = pod.spec ?? {};
  const meta = pod.metadata;
  const base = {
    pod, uid: meta.uid ?? podKey(pod), key: podKey(pod), namespace: meta.namespace ?? '',
    priority: typeof spec.priority === 'number' ? spec.priority : 0,
    hostPorts: hostPorts(spec),
    tolerations: (spec.tolerations ?? []) as Toleration[],
    nodeSelector: Object.entries((spec.nodeSelector ?? {}) as Record<string, string>),
    ownerUID: meta.ownerReferences?.find((o) => o.controller)?.uid,
    labels: meta.labels ?? {},
    preemptNever: spec.preemptionPolicy === 'Never',
  };
  try {
    const affinity = spec.affinity?.nodeAffinity;
    const required = affinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    const preferred = (affinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as { weight?: number; preference?: unknown }[];
    return {
      ...base,
      requests: podRequests(pod), nonZero: podRequests(pod, true),
      requiredTerms: required ? compileNodeSelectorTerms(required) : undefined,
      preferredTerms: preferred.filter((p) => p.weight).map((p) => ({ weight: Number(p.weight), term: compileNodeSelectorTerms([p.preference])[0] })),
      affinity: compileAffinityTerms(pod),
      spread: compileSpreadConstraints(pod),
    };
  } catch (e) {
    const none = { milliCPU: 0, memory: 0, ephemeralStorage: 0 };
    return { ...base, requests: none, nonZero: none, preferredTerms: [], spread: [], invalid: (e as Error).message };
  }
}
