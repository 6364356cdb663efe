// A node for kubelet tests: a real containerd in a fresh network namespace, the kubelet as a
// process inside it (so probes and hooks reach pod IPs), an in-process API server bridged in,
// real kubectl. Pods are bound with spec.nodeName (no scheduler). Everything goes at teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startRuntimeEnv, type RuntimeEnv } from '../cri/runtime-env.js';
import { startAPIServer, type TestAPIServer } from '../helpers/api.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { kubectlFor, type Kubectl } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { bridgeIntoNetns } from './netns-bridge.js';

interface TestLike {
  teardown(fn: () => unknown): void;
  passing(): boolean;
}

export interface RealNode {
  env: RuntimeEnv;
  api: TestAPIServer;
  k: Kubectl;
  kubeconfig: string;
  nodeName: string;
  rootDir: string;
  /** The kubelet's log so far (the last 40 kB). */
  logs(): string;
  /** Starts the kubelet (again, after stopKubelet), with the extra flags given. */
  startKubelet(extra?: string[]): void;
  /** SIGKILL (default) or SIGTERM, and waits for the exit. */
  stopKubelet(signal?: NodeJS.Signals): Promise<void>;
  podJSON(name: string, ns?: string): Promise<any>;
}

/** Retries `check` until it stops throwing; fails with its last error after `ms`. */
export async function until(check: () => Promise<unknown>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function startRealNode(t: TestLike, opts: { nodeName?: string; kubeletFlags?: string[] } = {}): Promise<RealNode> {
  const env = await startRuntimeEnv(t);
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(env.dir, api.pki, `https://127.0.0.1:${api.port}`);
  await bridgeIntoNetns(t, env.netns, api.port, env.dir);
  const k = kubectlFor(t, kubeconfig);
  const nodeName = opts.nodeName ?? `node-${Math.random().toString(36).slice(2, 8)}`;
  const rootDir = join(env.dir, 'kubelet');
  let kubelet: ChildProcess | undefined;
  let logs = '';
  const startKubelet = (extra: string[] = opts.kubeletFlags ?? []) => {
    kubelet = spawn('nsenter', [`--net=/run/netns/${env.netns}`, '--', process.execPath, capstanBin, 'kubelet',
      '--kubeconfig', kubeconfig, '--hostname-override', nodeName, '--container-runtime-endpoint', env.containerd.socket,
      '--root-dir', rootDir, '--cgroup-root', env.cgroupParent, '--node-ip', '127.0.0.1',
      '--sync-frequency', '2s', '--resolv-conf', '/dev/null', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => { logs = (logs + d.toString()).slice(-40_000); };
    kubelet.stdout!.on('data', keep);
    kubelet.stderr!.on('data', keep);
  };
  const stopKubelet = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const p = kubelet;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill(signal);
    await gone;
  };
  t.teardown(() => stopKubelet());
  t.teardown(() => { if (!t.passing()) console.error(logs); });
  startKubelet();
  const node: RealNode = {
    env, api, k, kubeconfig, nodeName, rootDir, logs: () => logs, startKubelet, stopKubelet,
    podJSON: async (name, ns = 'default') => JSON.parse(await k.ok(['get', 'pod', name, '-n', ns, '-o', 'json'])),
  };
  await until(async () => {
    const n = JSON.parse(await k.ok(['get', 'node', nodeName, '-o', 'json']));
    if (n.status?.conditions?.find((c: any) => c.type === 'Ready')?.status !== 'True') throw new Error('node not Ready');
  }, 30_000, 'node Ready');
  return node;
}
