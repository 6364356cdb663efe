// The volume controllers: the PersistentVolume binder and capstan's local-path provisioner.
import type { ControllerContext } from '../framework.js';
import { PersistentVolumeBinder } from './binder.js';
import { LocalPathProvisioner } from './local-path.js';

export { PersistentVolumeBinder } from './binder.js';
export { LocalPathProvisioner } from './local-path.js';
export { findMatchingVolume } from './matching.js';
export { LOCAL_PATH_CLASS, DEFAULT_LOCAL_PATH_DIR, DEFAULT_HELPER_IMAGE } from './local-path-objects.js';

export function create(ctx: ControllerContext): PersistentVolumeBinder {
  return new PersistentVolumeBinder(ctx);
}

export function createLocalPath(ctx: ControllerContext): LocalPathProvisioner {
  return new LocalPathProvisioner(ctx);
}
