// A StatefulSet pod's identity, after upstream's stateful_set_utils: the name <set>-<ordinal>,
// hostname and subdomain for DNS, the labels naming the pod and its index, and one claim per
// volumeClaimTemplate named <template>-<pod>.
import type { PersistentVolumeClaim, Pod, StatefulSet } from '../../api/kinds.js';
import type { Fields } from '../../api/object.js';
import { newControllerRef } from '../replicaset/controller-ref.js';
import { revisionHashLabel } from '../history/revisions.js';

export const podNameLabel = 'statefulset.kubernetes.io/pod-name';
export const podIndexLabel = 'apps.kubernetes.io/pod-index';

export function startOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata.name}-${ordinal}`;
}

/** The ordinal of a pod named <set>-<n>, or -1 when the name is not one of the set's. */
export function ordinalOf(set: StatefulSet, pod: Pod): number {
  const name = String(pod.metadata.name ?? '');
  const prefix = `${set.metadata.name}-`;
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : -1;
}

export function claimName(template: PersistentVolumeClaim, pod: string): string {
  return `${template.metadata.name}-${pod}`;
}

export function podRevision(pod: Pod): string | undefined {
  return pod.metadata.labels?.[revisionHashLabel];
}

/** Whether the pod carries the identity labels of its ordinal (hostname and subdomain are immutable on a pod). */
export function identityLabelsMatch(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(set, pod);
  return pod.metadata.labels?.[podNameLabel] === pod.metadata.name && pod.metadata.labels?.[podIndexLabel] === String(ordinal);
}

/** Sets the hostname, subdomain and identity labels (also on pods whose identity drifted). */
export function applyIdentity(set: StatefulSet, pod: Pod, ordinal: number): void {
  const name = podName(set, ordinal);
  pod.metadata.labels = { ...pod.metadata.labels, [podNameLabel]: name, [podIndexLabel]: String(ordinal) };
  pod.spec ??= { containers: [] };
  pod.spec.hostname = name;
  if (set.spec?.serviceName) pod.spec.subdomain = set.spec.serviceName;
  else delete pod.spec.subdomain;
}

/** The pod for `ordinal` from `template`, at revision `revision`. */
export function newPod(set: StatefulSet, template: Fields, ordinal: number, revision: string): Pod {
  const meta = template.metadata ?? {};
  const name = podName(set, ordinal);
  const pod: Pod = {
    metadata: {
      name, namespace: set.metadata.namespace,
      labels: { ...(meta.labels ?? {}), [revisionHashLabel]: revision },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec: structuredClone(template.spec ?? { containers: [] }),
  };
  applyIdentity(set, pod, ordinal);
  // Each template's claim replaces a template volume of the same name, as upstream mounts it.
  const claims = set.spec?.volumeClaimTemplates ?? [];
  if (claims.length) {
    const names = new Set(claims.map((c) => c.metadata?.name));
    const volumes = (pod.spec!.volumes ?? []).filter((v) => !names.has(v.name));
    for (const c of claims) volumes.push({ name: c.metadata!.name!, persistentVolumeClaim: { claimName: claimName(c as PersistentVolumeClaim, name) } });
    pod.spec!.volumes = volumes;
  }
  return pod;
}

/** The claim `template` asks for on behalf of the pod `pod`. */
export function newClaim(set: StatefulSet, template: PersistentVolumeClaim, pod: string): PersistentVolumeClaim {
  const selectorLabels = set.spec?.selector?.matchLabels ?? {};
  const claim: PersistentVolumeClaim = {
    metadata: {
      name: claimName(template, pod),
      namespace: set.metadata.namespace,
      labels: { ...(template.metadata.labels ?? {}), ...selectorLabels },
      ...(template.metadata.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
    },
    spec: structuredClone(template.spec ?? {}),
  };
  // whenDeleted: Delete makes the set an owner: the garbage collector removes the claim with it.
  if (set.spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete') {
    claim.metadata.ownerReferences = [{ ...newControllerRef(set, 'apps/v1', 'StatefulSet'), controller: undefined, blockOwnerDeletion: true }];
  }
  return claim;
}
