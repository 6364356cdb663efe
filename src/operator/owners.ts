// Owner references: a child names its controller so the garbage collector removes it with its
// owner, and the operator finds the owner to reconcile when the child changes.
import type { ObjectBase, OwnerReference } from '../api/object.js';
import { apiVersion, type ResourceType } from '../client/index.js';

/** The reference a child carries to `owner`: controller, and blocking the owner's foreground deletion. */
export function controllerReference(type: ResourceType<ObjectBase>, owner: ObjectBase): OwnerReference {
  if (!owner.metadata.uid || !owner.metadata.name) throw new Error('controllerReference: the owner has no name or uid yet');
  return { apiVersion: apiVersion(type), kind: type.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** The controller reference of `obj` when its controller is of `type` (any version of its group). */
export function controllerOf(obj: { metadata: { ownerReferences?: OwnerReference[] } }, type: ResourceType<ObjectBase>): OwnerReference | undefined {
  const group = (v: string) => (v.includes('/') ? v.split('/')[0] : '');
  return obj.metadata.ownerReferences?.find((r) => r.controller && r.kind === type.kind && group(r.apiVersion) === type.group);
}

/** True when `obj` is controlled by exactly this owner (by uid: a re-created owner is another one). */
export function isControlledBy(obj: { metadata: { ownerReferences?: OwnerReference[] } }, owner: ObjectBase): boolean {
  return !!obj.metadata.ownerReferences?.some((r) => r.controller && r.uid === owner.metadata.uid);
}
