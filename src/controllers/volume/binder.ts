// The PersistentVolume binder (upstream's persistentvolume-binder, pkg/controller/volume/
// persistentvolume): level-based syncs of claims and volumes from listers. A claim binds to
// the volume matching.ts picks (volume claimRef and phase first, then the claim's volumeName,
// bind-completed annotation and phase, each step its own write, so a retry carries on where a
// failed one stopped); with no volume it waits for its first consumer (WaitForFirstConsumer),
// asks its class's provisioner (annotation + ExternalProvisioning event) or stays Pending.
// A volume whose claim is gone is Released, then kept (Retain) or left to its provisioner
// (Delete; a volume no provisioner made fails, as upstream without a deleter plugin).
import { isNotFound, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext } from '../framework.js';
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../api/kinds.js';
import { rfc3339 } from '../../api/time.js';
import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, YES,
} from '../../api/storage/annotations.js';
import { claimClass, findMatchingVolume, unsatisfied, volumeBoundToClaim } from './matching.js';

const claimKey = (ns: string, name: string) => `c:${ns}/${name}`;
const volumeKey = (name: string) => `v:${name}`;
const asClaim = (c: PersistentVolumeClaim) => ({ ...c, apiVersion: 'v1', kind: 'PersistentVolumeClaim' });
const asVolume = (v: PersistentVolume) => ({ ...v, apiVersion: 'v1', kind: 'PersistentVolume' });

export class PersistentVolumeBinder extends QueueController {
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly classes: SharedInformer<StorageClass>;
  private readonly nodes: SharedInformer<Node>;
  private readonly claimsAPI: ResourceAPI<PersistentVolumeClaim>;
  private readonly volumesAPI: ResourceAPI<PersistentVolume>;
  private readonly recorder: EventRecorder;

  constructor(ctx: ControllerContext) {
    super('persistentvolume-binder', ctx);
    this.claims = ctx.informers.informerFor(resources.persistentvolumeclaims);
    this.volumes = ctx.informers.informerFor(resources.persistentvolumes);
    this.classes = ctx.informers.informerFor(resources.storageclasses);
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.claimsAPI = ctx.clients.resource(resources.persistentvolumeclaims);
    this.volumesAPI = ctx.clients.resource(resources.persistentvolumes);
    this.recorder = ctx.recorder('persistentvolume-controller');
    const onClaim = (c: PersistentVolumeClaim) => {
      this.enqueue(claimKey(c.metadata.namespace!, c.metadata.name!));
      if (c.spec?.volumeName) this.enqueue(volumeKey(c.spec.volumeName));
    };
    this.claims.addEventHandler({
      onAdd: onClaim, onUpdate: (_o, c) => onClaim(c),
      onDelete: (c) => {
        if (c.spec?.volumeName) this.enqueue(volumeKey(c.spec.volumeName));
        for (const v of this.volumes.lister.list()) if (volumeBoundToClaim(v, c)) this.enqueue(volumeKey(v.metadata.name!));
      },
    });
    const onVolume = (v: PersistentVolume) => {
      this.enqueue(volumeKey(v.metadata.name!));
      const ref = v.spec?.claimRef;
      if (ref?.namespace && ref.name) this.enqueue(claimKey(ref.namespace, ref.name));
      // A new or freed volume may be what a pending claim waits for.
      if (!ref) for (const c of this.claims.lister.list()) if (!c.spec?.volumeName) onClaim(c);
    };
    this.volumes.addEventHandler({ onAdd: onVolume, onUpdate: (_o, v) => onVolume(v), onDelete: onVolume });
    const onClass = (sc: StorageClass) => {
      for (const c of this.claims.lister.list()) if (!c.spec?.volumeName && claimClass(c) === sc.metadata.name) onClaim(c);
    };
    this.classes.addEventHandler({ onAdd: onClass, onUpdate: (_o, sc) => onClass(sc) });
  }

