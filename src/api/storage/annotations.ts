// The annotations the binder, the provisioner and the scheduler exchange on claims and
// volumes, with upstream's names (pkg/controller/volume/persistentvolume/util).

/** On a claim: the binder finished binding it (set once; never removed). */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
/** On a claim or volume: the binder (not the user) set volumeName / claimRef. */
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
/** On a volume: the provisioner that created it (and must delete it). */
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
/** On a claim: the provisioner asked to create its volume. */
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** On a claim of a WaitForFirstConsumer class: the node the scheduler chose for its first pod. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';

export const YES = 'yes';

/** capstan's built-in local provisioner (src/controllers/volume/local-path.ts). */
export const LOCAL_PATH_PROVISIONER = 'capstan.io/local-path';
/** On a Node: the directory its kubelet keeps local-path volumes in (the provisioner reads it). */
export const ANN_LOCAL_PATH_DIR = 'capstan.io/local-path-dir';
/** On a local-path volume: the node its directory is on. */
export const ANN_LOCAL_PATH_NODE = 'capstan.io/local-path-node';
