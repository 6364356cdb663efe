// Finalizers: the operator holds an object's deletion until it has cleaned up what lives
// outside owner references' reach. Both writes carry the resourceVersion read, so a change in
// between is a Conflict (retried by the queue), never a lost finalizer of someone else's.
import type { ObjectBase } from '../api/object.js';
import type { ResourceAPI } from '../client/index.js';

type WithFinalizers = ObjectBase & { metadata: { finalizers?: string[] } };

export function hasFinalizer(obj: WithFinalizers, name: string): boolean {
  return !!obj.metadata.finalizers?.includes(name);
}

async function setFinalizers<T extends ObjectBase>(client: ResourceAPI<T>, obj: T, finalizers: string[]): Promise<T> {
  return client.patch(obj.metadata.namespace, obj.metadata.name!, 'merge', { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } });
}

/** `obj` as the server has it once `name` is among its finalizers. */
export async function addFinalizer<T extends ObjectBase>(client: ResourceAPI<T>, obj: T, name: string): Promise<T> {
  const current = (obj as WithFinalizers).metadata.finalizers ?? [];
  return current.includes(name) ? obj : setFinalizers(client, obj, [...current, name]);
}

/** Lets the deletion go on (the object may be gone when this returns). */
export async function removeFinalizer<T extends ObjectBase>(client: ResourceAPI<T>, obj: T, name: string): Promise<T> {
  const current = (obj as WithFinalizers).metadata.finalizers ?? [];
  return current.includes(name) ? setFinalizers(client, obj, current.filter((f) => f !== name)) : obj;
}
