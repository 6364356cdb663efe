// Node health: when the kubelet last showed signs of life, and the status a silent node gets.
import { rfc3339 } from '../../api/time.js';
import { condition } from './taints.js';
import type { Lease, Node, Pod } from '../../api/kinds.js';
import type { NodeStatus } from 'kubernetes-types/core/v1.js';

/** The conditions a kubelet reports and the controller turns Unknown when it goes silent. */
export const nodeConditionTypes = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** The signs of life the controller watches: Lease renewTime and the Ready heartbeat. */
export function heartbeats(node: Node, lease: Lease | undefined): { renew?: string; heartbeat?: string } {
  return { renew: lease?.spec?.renewTime, heartbeat: condition(node, 'Ready')?.lastHeartbeatTime };
}

/** The latest heartbeat timestamp, in ms, or undefined when there is none. */
export function latestHeartbeat(h: { renew?: string; heartbeat?: string }): number | undefined {
  const times = [h.renew, h.heartbeat].map((s) => (s ? Date.parse(s) : NaN)).filter((n) => !Number.isNaN(n));
  return times.length ? Math.max(...times) : undefined;
}

/**
 * A copy of the node's status with every kubelet-reported condition Unknown, as Kubernetes
 * does when the kubelet stops posting: heartbeats stay as they were, transitions are now.
 */
export function statusUnknown(node: Node, now: number): NodeStatus {
  const stamp = rfc3339(new Date(now));
  const status: NodeStatus = structuredClone(node.status ?? {});
  const conditions = status.conditions ?? [];
  for (const type of nodeConditionTypes) {
    const c = conditions.find((x) => x.type === type);
    if (!c) {
      conditions.push({
        type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.',
        lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: stamp,
      });
    } else if (c.status !== 'Unknown') {
      Object.assign(c, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp });
    }
  }
  status.conditions = conditions;
  return status;
}

export function hasCondition(obj: Node | Pod, type: string, status: string): boolean {
  return (obj.status?.conditions ?? []).find((c: { type: string }) => c.type === type)?.status === status;
}
