// Facts derived from a Pod's spec alone: QoS class, container hashes, grace periods, the
// pod's cgroup parent, restart decisions.
import { createHash } from 'node:crypto';
import { quantityValue, stableStringify } from '../util/index.js';
import type { Pod } from '../api/kinds.js';
import type { Container } from 'kubernetes-types/core/v1.js';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export const containersOf = (pod: Pod): Container[] => pod.spec?.containers ?? [];
export const initContainersOf = (pod: Pod): Container[] => pod.spec?.initContainers ?? [];
/** Ephemeral containers have a container's fields (those forbidden to them are unset). */
export const ephemeralContainersOf = (pod: Pod): (Container & { targetContainerName?: string })[] => (pod.spec?.ephemeralContainers ?? []) as Container[];
export const restartPolicyOf = (pod: Pod): 'Always' | 'OnFailure' | 'Never' => (pod.spec?.restartPolicy ?? 'Always') as 'Always' | 'OnFailure' | 'Never';
export const podKey = (pod: Pod) => `${pod.metadata.namespace}/${pod.metadata.name}`;
/** Kubernetes' format.Pod: name_namespace(uid). */
export const podDescription = (pod: Pod) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/** Kubernetes' QoS rules: Guaranteed when every container has cpu and memory limits equal
 *  to its requests, BestEffort when nothing has requests or limits, else Burstable. */
export function qosClass(pod: Pod): QOSClass {
  const all = [...initContainersOf(pod), ...containersOf(pod)];
  let any = false;
  let guaranteed = true;
  // Only positive quantities count, as upstream's GetPodQOS (a request of 0 is none).
  const positive = (q: string | undefined) => {
    const v = quantityValue(q);
    return v !== null && v > 0 ? v : null;
  };
  for (const c of all) {
    const req: { [name: string]: string } = c.resources?.requests ?? {};
    const lim: { [name: string]: string } = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      const l = positive(lim[r]);
      const q = req[r] !== undefined ? positive(req[r]) : l;
      if (l !== null || q !== null) any = true;
      if (l === null || q === null || l !== q) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** cgroupfs parent for the pod: <root>/kubepods[/burstable|/besteffort]/pod<uid>. */
export function podCgroupParent(cgroupRoot: string, pod: Pod): string {
  const qos = qosClass(pod);
  const tier = qos === 'Guaranteed' ? '' : `/${qos.toLowerCase()}`;
  return `${cgroupRoot.replace(/\/+$/, '')}/kubepods${tier}/pod${pod.metadata.uid}`;
}

/** A hash of the container's spec: a running container whose hash differs is restarted. */
export function containerHash(container: Container): string {
  return createHash('sha256').update(stableStringify(container)).digest('hex').slice(0, 16);
}

/** Grace period for a deletion: the one the API set on deletion, else the spec's, else 30 s. */
export function gracePeriodSeconds(pod: Pod): number {
  const d = pod.metadata.deletionGracePeriodSeconds;
  if (typeof d === 'number') return d;
  const s = pod.spec?.terminationGracePeriodSeconds;
  return typeof s === 'number' ? s : 30;
}

/** Whether an exited container is started again under the pod's restartPolicy. */
export function shouldRestart(pod: Pod, exitCode: number): boolean {
  const policy = restartPolicyOf(pod);
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}
