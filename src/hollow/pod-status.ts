// The status a hollow kubelet reports for a pod it "runs": Running, Ready, every container
// started and running, addresses from the node's pod CIDR (or the node's own for hostNetwork).
import type { Fields, KubeObject } from '../api/object.js';
import { rfc3339 } from '../api/time.js';

const podConditionTypes = ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled'];

export function runningStatus(pod: KubeObject, hostIP: string, podIP: string, now: number): Fields {
  const stamp = rfc3339(new Date(now));
  const started = pod.status?.startTime ?? stamp;
  const prev: Fields[] = pod.status?.conditions ?? [];
  const uid = String(pod.metadata.uid ?? '').replace(/-/g, '');
  const container = (c: Fields, i: number) => ({
    name: c.name, ready: true, started: true, restartCount: 0,
    image: c.image, imageID: `hollow://${c.image}`, containerID: `hollow://${uid.slice(0, 24)}${String(i).padStart(2, '0')}`,
    state: { running: { startedAt: started } },
  });
  return {
    phase: 'Running',
    conditions: podConditionTypes.map((type) => {
      const old = prev.find((c) => c.type === type);
      return { type, status: 'True', lastProbeTime: null, lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : stamp };
    }),
    hostIP, hostIPs: [{ ip: hostIP }],
    podIP, podIPs: [{ ip: podIP }],
    startTime: started,
    qosClass: pod.status?.qosClass,
    initContainerStatuses: ((pod.spec?.initContainers ?? []) as Fields[]).map((c, i) => ({
      name: c.name, ready: true, started: false, restartCount: 0, image: c.image, imageID: `hollow://${c.image}`,
      containerID: `hollow://${uid.slice(0, 22)}i${String(i).padStart(2, '0')}`,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: started } },
    })),
    containerStatuses: ((pod.spec?.containers ?? []) as Fields[]).map(container),
  };
}

/** True when the pod already shows what `runningStatus` would post (so nothing is written). */
export function isRunningAndReady(pod: KubeObject, podIP: string): boolean {
  const s = pod.status ?? {};
  if (s.phase !== 'Running' || s.podIP !== podIP) return false;
  const conds: Fields[] = s.conditions ?? [];
  if (!['Ready', 'ContainersReady'].every((t) => conds.some((c) => c.type === t && c.status === 'True'))) return false;
  const statuses: Fields[] = s.containerStatuses ?? [];
  return (pod.spec?.containers ?? []).length === statuses.length && statuses.every((c) => c.ready && c.state?.running);
}
