// Stopping containers the way the kubelet does: event Killing, the preStop hook within the
// grace period, then StopContainer with what is left of it (at least 2 s, Kubernetes'
// minimum once a hook ran). postStart runs right after a start; a failure kills it.
import { isNotFound, type CRIRuntime } from '../../cri/index.js';
import type { Clock, EventRecorder } from '../client/index.js';
import { podDescription } from './pod-spec.js';
import type { ProbeOutcome, ProbeRunner, ProbeTarget } from './prober.js';
import type { Waiting } from './status.js';
import type { ContainerState } from './runtime-state.js';
import type { Pod } from '../api/kinds.js';
import type { Container, LifecycleHandler } from 'kubernetes-types/core/v1.js';

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
      runHook(d, preStop, { containerId: c.id, podIP, container: spec! }, grace),
      new Promise<{ ok: boolean; output: string }>((r) => d.clock.setTimeout(() => r({ ok: false, output: 'timeout' }), grace * 1000)),
    ]);
    if (!outcome.ok) d.recorder?.event(pod, 'Warning', 'FailedPreStopHook', hookFailure(pod, spec!, preStop, outcome));
    grace = Math.max(MIN_GRACE_AFTER_HOOK, grace - Math.floor((d.clock.now() - start) / 1000));
  }
  try {
    await d.runtime.stopContainer(c.id, grace);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** Upstream's handler messages: what a failed lifecycle hook's event says. */
function hookFailure(pod: Pod, spec: Container, hook: LifecycleHandler, outcome: ProbeOutcome): string {
  const where = `for Container ${JSON.stringify(spec.name)} in Pod ${JSON.stringify(podDescription(pod))}`;
  if (hook.exec) {
    const cmd: string[] = hook.exec.command ?? [];
    const error = outcome.exitCode !== undefined ? `command '${cmd.join(' ')}' exited with ${outcome.exitCode}: ${outcome.stderr ?? ''}` : outcome.output;
    const output = outcome.exitCode !== undefined ? outcome.output : '';
    return `Exec lifecycle hook ([${cmd.join(' ')}]) ${where} failed - error: ${error}, message: ${JSON.stringify(output)}`;
  }
  if (hook.httpGet) return `HTTP lifecycle hook (${hook.httpGet.path ?? ''}) ${where} failed - error: ${outcome.output}`;
  return `${hook.sleep ? 'Sleep' : 'Unknown'} lifecycle hook ${where} failed - error: ${outcome.output}`;
}

/** Runs one hook; an HTTP hook fails only when no response came (upstream ignores the status). */
async function runHook(d: LifecycleDeps, hook: LifecycleHandler, target: ProbeTarget, timeoutSeconds: number): Promise<ProbeOutcome> {
  if (hook.sleep) {
    await new Promise((r) => d.clock.setTimeout(() => r(undefined), Number(hook.sleep!.seconds) * 1000));
    return { ok: true, output: '' };
  }
  const outcome = await d.runner(hook, target, timeoutSeconds);
  return hook.httpGet && outcome.httpStatus !== undefined ? { ...outcome, ok: true } : outcome;
}

/** Runs postStart; on failure the event `FailedPostStartHook`, the container killed (event
 *  Killing "FailedPostStartHook", its preStop and grace as any kill) and the reason returned. */
export async function runPostStart(d: LifecycleDeps, pod: Pod, c: ContainerState, spec: Container, podIP: string): Promise<Waiting | undefined> {
  const hook = spec.lifecycle?.postStart;
  if (!hook) return undefined;
  const outcome = await runHook(d, hook, { containerId: c.id, podIP, container: spec }, pod.spec?.terminationGracePeriodSeconds ?? 30);
  if (outcome.ok) return undefined;
  const message = hookFailure(pod, spec, hook, outcome);
  d.recorder?.event(pod, 'Warning', 'FailedPostStartHook', message);
  await killContainer(d, pod, c, spec, pod.spec?.terminationGracePeriodSeconds ?? 30, 'FailedPostStartHook', podIP);
  return { reason: 'PostStartHookError', message };
}
