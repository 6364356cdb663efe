// VolumeBinding, cut down from kube-scheduler's plugin: a pod's claims must exist; a bound
// claim's volume must allow the node (its node affinity); an unbound claim of an Immediate
// class keeps the pod unschedulable until the binder binds it; an unbound claim of a
// WaitForFirstConsumer class is left to bind after scheduling — at bind time the scheduler
// writes `volume.kubernetes.io/selected-node` on it, which the binder and the provisioner wait
// for. (Upstream also pre-binds matching static volumes itself; here the binder does.)
import { anyTermMatches, compileNodeSelectorTerms } from '../api/core/node-selector.js';
import { resources, type ClientsetAPI, type SharedInformer, type SharedInformerFactory } from '../client/index.js';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../api/kinds.js';
import { ANN_SELECTED_NODE } from '../api/storage/annotations.js';
import type { FilterPlugin } from './plugins/index.js';

const claimNamesOf = new WeakMap<Pod, string[]>();

/** The pod's claim names, worked out once per pod object (the filter asks for every node tried). */
function claimNames(pod: Pod): string[] {
  let names = claimNamesOf.get(pod);
  if (!names) {
    names = (pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
    claimNamesOf.set(pod, names);
  }
  return names;
}

export class VolumeBinding {
  readonly filter: FilterPlugin;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly classes: SharedInformer<StorageClass>;

  /** `changed` is called when a claim, volume or class changes (pods waiting on them may fit now). */
  constructor(informers: SharedInformerFactory, private clients: ClientsetAPI, changed: () => void) {
    this.claims = informers.informerFor(resources.persistentvolumeclaims);
    this.volumes = informers.informerFor(resources.persistentvolumes);
    this.classes = informers.informerFor(resources.storageclasses);
    for (const inf of [this.claims, this.volumes, this.classes] as SharedInformer<PersistentVolumeClaim | PersistentVolume | StorageClass>[]) {
      inf.addEventHandler({ onAdd: changed, onUpdate: changed });
    }
    this.filter = { name: 'VolumeBinding', skip: (info) => !claimNames(info.pod).length, filter: (info, node) => this.check(info.pod, node.name, node.labels) };
  }

  private delayed(claim: PersistentVolumeClaim): boolean {
    const cls = this.classes.lister.get(undefined, claim.spec?.storageClassName ?? '');
    return cls?.volumeBindingMode === 'WaitForFirstConsumer';
  }

  private check(pod: Pod, nodeName: string, labels: Record<string, string>): string | null {
    const names = claimNames(pod);
    if (!names.length) return null;
    const ns = pod.metadata.namespace ?? 'default';
    for (const name of names) {
      const claim = this.claims.lister.get(ns, name);
      if (!claim) return `persistentvolumeclaim "${name}" not found`;
      if (claim.metadata.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
      const volumeName = claim.spec?.volumeName;
      if (!volumeName) {
        if (!this.delayed(claim)) return 'pod has unbound immediate PersistentVolumeClaims';
        continue;
      }
      const terms = this.volumes.lister.get(undefined, volumeName)?.spec?.nodeAffinity?.required?.nodeSelectorTerms;
      if (terms && !safeMatch(terms, nodeName, labels)) return "node(s) had volume node affinity conflict";
    }
    return null;
  }

  /** Before the bind: tells the pod's unbound WaitForFirstConsumer claims the chosen node. */
  async selectNode(pod: Pod, node: string): Promise<void> {
    const ns = pod.metadata.namespace ?? 'default';
    const api = this.clients.resource(resources.persistentvolumeclaims);
    for (const name of claimNames(pod)) {
      const claim = this.claims.lister.get(ns, name);
      if (!claim || claim.spec?.volumeName || !this.delayed(claim) || claim.metadata.annotations?.[ANN_SELECTED_NODE] === node) continue;
      await api.patch(ns, name, 'merge', { metadata: { annotations: { [ANN_SELECTED_NODE]: node } } });
    }
  }
}

function safeMatch(terms: unknown[], nodeName: string, labels: Record<string, string>): boolean {
  try {
    return anyTermMatches(compileNodeSelectorTerms(terms), nodeName, labels);
  } catch {
    return false;
  }
}
