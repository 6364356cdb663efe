// The status a hollow kubelet reports for a pod it "runs": Running, Ready, every container
// started and running, addresses from the node's pod CIDR (or the node's own for hostNetwork).
// Init containers have completed, except native sidecars (init containers with
// restartPolicy Always), which keep running as the kubelet keeps them. Before that, a pod
// whose volumes cannot be set up waits as the kubelet's does: Pending, ContainerCreating.
import { rfc3339 } from '../api/time.js';
import type { Pod } from '../api/kinds.js';
import { nullTime } from '../api/kinds.js';
import type { Container, PodStatus } from 'kubernetes-types/core/v1.js';

const podConditionTypes = ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled'];

const isSidecar = (c: Container) => c.restartPolicy === 'Always';
const initSpecs = (pod: Pod): Container[] => pod.spec?.initContainers ?? [];
const regularSpecs = (pod: Pod): Container[] => pod.spec?.containers ?? [];

export function runningStatus(pod: Pod, hostIP: string, podIP: string, now: number): PodStatus {
  const stamp = rfc3339(new Date(now));
  const started = pod.status?.startTime ?? stamp;
  const prev = pod.status?.conditions ?? [];
  const uid = String(pod.metadata.uid ?? '').replace(/-/g, '');
  const container = (c: Container, i: number) => ({
    name: c.name, ready: true, started: true, restartCount: 0,
    image: c.image!, imageID: `hollow://${c.image}`, containerID: `hollow://${uid.slice(0, 24)}${String(i).padStart(2, '0')}`,
    state: { running: { startedAt: started } },
  });
  return {
    phase: 'Running',
    conditions: podConditionTypes.map((type) => {
      const old = prev.find((c) => c.type === type);
      return { type, status: 'True', lastProbeTime: nullTime, lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : stamp };
    }),
    hostIP, hostIPs: [{ ip: hostIP }],
    podIP, podIPs: [{ ip: podIP }],
    startTime: started,
    qosClass: pod.status?.qosClass,
    initContainerStatuses: initSpecs(pod).map((c, i) => {
      const containerID = `hollow://${uid.slice(0, 22)}i${String(i).padStart(2, '0')}`;
      const common = { name: c.name, restartCount: 0, image: c.image!, imageID: `hollow://${c.image}`, containerID };
      if (isSidecar(c)) return { ...common, ready: true, started: true, state: { running: { startedAt: started } } };
      return { ...common, ready: true, started: false, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: started, containerID } } };
    }),
    containerStatuses: regularSpecs(pod).map(container),
  };
}

/**
 * What the kubelet reports while it cannot set up the pod's volumes: Pending, nothing
 * started, each container waiting (ContainerCreating; PodInitializing when the pod has init
 * containers, as the kubelet's default waiting reason is then).
 */
