// Pod status as the kubelet reports it, computed from the runtime's state alone (plus probe
// results and the reasons a container is still waiting). Pure: table-driven tests feed it
// runtime snapshots.
import { rfc3339 } from '../api/time.js';
import { containersOf, ephemeralContainersOf, initContainersOf, qosClass, restartPolicyOf } from './pod-spec.js';
import { latestByName, previousInstance, type ContainerState, type PodRuntimeState } from './runtime-state.js';
import type { Pod } from '../api/kinds.js';
import type { Container, ContainerStateTerminated, ContainerStatus, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { nullTime } from '../api/kinds.js';
import { truncateForPod } from './termination-message.js';

export interface Waiting { reason: string; message?: string }

export interface StatusInput {
  pod: Pod;
  runtime: PodRuntimeState;
  hostIP: string;
  now: number;
  /** containerd → "containerd://<id>". */
  runtimeName: string;
  ready(containerId: string, container: Container): boolean;
  started(containerId: string, container: Container): boolean;
  /** Why a container (by name) is waiting, when the kubelet knows better than "ContainerCreating". */
  waiting: ReadonlyMap<string, Waiting>;
}

const ts = (ms: number) => rfc3339(new Date(ms));

function terminated(c: ContainerState, runtimeName: string): ContainerStateTerminated {
  return {
    exitCode: c.exitCode,
    reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
    ...(c.message ? { message: c.message } : {}),
    startedAt: c.startedAt ? ts(c.startedAt) : nullTime,
    finishedAt: c.finishedAt ? ts(c.finishedAt) : nullTime,
    containerID: `${runtimeName}://${c.id}`,
  };
}

/** A container status as computed here: state and lastState are always set. */
type ComputedStatus = ContainerStatus & { state: NonNullable<ContainerStatus['state']>; lastState: NonNullable<ContainerStatus['lastState']> };

function containerStatus(spec: Container, init: boolean, inp: StatusInput, blockedReason: string): ComputedStatus {
  const latest = latestByName(inp.runtime, init).get(spec.name);
  const prev = previousInstance(inp.runtime, spec.name, init);
  const waiting = inp.waiting.get(spec.name);
  const out: ComputedStatus = {
    name: spec.name, image: spec.image!, imageID: latest?.imageRef ?? '',
    ...(latest ? { containerID: `${inp.runtimeName}://${latest.id}` } : {}),
    restartCount: latest?.restartCount ?? 0,
    ready: false, started: false, lastState: {}, state: {},
  };
  if (latest?.state === 'CONTAINER_RUNNING' && !waiting) {
    out.state = { running: { startedAt: ts(latest.startedAt) } };
    out.started = inp.started(latest.id, spec);
    out.ready = out.started && inp.ready(latest.id, spec);
    if (prev?.state === 'CONTAINER_EXITED') out.lastState = { terminated: terminated(prev, inp.runtimeName) };
  } else if (latest?.state === 'CONTAINER_EXITED' && !waiting) {
    out.state = { terminated: terminated(latest, inp.runtimeName) };
    if (prev?.state === 'CONTAINER_EXITED') out.lastState = { terminated: terminated(prev, inp.runtimeName) };
  } else {
    out.state = { waiting: { reason: waiting?.reason ?? blockedReason, ...(waiting?.message ? { message: waiting.message } : {}) } };
    if (latest?.state === 'CONTAINER_EXITED') out.lastState = { terminated: terminated(latest, inp.runtimeName) };
    else if (prev?.state === 'CONTAINER_EXITED') out.lastState = { terminated: terminated(prev, inp.runtimeName) };
  }
  return out;
}

/** Kubernetes' getPhase over computed container statuses. */
export function podPhase(pod: Pod, init: ComputedStatus[], regular: ComputedStatus[]): string {
  const policy = restartPolicyOf(pod);
  for (const s of init) {
    const t = s.state.terminated;
    if (t && t.exitCode === 0) continue;
    if (policy === 'Never' && (t || s.lastState?.terminated) && !s.state.running) {
      const failed = t ? t.exitCode !== 0 : s.lastState.terminated!.exitCode !== 0;
      if (failed) return 'Failed';
    }
    return 'Pending';
  }
  let running = 0, waiting = 0, stopped = 0, succeeded = 0;
  for (const s of regular) {
    if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return policy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

function condition(prev: PodCondition[], type: string, status: boolean, now: number, reason?: string, message?: string): PodCondition {
  const s = status ? 'True' : 'False';
  const old = prev.find((c) => c.type === type);
  return {
    type, status: s, lastProbeTime: nullTime,
    lastTransitionTime: old?.status === s && old.lastTransitionTime ? old.lastTransitionTime : ts(now),
    ...(reason ? { reason } : {}), ...(message ? { message } : {}),
  };
}

export function computePodStatus(inp: StatusInput): PodStatus {
  const { pod, runtime, now } = inp;
  const prev: PodStatus = pod.status ?? {};
  const prevConds = prev.conditions ?? [];
  const sandbox = runtime.sandboxes.find((s) => s.ready);
  const initSpecs = initContainersOf(pod);
  const initStatuses = initSpecs.map((c) => containerStatus(c, true, inp, 'PodInitializing'));
  const initDone = initStatuses.every((s) => s.state.terminated?.exitCode === 0);
  const blocked = initDone ? 'ContainerCreating' : 'PodInitializing';
  const statuses = containersOf(pod).map((c) => containerStatus(c, false, inp, blocked));
  let phase = podPhase(pod, initStatuses, statuses);
  if (prev.phase === 'Succeeded' || prev.phase === 'Failed') phase = prev.phase; // terminal is final
  const terminal = phase === 'Succeeded' || phase === 'Failed';

  const podIP = sandbox ? (sandbox.hostNetwork ? inp.hostIP : sandbox.ip) : '';
  const podIPs = sandbox ? (sandbox.hostNetwork ? [inp.hostIP] : sandbox.ips) : [];
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const incomplete = initStatuses.filter((s) => s.state.terminated?.exitCode !== 0).map((s) => s.name);
  const conditions: PodCondition[] = [
    condition(prevConds, 'PodReadyToStartContainers', !!sandbox && (sandbox.hostNetwork || !!sandbox.ip), now),
    terminal && initSpecs.length === 0
      ? condition(prevConds, 'Initialized', true, now, 'PodCompleted')
      : condition(prevConds, 'Initialized', incomplete.length === 0, now,
        incomplete.length ? 'ContainersNotInitialized' : undefined, incomplete.length ? `containers with incomplete status: [${incomplete.join(' ')}]` : undefined),
  ];
  for (const type of ['Ready', 'ContainersReady']) {
    if (terminal) conditions.push(condition(prevConds, type, false, now, 'PodCompleted'));
    else {
      conditions.push(condition(prevConds, type, unready.length === 0, now,
        unready.length ? 'ContainersNotReady' : undefined, unready.length ? `containers with unready status: [${unready.join(' ')}]` : undefined));
    }
  }
  const scheduled = prevConds.find((c) => c.type === 'PodScheduled');
  conditions.push(scheduled ?? { type: 'PodScheduled', status: 'True', lastProbeTime: nullTime, lastTransitionTime: prev.startTime ?? ts(now) });
  // Conditions others own (DisruptionTarget from an eviction, readiness gates) stay as they are.
  const own = new Set(conditions.map((c) => c.type));
  conditions.push(...prevConds.filter((c) => !own.has(c.type)));

  const out: PodStatus = {
    phase, conditions,
    hostIP: inp.hostIP, hostIPs: [{ ip: inp.hostIP }],
    podIP: podIP || (terminal ? prev.podIP ?? '' : ''),
    podIPs: (podIPs.length ? podIPs : terminal && prev.podIPs ? prev.podIPs.map((p) => p.ip!) : []).map((ip: string) => ({ ip })),
    startTime: prev.startTime ?? ts(now),
    containerStatuses: statuses,
    qosClass: qosClass(pod),
  };
  // Upstream's status manager keeps each container's message within its share of 12 KiB.
  const count = initStatuses.length + statuses.length;
  for (const st of [...initStatuses, ...statuses]) {
    for (const t of [st.state.terminated, st.lastState.terminated]) if (t?.message) t.message = truncateForPod(t.message, count);
  }
  if (initStatuses.length) out.initContainerStatuses = initStatuses;
  const ephemeral = ephemeralContainersOf(pod).map((c) => containerStatus(c, false, inp, 'ContainerCreating'));
  // Never ready: an ephemeral container takes no part in the pod's readiness.
  if (ephemeral.length) out.ephemeralContainerStatuses = ephemeral.map((st) => ({ ...st, ready: false }));
  if (!out.podIP) delete out.podIP;
  if (!out.podIPs!.length) delete out.podIPs;
  return out;
}
