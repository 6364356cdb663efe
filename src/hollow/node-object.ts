// What a hollow node registers and reports: the Node (capacity, addresses, nodeInfo, the
// kubelet's conditions) and its Lease in kube-node-lease, as a real kubelet would.
import { createHash } from 'node:crypto';
import { rfc3339, rfc3339Micro } from '../api/time.js';
import type { Lease, Node } from '../api/kinds.js';
import type { NodeStatus } from 'kubernetes-types/core/v1.js';

export const hollowKubeletVersion = 'v1.32.0-capstan-hollow';
export const nodeLeaseNamespace = 'kube-node-lease';

export interface NodeShape {
  cpu: string;
  memory: string;
  pods: number;
  ephemeralStorage: string;
}

/** Where a hollow node's kubelet API listens: its InternalIP and the port shared by all. */
export interface KubeletEndpoint {
  address: string;
  port: number;
}

const kubeletConditions: [type: string, status: string, reason: string, message: string][] = [
  ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
];

const uuidFrom = (s: string) => {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/**
 * The status a healthy hollow kubelet posts. Conditions keep their lastTransitionTime from
 * `previous` when their status did not change, as the kubelet does.
 */
export function nodeStatus(name: string, endpoint: KubeletEndpoint, shape: NodeShape, now: number, previous?: NodeStatus): NodeStatus {
  const stamp = rfc3339(new Date(now));
  const resources = { cpu: shape.cpu, memory: shape.memory, pods: String(shape.pods), 'ephemeral-storage': shape.ephemeralStorage };
  const prev = previous?.conditions ?? [];
  return {
    capacity: resources,
    allocatable: resources,
    conditions: kubeletConditions.map(([type, status, reason, message]) => {
      const old = prev.find((c) => c.type === type);
      return { type, status, reason, message, lastHeartbeatTime: stamp, lastTransitionTime: old?.status === status ? old.lastTransitionTime : stamp };
    }),
    addresses: [{ type: 'InternalIP', address: endpoint.address }, { type: 'Hostname', address: name }],
    daemonEndpoints: { kubeletEndpoint: { Port: endpoint.port } },
    nodeInfo: {
      machineID: uuidFrom(`machine/${name}`).replace(/-/g, ''), systemUUID: uuidFrom(`system/${name}`), bootID: uuidFrom(`boot/${name}`),
      kernelVersion: '6.1.0-hollow', osImage: 'Hollow Node (capstan)', containerRuntimeVersion: 'hollow://1',
      kubeletVersion: hollowKubeletVersion, kubeProxyVersion: hollowKubeletVersion, operatingSystem: 'linux', architecture: 'amd64',
    },
  };
}

export function nodeObject(name: string, endpoint: KubeletEndpoint, shape: NodeShape, now: number): Node {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'hollow',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: {},
    status: nodeStatus(name, endpoint, shape, now),
  };
}

export function leaseObject(node: Node, now: number, durationSeconds: number): Lease {
  const name = node.metadata.name as string;
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: {
      name, namespace: nodeLeaseNamespace,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid as string }],
    },
    spec: { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: rfc3339Micro(new Date(now)) },
  };
}

/** True when what the API has would make the node look unhealthy or stale to the control plane. */
export function needsStatusPost(node: Node | undefined): boolean {
  if (!node) return false; // not in the cache yet: nothing says it looks unhealthy
  const ready = (node?.status?.conditions ?? []).find((c) => c.type === 'Ready');
  return !ready || ready.status !== 'True';
}
