// A node for kubelet benchmarks: a private containerd in a scratch network namespace, an
// in-process API server, and two admin clientsets (one for the kubelet, one for the
// benchmark's own watches and creates). Torn down through `t`.
import type { CRIClient } from '../../cri/index.js';
import { clientsetFromKubeconfig, type Clientset } from '../../src/client/index.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { BUSYBOX_IMAGE, PAUSE_IMAGE } from '../../src/kubelet/images/index.js';
import { startRuntimeEnv, runtimeUnavailable, type RuntimeEnv } from '../../test/cri/runtime-env.js';
import { startAPIServer } from '../../test/helpers/api.js';

export interface BenchNode { env: RuntimeEnv; clients: Clientset; watcherClients: Clientset }

/**
 * The images the kubelet benchmarks run: the sandbox's and busybox. Not the node image, which
 * strips and packs the node binary (tens of seconds on a loaded machine) for no benchmark.
 */
export const BENCH_IMAGES = [PAUSE_IMAGE, BUSYBOX_IMAGE];

/** A private containerd with the bench images, torn down through `t`. */
export function startBenchRuntime(t: { teardown(fn: () => unknown): void }): Promise<RuntimeEnv> {
  return startRuntimeEnv(t, { images: BENCH_IMAGES });
}

export async function startBenchNode(t: { teardown(fn: () => unknown): void }, bench: string): Promise<BenchNode> {
  const why = runtimeUnavailable();
  if (why) throw new Error(`${bench}: ${why}`);
  const env = await startBenchRuntime(t);
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(env.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'bench-kubelet');
  const watcherClients = clientsetFromKubeconfig(kubeconfig, 'bench-watch');
  t.teardown(() => { clients.close(); watcherClients.close(); });
  return { env, clients, watcherClients };
}

/** Stops and removes every pod sandbox (and so its containers): the next round starts on an empty runtime. */
export async function clearRuntime(cri: CRIClient): Promise<void> {
  for (const sb of await cri.listPodSandbox()) {
    await cri.stopPodSandbox(sb.id);
    await cri.removePodSandbox(sb.id);
  }
}
