// What the local-path provisioner writes (after rancher's local-path-provisioner): the default
// StorageClass, a hostPath volume under the chosen node's local-path directory with node
// affinity to that node, and the helper pod that removes the directory on that node.
import { join } from 'node:path';
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../api/kinds.js';
import { ANN_LOCAL_PATH_DIR, ANN_LOCAL_PATH_NODE, ANN_PROVISIONED_BY, LOCAL_PATH_PROVISIONER } from '../../api/storage/annotations.js';

export const LOCAL_PATH_CLASS = 'local-path';
/** Where a node keeps its volumes when neither the class (`nodePath`) nor the node says. */
export const DEFAULT_LOCAL_PATH_DIR = '/var/lib/capstan/local-path';
/** The image helper pods run; a class's `helperImage` parameter overrides it. */
export const DEFAULT_HELPER_IMAGE = 'localhost/capstan/busybox:1';
export const HELPER_NAMESPACE = 'kube-system';
const HOSTNAME = 'kubernetes.io/hostname';

export function defaultClass(): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
    metadata: { name: LOCAL_PATH_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: LOCAL_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
  };
}

export const volumeName = (claim: PersistentVolumeClaim): string => `pvc-${claim.metadata.uid}`;

/** The volume for `claim` on `node`: <dir>/<pv>_<namespace>_<claim>, as rancher names it. */
export function localVolume(claim: PersistentVolumeClaim, cls: StorageClass, node: Node | { metadata: { name: string; labels?: Record<string, string> } }): PersistentVolume {
  const nodeName = node.metadata.name!;
  const dir = cls.parameters?.nodePath ?? (node.metadata as Node['metadata']).annotations?.[ANN_LOCAL_PATH_DIR] ?? DEFAULT_LOCAL_PATH_DIR;
  const name = volumeName(claim);
  return {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: { name, annotations: { [ANN_PROVISIONED_BY]: LOCAL_PATH_PROVISIONER, [ANN_LOCAL_PATH_NODE]: nodeName } },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
      accessModes: claim.spec?.accessModes,
      persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
      storageClassName: cls.metadata.name,
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      hostPath: { path: join(dir, `${name}_${claim.metadata.namespace}_${claim.metadata.name}`), type: 'DirectoryOrCreate' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: HOSTNAME, operator: 'In', values: [node.metadata.labels?.[HOSTNAME] ?? nodeName] }] }] } },
      claimRef: {
        kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name,
        uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion,
      },
    },
  };
}

export const helperPodName = (volume: PersistentVolume): string => `helper-pod-delete-${volume.metadata.name}`;

/** A pod on the volume's node that removes its directory (mounted through its parent). */
export function deleteHelperPod(volume: PersistentVolume, image: string): Pod | undefined {
  const node = volume.metadata.annotations?.[ANN_LOCAL_PATH_NODE];
  const path: string | undefined = volume.spec?.hostPath?.path;
  if (!node || !path) return undefined;
  const parent = path.slice(0, path.lastIndexOf('/')) || '/';
  const base = path.slice(path.lastIndexOf('/') + 1);
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: helperPodName(volume), namespace: HELPER_NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'local-path-provisioner' } },
    spec: {
      nodeName: node, restartPolicy: 'Never', tolerations: [{ operator: 'Exists' }], automountServiceAccountToken: false,
      containers: [{
        name: 'helper', image, imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c', 'rm -rf "/data/$VOL_DIR"'], env: [{ name: 'VOL_DIR', value: base }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      }],
      volumes: [{ name: 'data', hostPath: { path: parent, type: 'DirectoryOrCreate' } }],
    },
  };
}
