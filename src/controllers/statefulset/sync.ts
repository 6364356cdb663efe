// One pass of the StatefulSet algorithm, after upstream's defaultStatefulSetControl: make every
// ordinal in [start, start+replicas) exist (in order and one at a time for OrderedReady, all at
// once for Parallel), remove the ordinals beyond it from the highest down, then roll pods from
// the highest ordinal down to the partition onto the update revision, at most maxUnavailable
// at a time. Each step that must wait for a pod returns; the next event resumes it.
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '../../api/kinds.js';
import type { Fields } from '../../api/object.js';
import { isAlreadyExists, isConflict, isNotFound, type EventRecorder, type Lister, type ResourceAPI } from '../../client/index.js';
import { resolveIntOrPercent } from '../deployment/util.js';
import { claimName, identityLabelsMatch, newClaim, newPod, ordinalOf, podIndexLabel, podName, podNameLabel, podRevision, startOrdinal } from './identity.js';
import { isFinished, isHealthy, isTerminating } from './pods.js';

export interface SyncDeps {
  pods: ResourceAPI<Pod>;
  claims: ResourceAPI<PersistentVolumeClaim>;
  claimLister: Lister<PersistentVolumeClaim>;
  recorder: EventRecorder;
  now: number;
}

export interface Revisions {
  current: ControllerRevision;
  update: ControllerRevision;
  currentTemplate: Fields;
  updateTemplate: Fields;
}

const asSet = (set: StatefulSet): StatefulSet => ({ ...set, apiVersion: 'apps/v1', kind: 'StatefulSet' });

/** Pods by ordinal slot ([start, start+replicas)) and the condemned ones beyond, lowest first. */
export function partitionPods(set: StatefulSet, pods: Pod[]): { replicas: (Pod | undefined)[]; condemned: Pod[] } {
  const start = startOrdinal(set);
  const want = set.spec?.replicas ?? 1;
  const replicas: (Pod | undefined)[] = Array.from({ length: want }, () => undefined);
  const condemned: Pod[] = [];
  for (const p of pods) {
    const ord = ordinalOf(set, p);
    if (ord < 0) continue;
    if (ord >= start && ord < start + want) replicas[ord - start] = p;
    else condemned.push(p);
  }
  condemned.sort((a, b) => ordinalOf(set, a) - ordinalOf(set, b));
  return { replicas, condemned };
}

/** The revision a new pod for slot `index` starts at: below the partition it keeps the current one. */
function revisionFor(set: StatefulSet, index: number, r: Revisions): { template: Fields; revision: string } {
  const strategy = set.spec?.updateStrategy;
  const partition = strategy?.rollingUpdate?.partition ?? 0;
  if (strategy?.type !== 'OnDelete' && index < partition) return { template: r.currentTemplate, revision: r.current.metadata.name as string };
  return { template: r.updateTemplate, revision: r.update.metadata.name as string };
}

export class StatefulSetSync {
  constructor(private readonly d: SyncDeps) {}

  /** Runs the pass; returns when it must wait. Pods it deletes or creates show up on the next one. */
  async run(set: StatefulSet, pods: Pod[], r: Revisions): Promise<void> {
    const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
    const minReady = set.spec?.minReadySeconds ?? 0;
    const healthy = (p: Pod) => isHealthy(p, minReady, this.d.now);
    const start = startOrdinal(set);
    const { replicas, condemned } = partitionPods(set, pods);

    for (let i = 0; i < replicas.length; i++) {
      const pod = replicas[i];
      if (pod && isFinished(pod) && !isTerminating(pod)) {
        // A failed or finished pod is replaced under the same name.
        await this.deletePod(set, pod);
        if (monotonic) return;
        continue;
      }
      if (!pod) {
        const { template, revision } = revisionFor(set, i, r);
        await this.createPod(set, newPod(set, template, start + i, revision));
        if (monotonic) return;
        continue;
      }
      if (monotonic && !healthy(pod)) return;
      if (!identityLabelsMatch(set, pod) && !isTerminating(pod)) await this.fixIdentity(set, pod, start + i);
    }

    const firstUnhealthy = [...replicas, ...condemned].find((p) => p && !healthy(p));
    for (let i = condemned.length - 1; i >= 0; i--) {
      const pod = condemned[i];
      if (isTerminating(pod)) { if (monotonic) return; continue; }
      if (monotonic && !healthy(pod) && pod !== firstUnhealthy) return;
      await this.retireClaims(set, pod);
      await this.deletePod(set, pod);
      if (monotonic) return;
    }

    if (set.spec?.updateStrategy?.type === 'OnDelete') return;
    await this.rollingUpdate(set, replicas as Pod[], r, healthy);
  }

