// A kubelet on fakes: FakeClientset (the API), FakeRuntime (CRI), FakeClock, a scripted
// probe runner, a temp root dir. `settle()` lets informer events and pod syncs run out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeRuntime } from '../../cri/index.js';
import { FakeClientset, FakeClock, resources } from '../../src/client/index.js';
import type { Fields, KubeObject } from '../../src/api/object.js';
import { Kubelet } from '../../src/kubelet/index.js';
import type { ProbeOutcome } from '../../src/kubelet/prober.js';
import { logger } from '../../src/log/index.js';

export const NODE = 'node-a';
export const IMAGE = 'localhost/capstan/busybox:1';

export interface Harness {
  clock: FakeClock;
  api: FakeClientset;
  runtime: FakeRuntime;
  kubelet: Kubelet;
  root: string;
  /** What probes and hooks answer: key `${containerName}/${kind}` (kind exec|httpGet|tcpSocket). */
  probeAnswers: Map<string, boolean>;
  probeCalls: { container: string; action: Fields }[];
  cgroupsRemoved: string[];
  settle(): Promise<void>;
  /** Advance the clock in steps, settling after each. */
  advance(ms: number, step?: number): Promise<void>;
  pod(name: string): KubeObject | undefined;
  createPod(pod: KubeObject): Promise<KubeObject>;
  events(reason?: string): Fields[];
  /** A fresh kubelet on the same runtime and API (restart). */
  restartKubelet(): Promise<Kubelet>;
}

interface Teardown { teardown(fn: () => unknown): void }

export function podSpec(name: string, spec: Fields = {}, meta: Fields = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'default', ...meta },
    spec: { nodeName: NODE, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent' }], ...spec },
  };
}

export async function startHarness(t: Teardown, opts: { start?: boolean; runtime?: FakeRuntime; api?: FakeClientset; clock?: FakeClock } = {}): Promise<Harness> {
  const clock = opts.clock ?? new FakeClock();
  const api = opts.api ?? new FakeClientset(clock);
  const runtime = opts.runtime ?? new FakeRuntime({ now: () => clock.now(), images: [IMAGE, 'localhost/capstan/pause:1'] });
  const root = mkdtempSync(join(tmpdir(), 'capstan-kubelet-unit-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const probeAnswers = new Map<string, boolean>();
  const probeCalls: { container: string; action: Fields }[] = [];
  const cgroupsRemoved: string[] = [];
  const make = () => new Kubelet({
    nodeName: NODE, clients: api, runtime, rootDir: root, clock, nodeIP: '192.0.2.10',
    log: logger('kubelet', {}, () => undefined),
    machine: { cpu: 4, memoryBytes: 8 * 2 ** 30, ephemeralStorageBytes: 100 * 2 ** 30, kernelVersion: '6.1.0', osImage: 'Test OS', machineID: 'm', systemUUID: 's', bootID: 'b', architecture: 'amd64' },
    pressure: async () => ({ memoryAvailableBytes: 4 * 2 ** 30, diskAvailableBytes: 50 * 2 ** 30, diskSizeBytes: 100 * 2 ** 30 }),
    removeCgroup: (p) => { cgroupsRemoved.push(p); },
    ensureCgroup: () => undefined,
    resolvConf: '/nonexistent',
    probeRunner: async (action, target): Promise<ProbeOutcome> => {
      const kind = action.exec ? 'exec' : action.httpGet ? 'httpGet' : 'tcpSocket';
      probeCalls.push({ container: target.container.name, action });
      const ok = probeAnswers.get(`${target.container.name}/${kind}`) ?? true;
      return { ok, output: ok ? '' : kind === 'httpGet' ? 'HTTP probe failed with statuscode: 500' : 'probe says no' };
    },
  });
  let kubelet = make();
  const settle = async () => {
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setImmediate(r));
      await kubelet.workers.settle();
    }
  };
  const h: Harness = {
    clock, api, runtime, kubelet, root, probeAnswers, probeCalls, cgroupsRemoved, settle,
    advance: async (ms, step = 1000) => {
      for (let done = 0; done < ms; done += step) {
        clock.step(Math.min(step, ms - done));
        await settle();
      }
    },
    pod: (name) => api.get(resources.pods, 'default', name),
    createPod: async (pod) => {
      const p = await api.resource(resources.pods).create('default', pod);
      await settle();
      return p;
    },
    events: (reason) => api.list(resources.events, 'default').filter((e) => !reason || e.reason === reason),
    restartKubelet: async () => {
      await kubelet.stop();
      kubelet = make();
      h.kubelet = kubelet;
      await kubelet.start();
      await settle();
      return kubelet;
    },
  };
  t.teardown(() => h.kubelet.stop());
  if (opts.start !== false) {
    await kubelet.start();
    await settle();
  }
  return h;
}

export const calls = (runtime: FakeRuntime, method: string) => runtime.calls.filter((c) => c.method === method);
export const cs = (pod: KubeObject | undefined, name = 'main') =>
  ((pod?.status?.containerStatuses ?? []) as Fields[]).find((c) => c.name === name);
export const cond = (pod: KubeObject | undefined, type: string) =>
  ((pod?.status?.conditions ?? []) as Fields[]).find((c) => c.type === type);
