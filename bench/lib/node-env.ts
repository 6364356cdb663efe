// A node for kubelet benchmarks: a private containerd in a scratch network namespace, an
// in-process API server, and two admin clientsets (one for the kubelet, one for the
// benchmark's own watches and creates). Torn down through `t`.
import { clientsetFromKubeconfig, type Clientset } from '../../src/client/index.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startRuntimeEnv, runtimeUnavailable, type RuntimeEnv } from '../../test/cri/runtime-env.js';
import { startAPIServer } from '../../test/helpers/api.js';

export interface BenchNode { env: RuntimeEnv; clients: Clientset; watcherClients: Clientset }

export async function startBenchNode(t: { teardown(fn: () => unknown): void }, bench: string): Promise<BenchNode> {
  const why = runtimeUnavailable();
  if (why) throw new Error(`${bench}: ${why}`);
  const env = await startRuntimeEnv(t);
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(env.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'bench-kubelet');
  const watcherClients = clientsetFromKubeconfig(kubeconfig, 'bench-watch');
  t.teardown(() => { clients.close(); watcherClients.close(); });
  return { env, clients, watcherClients };
}