  private async rollingUpdate(set: StatefulSet, replicas: Pod[], r: Revisions, healthy: (p: Pod) => boolean): Promise<void> {
    const ru = set.spec?.updateStrategy?.rollingUpdate;
    const partition = Math.min(ru?.partition ?? 0, replicas.length);
    const maxUnavailable = Math.max(1, resolveIntOrPercent(ru?.maxUnavailable ?? 1, set.spec?.replicas ?? 1, false));
    const updateName = r.update.metadata.name;
    let unavailable = replicas.slice(partition).filter((p) => !healthy(p)).length;
    for (let i = replicas.length - 1; i >= partition; i--) {
      const pod = replicas[i];
      if (podRevision(pod) !== updateName && !isTerminating(pod)) {
        // An unhealthy old pod costs no extra unavailability to replace.
        if (healthy(pod)) {
          if (unavailable >= maxUnavailable) return;
          unavailable++;
        }
        await this.deletePod(set, pod);
        continue;
      }
      // With one pod at a time, wait for the one just replaced before going lower (upstream's order).
      if (!healthy(pod) && maxUnavailable === 1) return;
    }
  }

  private async createClaims(set: StatefulSet, pod: Pod): Promise<void> {
    for (const template of (set.spec?.volumeClaimTemplates ?? []) as PersistentVolumeClaim[]) {
      const name = claimName(template, pod.metadata.name as string);
      if (this.d.claimLister.get(set.metadata.namespace, name)) continue;
      try {
        await this.d.claims.create(set.metadata.namespace, newClaim(set, template, pod.metadata.name as string));
        this.d.recorder.event(asSet(set), 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`);
      } catch (e) {
        if (isAlreadyExists(e)) continue;
        this.d.recorder.event(asSet(set), 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`);
        throw e;
      }
    }
  }

  /** whenScaled: Delete hands a condemned pod's claims to the pod, so they go with it. */
  private async retireClaims(set: StatefulSet, pod: Pod): Promise<void> {
    if (set.spec?.persistentVolumeClaimRetentionPolicy?.whenScaled !== 'Delete') return;
    for (const template of (set.spec?.volumeClaimTemplates ?? []) as PersistentVolumeClaim[]) {
      const claim = this.d.claimLister.get(set.metadata.namespace, claimName(template, pod.metadata.name as string));
      if (!claim || claim.metadata.ownerReferences?.some((o) => o.uid === pod.metadata.uid)) continue;
      const ref = { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name as string, uid: pod.metadata.uid as string };
      try {
        await this.d.claims.patch(claim.metadata.namespace, claim.metadata.name as string, 'merge', {
          metadata: { resourceVersion: claim.metadata.resourceVersion, ownerReferences: [...(claim.metadata.ownerReferences ?? []), ref] },
        });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  private async createPod(set: StatefulSet, pod: Pod): Promise<void> {
    await this.createClaims(set, pod);
    try {
      await this.d.pods.create(set.metadata.namespace, pod);
      this.d.recorder.event(asSet(set), 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
    } catch (e) {
      // The cache is behind a create of ours: the next pass sees the pod.
      if (isAlreadyExists(e)) return;
      this.d.recorder.event(asSet(set), 'Warning', 'FailedCreate', `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`);
      throw e;
    }
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      // The uid guards against deleting a newer pod of the same name the cache has not seen.
      await this.d.pods.delete(pod.metadata.namespace, pod.metadata.name as string, { preconditions: { uid: pod.metadata.uid } });
      this.d.recorder.event(asSet(set), 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
    } catch (e) {
      // Gone, or replaced by a newer pod of the same name (the uid precondition failed).
      if (isNotFound(e) || isConflict(e)) return;
      this.d.recorder.event(asSet(set), 'Warning', 'FailedDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`);
      throw e;
    }
  }

  private async fixIdentity(set: StatefulSet, pod: Pod, ordinal: number): Promise<void> {
    const labels = { [podNameLabel]: podName(set, ordinal), [podIndexLabel]: String(ordinal) };
    await this.d.pods.patch(pod.metadata.namespace, pod.metadata.name as string, 'merge', { metadata: { resourceVersion: pod.metadata.resourceVersion, labels } });
  }
}
