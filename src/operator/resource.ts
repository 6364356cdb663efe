// Typed access to a custom resource: a ResourceType for it gives typed clients, informers and
// listers from the same machinery the built-in kinds use.
import type { ObjectBase } from '../api/object.js';
import { apiVersion, type ResourceType } from '../client/index.js';

export function customResource<T extends ObjectBase>(t: { group: string; version: string; plural: string; kind: string; namespaced: boolean }): ResourceType<T> {
  return { group: t.group, version: t.version, resource: t.plural, kind: t.kind, namespaced: t.namespaced };
}

/** `obj` with the apiVersion and kind of `type` (list items and lister objects may lack them). */
export function withTypeMeta<T extends ObjectBase>(type: ResourceType<T>, obj: T): T {
  return { ...obj, apiVersion: apiVersion(type), kind: type.kind };
}
