// Node and pod objects for scheduler tests.
import type { KubeObject } from '../../src/api/object.js';

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
    },
    status: { phase: 'Pending' },
  };
}
