// capstan's built-in local provisioner (after rancher's local-path-provisioner), an external
// provisioner as far as the binder is concerned: it serves claims the binder marked with
// `volume.kubernetes.io/storage-provisioner: capstan.io/local-path` once the scheduler chose
// their node, creating a hostPath volume pre-bound to the claim with node affinity to that
// node (the kubelet creates the directory when it first mounts it). A Released volume of its
// own with reclaim Delete is emptied by a helper pod on its node (only the node can remove
// its files), then deleted; the helper pod goes once the volume is gone. On start it creates the default StorageClass `local-path`.
import { isAlreadyExists, isNotFound, resources, type EventRecorder, type ResourceAPI, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext } from '../framework.js';
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../api/kinds.js';
import { ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, LOCAL_PATH_PROVISIONER } from '../../api/storage/annotations.js';
import { DEFAULT_HELPER_IMAGE, defaultClass, deleteHelperPod, HELPER_NAMESPACE, helperPodName, localVolume, volumeName } from './local-path-objects.js';

const ours = (v: PersistentVolume) => v.metadata.annotations?.[ANN_PROVISIONED_BY] === LOCAL_PATH_PROVISIONER;
const asClaim = (c: PersistentVolumeClaim) => ({ ...c, apiVersion: 'v1', kind: 'PersistentVolumeClaim' });
const asVolume = (v: PersistentVolume) => ({ ...v, apiVersion: 'v1', kind: 'PersistentVolume' });

export class LocalPathProvisioner extends QueueController {
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly classes: SharedInformer<StorageClass>;
  private readonly nodes: SharedInformer<Node>;
  private readonly pods: SharedInformer<Pod>;
  private readonly volumesAPI: ResourceAPI<PersistentVolume>;
  private readonly podsAPI: ResourceAPI<Pod>;
  private readonly recorder: EventRecorder;

  constructor(ctx: ControllerContext) {
    super('local-path-provisioner', ctx);
    this.claims = ctx.informers.informerFor(resources.persistentvolumeclaims);
    this.volumes = ctx.informers.informerFor(resources.persistentvolumes);
    this.classes = ctx.informers.informerFor(resources.storageclasses);
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.volumesAPI = ctx.clients.resource(resources.persistentvolumes);
    this.podsAPI = ctx.clients.resource(resources.pods);
    this.recorder = ctx.recorder(LOCAL_PATH_PROVISIONER);
    const onClaim = (c: PersistentVolumeClaim) => { if (c.metadata.annotations?.[ANN_STORAGE_PROVISIONER] === LOCAL_PATH_PROVISIONER) this.enqueue(`c:${c.metadata.namespace}/${c.metadata.name}`); };
    this.claims.addEventHandler({ onAdd: onClaim, onUpdate: (_o, c) => onClaim(c) });
    const onVolume = (v: PersistentVolume) => { if (ours(v)) this.enqueue(`v:${v.metadata.name}`); };
    this.volumes.addEventHandler({ onAdd: onVolume, onUpdate: (_o, v) => onVolume(v), onDelete: onVolume });
    const onPod = (p: Pod) => {
      const name = p.metadata.name ?? '';
      if (p.metadata.namespace === HELPER_NAMESPACE && name.startsWith('helper-pod-delete-')) this.enqueue(`v:${name.slice('helper-pod-delete-'.length)}`);
    };
    this.pods.addEventHandler({ onUpdate: (_o, p) => onPod(p) });
  }

  override async run(workers: number): Promise<void> {
    try {
      await this.ctx.clients.resource(resources.storageclasses).create(undefined, defaultClass());
      this.log.info('created the default StorageClass', { name: defaultClass().metadata.name });
    } catch (e) {
      if (!isAlreadyExists(e)) this.log.warn('default StorageClass not created', { error: (e as Error).message });
    }
    await super.run(workers);
  }