export function pendingStatus(pod: Pod, hostIP: string, now: number): PodStatus {
  const stamp = rfc3339(new Date(now));
  const prev = pod.status?.conditions ?? [];
  const reason = initSpecs(pod).length ? 'PodInitializing' : 'ContainerCreating';
  const waiting = (c: Container) => ({ name: c.name, ready: false, started: false, restartCount: 0, image: c.image!, imageID: '', lastState: {}, state: { waiting: { reason } } });
  const condition = (type: string, ok: boolean, why?: string, message?: string) => {
    const status = ok ? 'True' : 'False';
    const old = prev.find((c) => c.type === type);
    return { type, status, lastProbeTime: nullTime, lastTransitionTime: old?.status === status ? old.lastTransitionTime : stamp, ...(why ? { reason: why, message } : {}) };
  };
  const incomplete = initSpecs(pod).map((c) => c.name);
  const unready = [...initSpecs(pod).filter(isSidecar), ...regularSpecs(pod)].map((c) => c.name);
  return {
    phase: 'Pending',
    conditions: [
      condition('PodReadyToStartContainers', false),
      incomplete.length ? condition('Initialized', false, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`) : condition('Initialized', true),
      condition('ContainersReady', false, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`),
      condition('Ready', false, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`),
      prev.find((c) => c.type === 'PodScheduled') ?? condition('PodScheduled', true),
    ],
    hostIP, hostIPs: [{ ip: hostIP }],
    startTime: pod.status?.startTime ?? stamp,
    qosClass: pod.status?.qosClass,
    ...(initSpecs(pod).length ? { initContainerStatuses: initSpecs(pod).map(waiting) } : {}),
    containerStatuses: regularSpecs(pod).map(waiting),
  };
}

/** True when the pod already shows what `pendingStatus` would post. */
export function isPendingShown(pod: Pod, hostIP: string): boolean {
  const s: PodStatus = pod.status ?? {};
  if (s.phase !== 'Pending' || s.hostIP !== hostIP) return false;
  const statuses = s.containerStatuses ?? [];
  return regularSpecs(pod).length === statuses.length && statuses.every((c) => c.state?.waiting);
}

/** True when the pod already shows what `runningStatus` would post (so nothing is written). */
export function isRunningAndReady(pod: Pod, podIP: string): boolean {
  const s: PodStatus = pod.status ?? {};
  if (s.phase !== 'Running' || s.podIP !== podIP) return false;
  const conds = s.conditions ?? [];
  if (!['Ready', 'ContainersReady'].every((t) => conds.some((c) => c.type === t && c.status === 'True'))) return false;
  const statuses = s.containerStatuses ?? [];
  if (regularSpecs(pod).length !== statuses.length || !statuses.every((c) => c.ready && c.state?.running)) return false;
  const inits = s.initContainerStatuses ?? [];
  return initSpecs(pod).length === inits.length && initSpecs(pod).every((c, i) =>
    inits[i]?.name === c.name && (isSidecar(c) ? !!inits[i].state?.running && inits[i].ready && inits[i].started : !!inits[i].state?.terminated));
}

/**
 * The status once every container has exited (restartPolicy Never, or OnFailure with all
 * exits 0): Succeeded when all exited 0, else Failed; Ready false as the kubelet reports it.
 */
export function finishedStatus(pod: Pod, exits: number[], now: number): PodStatus {
  const stamp = rfc3339(new Date(now));
  const ok = exits.every((c) => c === 0);
  const reason = ok ? 'PodCompleted' : 'PodFailed';
  const statuses = pod.status?.containerStatuses ?? [];
  return {
    ...pod.status,
    phase: ok ? 'Succeeded' : 'Failed',
    conditions: (pod.status?.conditions ?? []).map((c) =>
      ['Ready', 'ContainersReady'].includes(c.type) ? { ...c, status: 'False', reason, lastTransitionTime: stamp } : c),
    containerStatuses: regularSpecs(pod).map((c, i) => {
      const prev = statuses.find((s) => s.name === c.name);
      const containerID = prev?.containerID ?? '';
      return {
        name: c.name, ready: false, started: false, restartCount: prev?.restartCount ?? 0,
        image: c.image!, imageID: `hollow://${c.image}`, containerID,
        state: { terminated: { exitCode: exits[i], reason: exits[i] === 0 ? 'Completed' : 'Error', startedAt: prev?.state?.running?.startedAt ?? stamp, finishedAt: stamp, containerID } },
      };
    }),
  };
}

/** OnFailure: the containers that exited non-zero start again, with one more restart each. */
export function restartedStatus(pod: Pod, exits: number[], now: number): PodStatus {
  const stamp = rfc3339(new Date(now));
  const statuses = pod.status?.containerStatuses ?? [];
  return {
    ...pod.status,
    containerStatuses: regularSpecs(pod).map((c, i) => {
      const prev = statuses.find((s) => s.name === c.name)!;
      if (exits[i] === 0) return prev;
      const startedAt = prev.state?.running?.startedAt ?? stamp;
      return {
        ...prev, restartCount: (prev.restartCount ?? 0) + 1,
        lastState: { terminated: { exitCode: exits[i], reason: 'Error', startedAt, finishedAt: stamp, containerID: prev.containerID } },
        state: { running: { startedAt: stamp } },
      };
    }),
  };
}
