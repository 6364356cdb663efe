// Node and pod objects for scheduler tests.
import type { KubeObject } from '../../src/api/object.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { newPodInfo } from '../../src/scheduler/podinfo.js';
import type { CycleState, FilterPlugin, ScorePlugin } from '../../src/scheduler/plugins/types.js';

export interface NodeOpts {
  cpu?: string;
  memory?: string;
  pods?: string;
  ephemeral?: string;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  ready?: 'True' | 'False' | 'Unknown' | null;
  unschedulable?: boolean;
  extra?: Record<string, string>;
}

export function node(name: string, o: NodeOpts = {}): KubeObject {
  const capacity = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110', 'ephemeral-storage': o.ephemeral ?? '100Gi', ...o.extra };
  const ready = o.ready === undefined ? 'True' : o.ready;
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity, allocatable: capacity, conditions: ready ? [{ type: 'Ready', status: ready, reason: 'KubeletReady' }] : [] },
  };
}

export interface PodOpts {
  namespace?: string;
  uid?: string;
  cpu?: string;
  memory?: string;
  ephemeral?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: unknown;
  tolerations?: unknown[];
  hostPort?: number;
  hostIP?: string;
  owner?: string;
  priority?: number;
  schedulerName?: string;
  initContainers?: unknown[];
  overhead?: Record<string, string>;
  extra?: Record<string, string>;
  topologySpreadConstraints?: unknown[];
  preemptionPolicy?: string;
  deleting?: boolean;
}

export function pod(name: string, o: PodOpts = {}): KubeObject {
  const requests: Record<string, string> = { ...o.extra };
  if (o.cpu) requests.cpu = o.cpu;
  if (o.memory) requests.memory = o.memory;
  if (o.ephemeral) requests['ephemeral-storage'] = o.ephemeral;
  const container: KubeObject['spec'] = { name: 'main', image: 'busybox', resources: Object.keys(requests).length ? { requests } : {} };
  if (o.hostPort) container.ports = [{ containerPort: 80, hostPort: o.hostPort, ...(o.hostIP ? { hostIP: o.hostIP } : {}) }];
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: o.namespace ?? 'default', uid: o.uid ?? `uid-${name}`, labels: o.labels ?? {},
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: o.owner, uid: `rs-${o.owner}`, controller: true }] } : {}),
    },
    spec: {
      containers: [container],
      ...(o.initContainers ? { initContainers: o.initContainers } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.affinity ? { affinity: o.affinity } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.schedulerName ? { schedulerName: o.schedulerName } : {}),
      ...(o.overhead ? { overhead: o.overhead } : {}),
      ...(o.topologySpreadConstraints ? { topologySpreadConstraints: o.topologySpreadConstraints } : {}),
      ...(o.preemptionPolicy ? { preemptionPolicy: o.preemptionPolicy } : {}),
    },
    status: { phase: 'Pending' },
  };
}

/** A scheduler cache holding `nodes` and the `pods` bound to them (each pod names its node). */
export function clusterOf(nodes: KubeObject[], pods: KubeObject[] = [], namespaces: Record<string, Record<string, string>> = {}): SchedulerCache {
  const cache = new SchedulerCache();
  for (const n of nodes) cache.addNode(n);
  for (const p of pods) cache.addOrUpdatePod(p);
  cache.namespaceLabels = (ns) => namespaces[ns];
  return cache;
}

/** Runs `filters` (their preFilter first) for `p` against every node of `cache`: node name → reason or null. */
export function filterAll(filters: FilterPlugin[], p: KubeObject, cache: SchedulerCache, extra: Partial<CycleState> = {}): Record<string, string | string[] | null> {
  const info = newPodInfo(p);
  const state: CycleState = { serviceSelectors: [], cluster: cache, ownerNodes: info.ownerUID ? cache.ownerNodes(info.ownerUID) ?? new Map() : undefined, ...extra };
  for (const f of filters) f.preFilter?.(info, state);
  const out: Record<string, string | string[] | null> = {};
  for (const n of cache.nodeList()) {
    let r: string | string[] | null = null;
    for (const f of filters) if ((r = f.filter(info, n, state))) break;
    out[n.name] = r;
  }
  return out;
}

/** One scorer's normalised scores for `p` over every node of `cache`, by node name. */
export function scoreAll(plugin: ScorePlugin, p: KubeObject, cache: SchedulerCache, extra: Partial<CycleState> = {}): Record<string, number> {
  const info = newPodInfo(p);
  const nodes = cache.nodeList();
  const out = new Float64Array(nodes.length);
  plugin.score(info, nodes, out, { serviceSelectors: [], cluster: cache, ownerNodes: info.ownerUID ? cache.ownerNodes(info.ownerUID) ?? new Map() : undefined, ...extra });
  return Object.fromEntries(nodes.map((n, i) => [n.name, out[i]]));
}