  async reconcile(key: string): Promise<void> {
    if (key.startsWith('c:')) {
      const [ns, name] = key.slice(2).split('/');
      const claim = this.claims.lister.get(ns, name);
      if (claim) await this.provision(claim);
      return;
    }
    const name = key.slice(2);
    const volume = this.volumes.lister.get(undefined, name);
    if (volume) {
      if (ours(volume)) await this.reclaim(volume);
      return;
    }
    // The volume is gone: so goes its helper pod (only now, so no new one starts for it).
    const helper = `helper-pod-delete-${name}`;
    if (this.pods.lister.get(HELPER_NAMESPACE, helper)) await this.podsAPI.delete(HELPER_NAMESPACE, helper).catch((e) => { if (!isNotFound(e)) throw e; });
  }

  private async provision(claim: PersistentVolumeClaim): Promise<void> {
    if (claim.spec?.volumeName || claim.metadata.deletionTimestamp) return;
    if (claim.metadata.annotations?.[ANN_STORAGE_PROVISIONER] !== LOCAL_PATH_PROVISIONER) return;
    const cls = this.classes.lister.get(undefined, claim.spec?.storageClassName ?? '');
    if (!cls || cls.provisioner !== LOCAL_PATH_PROVISIONER) return;
    if (this.volumes.lister.get(undefined, volumeName(claim))) return;
    const nodeName = claim.metadata.annotations?.[ANN_SELECTED_NODE];
    if (!nodeName) {
      this.recorder.event(asClaim(claim), 'Warning', 'ProvisioningFailed', 'failed to provision volume with StorageClass "' + cls.metadata.name + '": configuration error, no node was specified');
      return;
    }
    if (claim.spec?.volumeMode === 'Block') {
      this.recorder.event(asClaim(claim), 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${cls.metadata.name}": volumeMode Block is not supported`);
      return;
    }
    const node = this.nodes.lister.get(undefined, nodeName) ?? { metadata: { name: nodeName } };
    this.recorder.event(asClaim(claim), 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${claim.metadata.namespace}/${claim.metadata.name}"`);
    try {
      await this.volumesAPI.create(undefined, localVolume(claim, cls, node));
    } catch (e) {
      if (isAlreadyExists(e)) return;
      this.recorder.event(asClaim(claim), 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${cls.metadata.name}": ${(e as Error).message}`);
      throw e;
    }
    this.recorder.event(asClaim(claim), 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName(claim)}`);
  }

  /** Released with reclaim Delete: a helper pod empties the directory, then the volume goes. */
  private async reclaim(volume: PersistentVolume): Promise<void> {
    if (volume.status?.phase !== 'Released' || volume.spec?.persistentVolumeReclaimPolicy !== 'Delete' || volume.metadata.deletionTimestamp) return;
    const name = helperPodName(volume);
    let pod = this.pods.lister.get(HELPER_NAMESPACE, name);
    if (!pod) {
      const cls = this.classes.lister.get(undefined, volume.spec?.storageClassName ?? '');
      const helper = deleteHelperPod(volume, cls?.parameters?.helperImage ?? DEFAULT_HELPER_IMAGE);
      if (!helper) {
        // Nothing on a node to remove.
        await this.deleteVolume(volume);
        return;
      }
      try {
        pod = await this.podsAPI.create(HELPER_NAMESPACE, helper);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        return;
      }
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded') {
      await this.deleteVolume(volume);
    } else if (phase === 'Failed') {
      this.recorder.event(asVolume(volume), 'Warning', 'VolumeFailedDelete', `failed to delete volume ${volume.metadata.name}: helper pod ${HELPER_NAMESPACE}/${name} failed`);
      await this.podsAPI.delete(HELPER_NAMESPACE, name).catch((e) => { if (!isNotFound(e)) throw e; });
      throw new Error(`helper pod ${name} failed`);
    }
    // Pending or Running: the pod's next update brings the volume back here.
  }

  private async deleteVolume(volume: PersistentVolume): Promise<void> {
    await this.volumesAPI.delete(undefined, volume.metadata.name!).catch((e) => { if (!isNotFound(e)) throw e; });
  }
}
