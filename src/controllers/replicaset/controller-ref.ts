// Owner references between a controller and what it manages, after client-go's
// ControllerRefManager: a controller claims the objects its selector matches — adopting
// orphans, releasing those it owns that no longer match — and never touches objects
// another controller owns.
import type { OwnerReference } from '../../api/object.js';
import type { KindObject } from '../../api/kinds.js';
import { matches, type Selector } from '../../api/labels.js';
import { isNotFound, type ResourceAPI } from '../../client/index.js';

export function controllerRef(obj: KindObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function newControllerRef(owner: KindObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name as string, uid: owner.metadata.uid as string, controller: true, blockOwnerDeletion: true };
}

export interface ClaimOptions<T extends KindObject> {
  owner: KindObject;
  ownerAPIVersion: string;
  ownerKind: string;
  selector: Selector;
  /** Objects of this API, to patch ownerReferences on. */
  api: ResourceAPI<T>;
  /**
   * Checked once, before the first adoption: the owner as the API server has it now is
   * still the same object and not being deleted (the cache may be behind).
   */
  canAdopt: () => Promise<boolean>;
  /** Whether an orphan may be adopted at all (e.g. not while it is being deleted). */
  adoptable?: (obj: T) => boolean;
}

/** The objects `owner` controls after adopting and releasing; writes go through `api`. */
export async function claim<T extends KindObject>(objects: T[], o: ClaimOptions<T>): Promise<T[]> {
  const uid = o.owner.metadata.uid;
  const owned: T[] = [];
  let adoptionAllowed: boolean | undefined;
  for (const obj of objects) {
    const ref = controllerRef(obj);
    const selected = matches(o.selector, obj.metadata.labels);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (selected) { owned.push(obj); continue; }
      // Owned but no longer selected: release, unless the owner is going away anyway.
      if (o.owner.metadata.deletionTimestamp) continue;
      await patchOwners(o.api, obj, (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid));
      continue;
    }
    if (!selected || o.owner.metadata.deletionTimestamp || obj.metadata.deletionTimestamp) continue;
    if (o.adoptable && !o.adoptable(obj)) continue;
    adoptionAllowed ??= await o.canAdopt();
    if (!adoptionAllowed) continue;
    const refs = [...(obj.metadata.ownerReferences ?? []), newControllerRef(o.owner, o.ownerAPIVersion, o.ownerKind)];
    const adopted = await patchOwners(o.api, obj, refs);
    if (adopted) owned.push(adopted);
  }
  return owned;
}

/** Replaces ownerReferences, guarded by the resourceVersion we decided on (conflict → retry). */
async function patchOwners<T extends KindObject>(api: ResourceAPI<T>, obj: T, refs: OwnerReference[]): Promise<T | undefined> {
  try {
    return await api.patch(obj.metadata.namespace, obj.metadata.name as string, 'merge', {
      metadata: { resourceVersion: obj.metadata.resourceVersion, ownerReferences: refs.length ? refs : null },
    });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * claim()'s canAdopt for an owner read from a cache: the API server's copy is still the same
 * object and not being deleted.
 */
export function ownerStillThere<T extends KindObject>(api: ResourceAPI<T>, owner: KindObject): () => Promise<boolean> {
  return async () => {
    const fresh = await api.get(owner.metadata.namespace, owner.metadata.name as string).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    return !!fresh && fresh.metadata.uid === owner.metadata.uid && !fresh.metadata.deletionTimestamp;
  };
}
