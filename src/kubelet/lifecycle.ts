// Stopping containers the way the kubelet does: event Killing, the preStop hook within the
// grace period, then StopContainer with what is left of it (at least 2 s, Kubernetes'
// minimum once a hook ran). postStart runs right after a start; a failure kills it.
import { isNotFound, type CRIRuntime } from '../../cri/index.js';
import type { Clock, EventRecorder } from '../client/index.js';
import type { ProbeRunner } from './prober.js';
import type { ContainerState } from './runtime-state.js';
import type { Pod } from '../api/kinds.js';
import type { Container } from 'kubernetes-types/core/v1.js';

const MIN_GRACE_AFTER_HOOK = 2;

export interface LifecycleDeps {
  runtime: CRIRuntime;
  runner: ProbeRunner;
  recorder?: EventRecorder;
  clock: Clock;
}

/** Stops a container within `graceSeconds`, running its preStop hook first when it is running. */
export async function killContainer(
  d: LifecycleDeps, pod: Pod, c: ContainerState, spec: Container | undefined, graceSeconds: number, message: string, podIP: string,
): Promise<void> {
  if (c.state !== 'CONTAINER_RUNNING' && c.state !== 'CONTAINER_CREATED') return;
  d.recorder?.event(pod, 'Normal', 'Killing', message);
  let grace = Math.max(0, Math.floor(graceSeconds));
  const preStop = spec?.lifecycle?.preStop;
  if (preStop && c.state === 'CONTAINER_RUNNING' && grace > 0) {
    const start = d.clock.now();
    const outcome = await Promise.race([
      d.runner(preStop, { containerId: c.id, podIP, container: spec! }, grace),
      new Promise<{ ok: boolean; output: string }>((r) => d.clock.setTimeout(() => r({ ok: false, output: 'timeout' }), grace * 1000)),
    ]);
    if (!outcome.ok) {
      d.recorder?.event(pod, 'Warning', 'FailedPreStopHook', `PreStopHook failed: ${outcome.output}`);
    }
    grace = Math.max(MIN_GRACE_AFTER_HOOK, grace - Math.floor((d.clock.now() - start) / 1000));
  }
  try {
    await d.runtime.stopContainer(c.id, grace);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** Runs postStart; false (after killing the container) when it failed. */
export async function runPostStart(d: LifecycleDeps, pod: Pod, id: string, spec: Container, podIP: string): Promise<boolean> {
  const hook = spec.lifecycle?.postStart;
  if (!hook) return true;
  const outcome = await d.runner(hook, { containerId: id, podIP, container: spec }, 30);
  if (outcome.ok) return true;
  d.recorder?.event(pod, 'Warning', 'FailedPostStartHook', `PostStartHook failed: ${outcome.output}`);
  try {
    await d.runtime.stopContainer(id, pod.spec?.terminationGracePeriodSeconds ?? 30);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  return false;
}