  async reconcile(key: string): Promise<void> {
    if (key.startsWith('c:')) {
      const [ns, name] = key.slice(2).split('/');
      const claim = this.claims.lister.get(ns, name);
      if (claim) await (claim.metadata.annotations?.[ANN_BIND_COMPLETED] ? this.syncBoundClaim(claim) : this.syncUnboundClaim(claim));
      return;
    }
    const volume = this.volumes.lister.get(undefined, key.slice(2));
    if (volume) await this.syncVolume(volume);
  }

  private async syncUnboundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName;
    if (volumeName) {
      // Pre-bound by the user to a volume.
      const volume = this.volumes.lister.get(undefined, volumeName);
      if (!volume) return this.setClaimPhase(claim, 'Pending');
      if (!volume.spec?.claimRef) {
        const why = unsatisfied(volume, claim);
        if (why) {
          this.recorder.event(asClaim(claim), 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${volumeName}": ${why}`);
          return this.setClaimPhase(claim, 'Pending');
        }
        return this.bind(claim, volume);
      }
      if (volumeBoundToClaim(volume, claim)) return this.bind(claim, volume);
      this.recorder.event(asClaim(claim), 'Warning', 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
      return this.setClaimPhase(claim, 'Pending');
    }
    const className = claimClass(claim);
    const cls = className ? this.classes.lister.get(undefined, className) : undefined;
    const delayed = cls?.volumeBindingMode === 'WaitForFirstConsumer';
    const nodeName = claim.metadata.annotations?.[ANN_SELECTED_NODE];
    const node = nodeName ? this.nodes.lister.get(undefined, nodeName) ?? { metadata: { name: nodeName } } : undefined;
    const volume = findMatchingVolume(claim, this.volumes.lister.list(), { delayed, node });
    if (volume) return this.bind(claim, volume);
    if (delayed && !nodeName) {
      this.recorder.event(asClaim(claim), 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      return this.setClaimPhase(claim, 'Pending');
    }
    if (!className) {
      this.recorder.event(asClaim(claim), 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return this.setClaimPhase(claim, 'Pending');
    }
    if (!cls) {
      this.recorder.event(asClaim(claim), 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return this.setClaimPhase(claim, 'Pending');
    }
    await this.askProvisioner(claim, cls.provisioner);
  }

  /** Marks the claim for its class's (external) provisioner, as upstream's provisionClaim. */
  private async askProvisioner(claim: PersistentVolumeClaim, provisioner: string): Promise<void> {
    const anns = claim.metadata.annotations ?? {};
    if (anns[ANN_STORAGE_PROVISIONER] !== provisioner || anns[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      claim = await this.claimsAPI.update({
        ...claim, metadata: { ...claim.metadata, annotations: { ...anns, [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner } },
      });
    }
    this.recorder.event(asClaim(claim), 'Normal', 'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
    await this.setClaimPhase(claim, 'Pending');
  }

  private async syncBoundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName;
    if (!volumeName) {
      this.recorder.event(asClaim(claim), 'Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return this.setClaimPhase(claim, 'Lost');
    }
    const volume = this.volumes.lister.get(undefined, volumeName);
    if (!volume) {
      this.recorder.event(asClaim(claim), 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return this.setClaimPhase(claim, 'Lost');
    }
    if (!volume.spec?.claimRef || volumeBoundToClaim(volume, claim)) return this.bind(claim, volume);
    this.recorder.event(asClaim(claim), 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
    await this.setClaimPhase(claim, 'Lost');
  }

  /** Upstream's bind: volume claimRef, volume phase, claim volumeName + annotations, claim phase. */
  private async bind(claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref || ref.uid !== claim.metadata.uid || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) {
      const anns = { ...volume.metadata.annotations };
      if (!ref) anns[ANN_BOUND_BY_CONTROLLER] = YES;
      volume = await this.volumesAPI.update({
        ...volume,
        metadata: { ...volume.metadata, annotations: anns },
        spec: {
          ...volume.spec,
          claimRef: {
            kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name,
            uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion,
          },
        },
      });
    }
    volume = await this.setVolumePhase(volume, 'Bound');
    const anns = claim.metadata.annotations ?? {};
    if (claim.spec?.volumeName !== volume.metadata.name || anns[ANN_BIND_COMPLETED] !== YES) {
      const next: Record<string, string> = { ...anns, [ANN_BIND_COMPLETED]: YES };
      if (!claim.spec?.volumeName) next[ANN_BOUND_BY_CONTROLLER] = YES;
      claim = await this.claimsAPI.update({ ...claim, metadata: { ...claim.metadata, annotations: next }, spec: { ...claim.spec, volumeName: volume.metadata.name } });
    }
    const s = claim.status ?? {};
    const modes = volume.spec?.accessModes ?? [];
    const capacity = volume.spec?.capacity ?? {};
    if (s.phase !== 'Bound' || JSON.stringify(s.accessModes ?? []) !== JSON.stringify(modes) || JSON.stringify(s.capacity ?? {}) !== JSON.stringify(capacity)) {
      await this.claimsAPI.updateStatus({ ...claim, status: { ...s, phase: 'Bound', accessModes: modes, capacity } });
    }
  }

  private async syncVolume(volume: PersistentVolume): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref || !ref.uid) {
      // Free, or reserved for a claim that has not bound yet.
      await this.setVolumePhase(volume, 'Available');
      return;
    }
    let claim = this.claims.lister.get(ref.namespace!, ref.name!);
    if (!claim) claim = await this.claimsAPI.get(ref.namespace, ref.name!).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    if (!claim || claim.metadata.uid !== ref.uid) return this.release(volume);
    if (!claim.spec?.volumeName) {
      // Binding is under way; the claim's sync finishes it.
      this.enqueue(claimKey(ref.namespace!, ref.name!));
      return;
    }
    if (claim.spec.volumeName === volume.metadata.name) {
      await this.setVolumePhase(volume, 'Bound');
      return;
    }
    // The claim went to another volume: free this one (a user's reservation keeps its name).
    const anns = { ...volume.metadata.annotations };
    const byUs = anns[ANN_BOUND_BY_CONTROLLER] === YES;
    delete anns[ANN_BOUND_BY_CONTROLLER];
    const updated = await this.volumesAPI.update({
      ...volume, metadata: { ...volume.metadata, annotations: anns },
      spec: { ...volume.spec, claimRef: byUs ? undefined : { ...ref, uid: undefined, resourceVersion: undefined } },
    });
    await this.setVolumePhase(updated, 'Available');
  }

  /** The volume's claim is gone: Released, then reclaimed by its policy. */
  private async release(volume: PersistentVolume): Promise<void> {
    const phase = volume.status?.phase;
    if (phase === 'Failed') return;
    if (phase !== 'Released') volume = await this.setVolumePhase(volume, 'Released');
    const policy = volume.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Retain') return;
    if (policy === 'Delete') {
      // A provisioner's volume is its provisioner's to delete.
      if (volume.metadata.annotations?.[ANN_PROVISIONED_BY]) return;
      const message = `error getting deleter volume plugin for volume "${volume.metadata.name}": no deletable volume plugin matched`;
      this.recorder.event(asVolume(volume), 'Warning', 'VolumeFailedDelete', message);
      await this.setVolumePhase(volume, 'Failed', message);
      return;
    }
    const message = 'No recycler plugin found for the volume!';
    this.recorder.event(asVolume(volume), 'Warning', 'VolumeFailedRecycle', message);
    await this.setVolumePhase(volume, 'Failed', message);
  }

  private async setVolumePhase(volume: PersistentVolume, phase: string, message?: string): Promise<PersistentVolume> {
    const s = volume.status ?? {};
    if (s.phase === phase && s.message === message) return volume;
    const status = { phase, message, reason: undefined, lastPhaseTransitionTime: s.phase === phase ? s.lastPhaseTransitionTime : rfc3339(new Date(this.ctx.clock.now())) };
    return this.volumesAPI.updateStatus({ ...volume, status });
  }

  private async setClaimPhase(claim: PersistentVolumeClaim, phase: string): Promise<void> {
    if (claim.status?.phase === phase) return;
    await this.claimsAPI.updateStatus({ ...claim, status: { ...claim.status, phase } });
  }
}
