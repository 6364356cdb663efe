// What the StatefulSet controller asks of a pod before it moves on: running and ready (and
// available after minReadySeconds), as upstream's isRunningAndReady/isRunningAndAvailable.
import type { Pod } from '../../api/kinds.js';
import { isPodAvailable, isPodReady, msUntilAvailable } from '../replicaset/pod-util.js';

export const isTerminating = (pod: Pod): boolean => !!pod.metadata.deletionTimestamp;
export const isFinished = (pod: Pod): boolean => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
/** The pod has been seen by a kubelet (upstream's isCreated: it has a phase). */
export const isCreated = (pod: Pod): boolean => !!pod.status?.phase;

export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}

export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  return pod.status?.phase === 'Running' && isPodAvailable(pod, minReadySeconds, now);
}

/** Ready, available and not terminating: the next pod may be acted on. */
export function isHealthy(pod: Pod, minReadySeconds: number, now: number): boolean {
  return !isTerminating(pod) && isRunningAndAvailable(pod, minReadySeconds, now);
}

/** When the earliest ready pod becomes available, so the controller looks again then. */
export function nextAvailableIn(pods: Pod[], minReadySeconds: number, now: number): number | undefined {
  let min: number | undefined;
  for (const p of pods) {
    const ms = msUntilAvailable(p, minReadySeconds, now);
    if (ms !== undefined && (min === undefined || ms < min)) min = ms;
  }
  return min;
}
