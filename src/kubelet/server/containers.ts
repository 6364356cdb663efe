// Which runtime container a request means: the labels Kubernetes' kubelet puts on every CRI
// container name its pod and container, so the server needs no state of its own.
import type { Container, CRIRuntime } from '../../../cri/index.js';

export const LABELS = {
  podNamespace: 'io.kubernetes.pod.namespace',
  podName: 'io.kubernetes.pod.name',
  podUID: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
} as const;

export class ContainerLookupError extends Error {
  constructor(readonly code: 400 | 404, message: string) {
    super(message);
  }
}

type Lister = Pick<CRIRuntime, 'listContainers'>;

export async function containersOf(cri: Lister, namespace: string, pod: string, container: string, podUID?: string): Promise<Container[]> {
  const label_selector: Record<string, string> = {
    [LABELS.podNamespace]: namespace, [LABELS.podName]: pod, [LABELS.containerName]: container,
  };
  if (podUID) label_selector[LABELS.podUID] = podUID;
  const list = await cri.listContainers({ label_selector });
  // Newest first: by attempt, then creation time (attempts restart at 0 in a new sandbox).
  return list.sort((a, b) => compareBig(b.created_at, a.created_at) || (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0));
}

/** The container to read or exec into: the running one, else the newest; for `previous`, the
 *  newest exited one that is not the current container. */
export async function findContainer(cri: Lister, namespace: string, pod: string, container: string, opts: { previous?: boolean; podUID?: string } = {}): Promise<Container> {
  const found0 = await containersOf(cri, namespace, pod, container, opts.podUID);
  // A pod deleted and created again under the same name has a new UID: only the newest
  // incarnation's containers count (the older ones wait for garbage collection).
  const uid = found0[0]?.labels[LABELS.podUID];
  const all = uid ? found0.filter((c) => c.labels[LABELS.podUID] === uid) : found0;
  if (opts.previous) {
    const [current, ...older] = all;
    const prev = older.find((c) => c.state === 'CONTAINER_EXITED');
    if (!current || !prev) throw new ContainerLookupError(400, `previous terminated container "${container}" in pod "${pod}" not found`);
    return prev;
  }
  const found = all.find((c) => c.state === 'CONTAINER_RUNNING') ?? all[0];
  if (!found) throw new ContainerLookupError(404, `container "${container}" in pod "${pod}" is not available`);
  return found;
}

function compareBig(a: string, b: string): number {
  const x = BigInt(a || '0'), y = BigInt(b || '0');
  return x < y ? -1 : x > y ? 1 : 0;
}
