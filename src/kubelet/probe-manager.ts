// Probe workers: one per (running container, probe type), timed by the injected clock.
// Results are cached per container ID: readiness starts false, liveness true, startup
// false; liveness and readiness wait until startup succeeded. A changed result wakes the
// pod's worker (onChange), which acts on it: not Ready, or kill and restart.
import type { Clock, EventRecorder } from '../client/index.js';
import type { ProbeRunner } from './prober.js';
import type { Pod } from '../api/kinds.js';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';

export type ProbeType = 'liveness' | 'readiness' | 'startup';
const probeField: Record<ProbeType, 'livenessProbe' | 'readinessProbe' | 'startupProbe'> = { liveness: 'livenessProbe', readiness: 'readinessProbe', startup: 'startupProbe' };
const probeName: Record<ProbeType, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

export interface ProbedContainer {
  pod: Pod;
  container: Container;
  containerId: string;
  startedAt: number;
  podIP: string;
}

interface Worker {
  type: ProbeType;
  target: ProbedContainer;
  probe: Probe;
  timer?: unknown;
  successes: number;
  failures: number;
  result: boolean;
  running: boolean;
  stopped: boolean;
}

export class ProbeManager {
  private workers = new Map<string, Worker>();

  constructor(
    private runner: ProbeRunner,
    private clock: Clock,
    private onChange: (podUID: string) => void,
    private recorder?: EventRecorder,
  ) {}

  private key(id: string, type: ProbeType) {
    return `${id}/${type}`;
  }

  /** Makes sure the running containers have their probe workers; stops workers of
   *  containers not in `running` for this pod. */
  sync(podUID: string, running: ProbedContainer[]): void {
    const keep = new Set<string>();
    for (const r of running) {
      for (const type of ['startup', 'liveness', 'readiness'] as ProbeType[]) {
        const probe = r.container[probeField[type]];
        if (!probe) continue;
        const key = this.key(r.containerId, type);
        keep.add(key);
        const w = this.workers.get(key);
        if (w) { w.target = r; continue; }
        this.start({ type, target: r, probe, successes: 0, failures: 0, result: type === 'liveness', running: false, stopped: false }, key);
      }
    }
    for (const [key, w] of this.workers) {
      if (w.target.pod.metadata.uid === podUID && !keep.has(key)) this.stop(key);
    }
  }

  /** Stops every worker of the pod. */
  removePod(podUID: string): void {
    for (const [key, w] of this.workers) if (w.target.pod.metadata.uid === podUID) this.stop(key);
  }

  private start(w: Worker, key: string): void {
    this.workers.set(key, w);
    const delay = Math.max(0, w.target.startedAt + (w.probe.initialDelaySeconds ?? 0) * 1000 - this.clock.now());
    w.timer = this.clock.setTimeout(() => void this.tick(key, w), delay);
  }

  private stop(key: string): void {
    const w = this.workers.get(key);
    if (!w) return;
    w.stopped = true;
    if (w.timer !== undefined) this.clock.clearTimeout(w.timer);
    this.workers.delete(key);
  }

  private async tick(key: string, w: Worker): Promise<void> {
    if (w.stopped) return;
    const period = Math.max(1, w.probe.periodSeconds ?? 10) * 1000;
    const gated = w.type !== 'startup' && w.target.container.startupProbe && !this.started(w.target.containerId);
    const startupDone = w.type === 'startup' && w.result;
    if (!gated && !startupDone) {
      w.running = true;
      const outcome = await this.runner(w.probe, { containerId: w.target.containerId, podIP: w.target.podIP, container: w.target.container }, w.probe.timeoutSeconds ?? 1);
      w.running = false;
      if (w.stopped) return;
      this.record(w, outcome.ok, outcome.output);
    }
    w.timer = this.clock.setTimeout(() => void this.tick(key, w), period);
  }

  private record(w: Worker, ok: boolean, output: string): void {
    const before = w.result;
    if (ok) {
      w.failures = 0;
      w.successes++;
      const threshold = w.type === 'readiness' ? (w.probe.successThreshold ?? 1) : 1;
      if (w.successes >= threshold) w.result = true;
    } else {
      w.successes = 0;
      w.failures++;
      this.recorder?.event(w.target.pod, 'Warning', 'Unhealthy', `${probeName[w.type]} probe failed: ${output.trim()}`);
      if (w.failures >= (w.probe.failureThreshold ?? 3)) w.result = false;
    }
    // A failed liveness/startup result is acted on once: the container gets killed and the
    // next one gets a fresh worker.
    if (before !== w.result || (!w.result && w.type !== 'readiness')) this.onChange(w.target.pod.metadata.uid as string);
  }

  private result(id: string, type: ProbeType): boolean | undefined {
    return this.workers.get(this.key(id, type))?.result;
  }

  /** Ready from the readiness probe (true when the container has none). */
  ready(id: string, container: Container): boolean {
    if (container.startupProbe && !this.started(id)) return false;
    if (!container.readinessProbe) return true;
    return this.result(id, 'readiness') ?? false;
  }

  /** Started from the startup probe (true when the container has none). */
  started(id: string, container?: Container): boolean {
    const w = this.workers.get(this.key(id, 'startup'));
    if (!w) return container ? !container.startupProbe : true;
    return w.result;
  }

  /** 'Liveness' or 'Startup' when that probe has failed past its threshold: kill it. */
  failed(id: string, container: Container): 'Liveness' | 'Startup' | undefined {
    if (container.livenessProbe && this.result(id, 'liveness') === false) return 'Liveness';
    const s = this.workers.get(this.key(id, 'startup'));
    if (s && !s.result && s.failures >= (s.probe.failureThreshold ?? 3)) return 'Startup';
    return undefined;
  }

  /** The probe's own terminationGracePeriodSeconds, if set. */
  probeGrace(container: Container, which: 'Liveness' | 'Startup'): number | undefined {
    const p = container[which === 'Liveness' ? 'livenessProbe' : 'startupProbe'];
    return typeof p?.terminationGracePeriodSeconds === 'number' ? p.terminationGracePeriodSeconds : undefined;
  }

  get size(): number {
    return this.workers.size;
  }
}
