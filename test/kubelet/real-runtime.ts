// An in-process kubelet on a real containerd (test/cri/runtime-env.ts) with the API and the
// clock faked: back-off windows and GC ages are stepped, not waited for. Pods live under the
// runtime env's cgroup parent, so its teardown removes them. Also a small image builder for
// images that are not capstan's built-in ones (pushed to a registry, imported from a file).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CRIRuntime } from '../../cri/index.js';
import { FakeClientset, FakeClock, resources } from '../../src/client/index.js';
import type { Fields, KubeObject } from '../../src/api/object.js';
import { Kubelet, type KubeletOptions } from '../../src/kubelet/index.js';
import { ociArchive, tar, type OCIArchive, type TarEntry } from '../../src/kubelet/images/index.js';
import { logger } from '../../src/log/index.js';

interface Teardown { teardown(fn: () => unknown): void }

export interface RealKubelet {
  clock: FakeClock;
  api: FakeClientset;
  kubelet: Kubelet;
  /** Lets informer events and pod syncs (real CRI calls included) run out. */
  settle(): Promise<void>;
  /** Steps the fake clock in `step` ms steps, settling after each. */
  advance(ms: number, step?: number): Promise<void>;
  pod(name: string): KubeObject | undefined;
  events(reason?: string): Fields[];
  /** The waiting states of a pod's first container, in the order the kubelet wrote them. */
  waitingHistory(name: string): Fields[];
}

export async function startRealKubelet(t: Teardown, runtime: CRIRuntime, cgroupRoot: string, opts: Partial<KubeletOptions> = {}): Promise<RealKubelet> {
  const clock = new FakeClock();
  const api = new FakeClientset(clock);
  const root = mkdtempSync(join(tmpdir(), 'capstan-kubelet-real-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const kubelet = new Kubelet({
    nodeName: 'node-real', clients: api, runtime, rootDir: root, clock, nodeIP: '127.0.0.1', cgroupRoot,
    log: logger('kubelet', {}, () => undefined), resolvConf: '/dev/null',
    machine: { cpu: 2, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 100 * 2 ** 30, kernelVersion: '6.1.0', osImage: 'Test OS', machineID: 'm', systemUUID: 's', bootID: 'b', architecture: 'amd64' },
    pressure: async () => ({ memoryAvailableBytes: 2 * 2 ** 30, diskAvailableBytes: 50 * 2 ** 30, diskSizeBytes: 100 * 2 ** 30 }),
    ...opts,
  });
  const settle = async () => {
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setImmediate(r));
      await kubelet.workers.settle();
      await kubelet.imageGCPass;
    }
  };
  t.teardown(() => kubelet.stop());
  await kubelet.start();
  await settle();
  return {
    clock, api, kubelet, settle,
    advance: async (ms, step = 1000) => {
      for (let done = 0; done < ms; done += step) {
        clock.step(Math.min(step, ms - done));
        await settle();
      }
    },
    pod: (name) => api.get(resources.pods, 'default', name),
    events: (reason) => api.list(resources.events, 'default').filter((e) => !reason || e.reason === reason),
    waitingHistory: (name) => api.actions
      .filter((a) => a.resource === 'pods' && a.subresource === 'status' && a.name === name)
      .map((a) => ((a.object?.status?.containerStatuses ?? []) as Fields[])[0]?.state?.waiting as Fields | undefined)
      .filter((w): w is Fields => !!w),
  };
}

/** A small image: /bin/busybox with sh, sleep and cat, and /marker holding `marker`. */
export function markerImage(marker: string): OCIArchive {
  const entries: TarEntry[] = [
    { type: 'dir', path: 'bin' },
    { type: 'file', path: 'bin/busybox', data: readFileSync('/bin/busybox'), mode: 0o755 },
    ...['cat', 'sh', 'sleep'].map((n): TarEntry => ({ type: 'symlink', path: `bin/${n}`, target: '/bin/busybox' })),
    { type: 'dir', path: 'tmp', mode: 0o1777 },
    { type: 'file', path: 'marker', data: Buffer.from(`${marker}\n`) },
  ];
  return ociArchive(tar(entries), { Cmd: ['sleep', '3600'], Env: ['PATH=/bin'] });
}

export const podOf = (name: string, image: string, spec: Fields = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: 'node-real', restartPolicy: 'Always', terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image }], ...spec },
});
