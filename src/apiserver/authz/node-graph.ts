// The node authorizer's graph (after upstream's plugin/pkg/auth/authorizer/node/graph.go):
// which Secrets, ConfigMaps, PersistentVolumeClaims and ServiceAccounts each node's pods
// reference, and which PersistentVolume each claim is bound to. Kept current from pod and
// claim events, so a request is answered by lookups, never by walking the pods.
import type { Pod } from '../../api/kinds.js';

export type VertexType = 'secret' | 'configmap' | 'pvc' | 'serviceaccount' | 'pod';

/** What one pod bound to a node points at, as `type/namespace/name` keys. */
export function podReferences(pod: Pod): string[] {
  const ns = pod.metadata.namespace ?? '';
  const spec = pod.spec;
  if (!spec) return [];
  const out = new Set<string>();
  const add = (type: VertexType, name: string | undefined) => { if (name) out.add(vertexKey(type, ns, name)); };
  add('serviceaccount', spec.serviceAccountName);
  for (const s of spec.imagePullSecrets ?? []) add('secret', s.name);
  for (const v of spec.volumes ?? []) {
    add('secret', v.secret?.secretName);
    add('configmap', v.configMap?.name);
    add('pvc', v.persistentVolumeClaim?.claimName);
    // A generic ephemeral volume's claim is named after the pod and the volume.
    if (v.ephemeral) add('pvc', `${pod.metadata.name}-${v.name}`);
    for (const p of v.projected?.sources ?? []) {
      add('secret', p.secret?.name);
      add('configmap', p.configMap?.name);
    }
    add('secret', v.azureFile?.secretName);
    add('secret', v.cephfs?.secretRef?.name);
    add('secret', v.cinder?.secretRef?.name);
    add('secret', v.flexVolume?.secretRef?.name);
    add('secret', v.iscsi?.secretRef?.name);
    add('secret', v.rbd?.secretRef?.name);
    add('secret', v.scaleIO?.secretRef?.name);
    add('secret', v.storageos?.secretRef?.name);
    add('secret', v.csi?.nodePublishSecretRef?.name);
  }
  for (const c of [...spec.initContainers ?? [], ...spec.containers ?? [], ...spec.ephemeralContainers ?? []]) {
    for (const e of c.envFrom ?? []) {
      add('secret', e.secretRef?.name);
      add('configmap', e.configMapRef?.name);
    }
    for (const e of c.env ?? []) {
      add('secret', e.valueFrom?.secretKeyRef?.name);
      add('configmap', e.valueFrom?.configMapKeyRef?.name);
    }
  }
  return [...out];
}

export const vertexKey = (type: VertexType, namespace: string, name: string): string => `${type}/${namespace}/${name}`;

interface PodEntry {
  node: string;
  refs: string[];
}

export class NodeGraph {
  private pods = new Map<string, PodEntry>();
  /** vertex key → node → how many of that node's pods reference it. */
  private edges = new Map<string, Map<string, number>>();
  /** PVC `namespace/name` → the PersistentVolume it is bound to, and the reverse. */
  private claimVolume = new Map<string, string>();
  private volumeClaims = new Map<string, Set<string>>();

  /** A pod was written: it is in the graph while it is bound to a node. */
  setPod(pod: Pod): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const node = pod.spec?.nodeName;
    if (!node) return this.deletePod(key);
    const refs = [vertexKey('pod', pod.metadata.namespace ?? '', pod.metadata.name ?? ''), ...podReferences(pod)];
    const old = this.pods.get(key);
    if (old && old.node === node && sameRefs(old.refs, refs)) return;
    this.deletePod(key);
    this.pods.set(key, { node, refs });
    for (const r of refs) {
      let byNode = this.edges.get(r);
      if (!byNode) this.edges.set(r, (byNode = new Map()));
      byNode.set(node, (byNode.get(node) ?? 0) + 1);
    }
  }

  deletePod(key: string): void {
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    for (const r of old.refs) {
      const byNode = this.edges.get(r)!;
      const n = (byNode.get(old.node) ?? 0) - 1;
      if (n > 0) byNode.set(old.node, n);
      else byNode.delete(old.node);
      if (byNode.size === 0) this.edges.delete(r);
    }
  }

  /** A claim was written (or deleted: volumeName undefined). */
  setClaim(namespace: string, name: string, volumeName: string | undefined): void {
    const key = `${namespace}/${name}`;
    const old = this.claimVolume.get(key);
    if (old === volumeName) return;
    if (old) {
      const claims = this.volumeClaims.get(old)!;
      claims.delete(key);
      if (!claims.size) this.volumeClaims.delete(old);
      this.claimVolume.delete(key);
    }
    if (volumeName) {
      this.claimVolume.set(key, volumeName);
      let claims = this.volumeClaims.get(volumeName);
      if (!claims) this.volumeClaims.set(volumeName, (claims = new Set()));
      claims.add(key);
    }
  }

  /** Whether a pod bound to `node` references the object. */
  reaches(node: string, type: VertexType, namespace: string, name: string): boolean {
    return (this.edges.get(vertexKey(type, namespace, name))?.get(node) ?? 0) > 0;
  }

  /** Whether `node` uses the PersistentVolume through a claim one of its pods references. */
  reachesVolume(node: string, volume: string): boolean {
    for (const claim of this.volumeClaims.get(volume) ?? []) {
      const [ns, name] = claim.split('/');
      if (this.reaches(node, 'pvc', ns, name)) return true;
    }
    return false;
  }

  clear(): void {
    this.pods.clear(); this.edges.clear(); this.claimVolume.clear(); this.volumeClaims.clear();
  }
}

function sameRefs(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}
