// Emptying a terminating namespace: delete every object of every namespaced resource, then
// count what is still there (objects waiting for a kubelet or for finalizers).
import type { KubeObject } from '../../api/object.js';
import { isConflict, isNotFound, type ClientsetAPI, type ResourceType } from '../../client/index.js';
import type { Pod } from '../../api/kinds.js';

export interface ContentStatus {
  /** `pods.` / `deployments.apps` → objects still present. */
  remaining: Map<string, number>;
  /** finalizer → objects still carrying it. */
  finalizers: Map<string, number>;
  /** Resources whose list or delete failed, with the error. */
  failures: string[];
  /** Seconds until the remaining objects are expected to be gone (Kubernetes' estimate). */
  estimateSeconds: number;
}

export const resourceLabel = (t: ResourceType): string => `${t.resource}.${t.group}`;

/** How long a terminating Pod may still take: what is left of its grace period. */
function podEstimate(pod: Pod, now: number): number {
  const grace = Number(pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30);
  if (!pod.metadata.deletionTimestamp) return grace;
  const left = Date.parse(pod.metadata.deletionTimestamp) / 1000 + grace - now / 1000;
  return Math.max(0, Math.ceil(left));
}

async function deleteAll(clients: ClientsetAPI, type: ResourceType, namespace: string): Promise<KubeObject[]> {
  const api = clients.resource(type);
  const { items } = await api.listAll(namespace);
  if (!items.length) return [];
  for (const item of items) {
    if (item.metadata.deletionTimestamp) continue;
    try {
      await api.delete(namespace, item.metadata.name as string, { propagationPolicy: 'Background', preconditions: { uid: item.metadata.uid } });
    } catch (e) {
      // Gone already, or replaced by a newer object of that name: the next look sees it.
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
  // What is left: graceful deletions (Pods waiting for their kubelet) and pending finalizers.
  return (await api.listAll(namespace)).items;
}

/** Deletes the namespace's content and reports what remains. */
export async function deleteContent(clients: ClientsetAPI, types: readonly ResourceType[], namespace: string, now: number): Promise<ContentStatus> {
  const status: ContentStatus = { remaining: new Map(), finalizers: new Map(), failures: [], estimateSeconds: 0 };
  for (const type of types) {
    let left: KubeObject[];
    try {
      left = await deleteAll(clients, type, namespace);
    } catch (e) {
      status.failures.push(`${resourceLabel(type)}: ${(e as Error).message}`);
      continue;
    }
    if (!left.length) continue;
    status.remaining.set(resourceLabel(type), left.length);
    for (const o of left) {
      for (const f of o.metadata.finalizers ?? []) status.finalizers.set(f, (status.finalizers.get(f) ?? 0) + 1);
      if (type.group === '' && type.resource === 'pods') status.estimateSeconds = Math.max(status.estimateSeconds, podEstimate(o, now));
    }
  }
  return status;
}
