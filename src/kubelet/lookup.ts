// Finding a pod's container in the runtime by (namespace, pod, container) through the CRI
// labels the kubelet sets: what the kubelet's log/exec server needs, with no access to the
// kubelet's memory (it works the same right after a kubelet restart).
import type { CRIRuntime } from '../../cri/index.js';
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL, RESTART_COUNT_ANNOTATION } from './labels.js';

export interface FoundContainer {
  id: string;
  podUID: string;
  sandboxId: string;
  name: string;
  restartCount: number;
  state: string;
  /** Absolute path of its CRI log file ('' when the runtime reports none). */
  logPath: string;
}

export interface FindOptions {
  /** The instance before the newest (kubectl logs --previous). */
  previous?: boolean;
  /** Only this pod uid (a pod recreated under the same name is another pod). */
  uid?: string;
}

/**
 * The newest instance of `container` in pod `namespace/pod` (or the previous one), or
 * undefined. With `container` omitted, the pod must have exactly one container name.
 */
export async function findContainer(
  runtime: CRIRuntime, namespace: string, pod: string, container?: string, opts: FindOptions = {},
): Promise<FoundContainer | undefined> {
  const selector: Record<string, string> = { [POD_NAMESPACE_LABEL]: namespace, [POD_NAME_LABEL]: pod };
  if (container) selector[CONTAINER_NAME_LABEL] = container;
  if (opts.uid) selector[POD_UID_LABEL] = opts.uid;
  let list = await runtime.listContainers({ label_selector: selector });
  if (!container) {
    const names = new Set(list.map((c) => c.labels[CONTAINER_NAME_LABEL]));
    if (names.size !== 1) return undefined;
  }
  // The newest pod (by uid of the newest container) wins when a name was reused.
  list = [...list].sort((a, b) => Number(BigInt(b.created_at) - BigInt(a.created_at)));
  const uid = list[0]?.labels[POD_UID_LABEL];
  const mine = list.filter((c) => c.labels[POD_UID_LABEL] === uid)
    .sort((a, b) => Number(b.annotations[RESTART_COUNT_ANNOTATION] ?? 0) - Number(a.annotations[RESTART_COUNT_ANNOTATION] ?? 0));
  const c = mine[opts.previous ? 1 : 0];
  if (!c) return undefined;
  let logPath = '';
  try {
    logPath = (await runtime.containerStatus(c.id)).status?.log_path ?? '';
  } catch { /* gone meanwhile */ }
  return {
    id: c.id, podUID: uid, sandboxId: c.pod_sandbox_id, name: c.labels[CONTAINER_NAME_LABEL],
    restartCount: Number(c.annotations[RESTART_COUNT_ANNOTATION] ?? 0), state: c.state, logPath,
  };
}

/** Just the ID (see findContainer). */
export async function findContainerID(runtime: CRIRuntime, namespace: string, pod: string, container?: string): Promise<string | undefined> {
  return (await findContainer(runtime, namespace, pod, container))?.id;
}
