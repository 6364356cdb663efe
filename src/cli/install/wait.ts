// Waiting for what the installer started: the API server answering, a Node turning Ready.
import { APIError, clientsetFromKubeconfig, resources } from '../../client/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries `f` every `everyMs` until it returns a value other than undefined, or throws the last error at the deadline. */
export async function until<T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>, everyMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(everyMs);
  }
}

/** `f` again while it fails without an answer from the API server (a connection reset or hung
 *  up, or no answer in time: a starved machine's server drops some), until the deadline; an
 *  answer (any other APIError) is final. Only for idempotent steps. */
export async function retryingTransport<T>(what: string, timeoutMs: number, f: () => Promise<T>, everyMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await f();
    } catch (e) {
      const answered = e instanceof APIError && !(e.code === 504 && e.reason === 'Timeout'); // 504 Timeout: the client gave up waiting
      if (answered || Date.now() > deadline) throw e;
      process.stderr.write(`capstan install: ${what}: ${(e as Error).message}; trying again\n`);
    }
    await sleep(everyMs);
  }
}

/** The API server is ready: the admin can read kube-system, and RBAC's bootstrap roles are there. */
export async function apiServerReady(kubeconfig: string, timeoutMs: number): Promise<void> {
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-install');
  try {
    await until('the API server', timeoutMs, async () => {
      await clients.resource(resources.namespaces).get(undefined, 'kube-system');
      await clients.resource(resources.clusterroles).get(undefined, 'system:node-bootstrapper');
      return true;
    });
  } finally {
    clients.close();
  }
}

/** The Node is Ready, as its kubelet reports. */
export async function nodeReady(kubeconfig: string, nodeName: string, timeoutMs: number): Promise<void> {
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-install');
  try {
    await until(`node ${nodeName} to be Ready`, timeoutMs, async () => {
      const node = await clients.resource(resources.nodes).get(undefined, nodeName);
      return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    });
  } finally {
    clients.close();
  }
}
