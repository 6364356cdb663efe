// A DaemonSet's status, after upstream's updateDaemonSetStatus: per node that should run the
// pod, its oldest daemon pod decides ready, available and updated.
import { isDeepStrictEqual } from 'node:util';
import type { DaemonSet, Node, Pod } from '../../api/kinds.js';
import { isPodAvailable, isPodReady } from '../replicaset/pod-util.js';
import { isUpdated } from './plan.js';
import { placement } from './predicates.js';

export type DaemonSetStatus = NonNullable<DaemonSet['status']>;

const created = (p: Pod) => Date.parse(p.metadata.creationTimestamp ?? '') || 0;

export function computeStatus(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string, collisionCount: number, now: number): DaemonSetStatus {
  const s: DaemonSetStatus = {
    currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0,
    observedGeneration: ds.metadata.generation, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0,
  };
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const { shouldRun } = placement(ds.spec?.template?.spec, node);
    const pods = byNode.get(node.metadata.name as string) ?? [];
    if (!shouldRun) {
      if (pods.length) s.numberMisscheduled++;
      continue;
    }
    s.desiredNumberScheduled++;
    if (!pods.length) continue;
    s.currentNumberScheduled++;
    const pod = [...pods].sort((a, b) => created(a) - created(b))[0];
    if (isPodReady(pod)) {
      s.numberReady++;
      if (isPodAvailable(pod, minReady, now)) s.numberAvailable!++;
    }
    if (isUpdated(pod, hash)) s.updatedNumberScheduled!++;
  }
  s.numberUnavailable = s.desiredNumberScheduled - s.numberAvailable!;
  if (collisionCount) s.collisionCount = collisionCount;
  if (ds.status?.conditions?.length) s.conditions = ds.status.conditions;
  return s;
}

export function statusChanged(ds: DaemonSet, next: DaemonSetStatus): boolean {
  return !isDeepStrictEqual(JSON.parse(JSON.stringify(ds.status ?? {})), JSON.parse(JSON.stringify(next)));
}
