// Each stored object version is decoded once per registry and serialised once per
// representation, however many lists and watchers send it: the watch cache hands out the same
// value buffer for a version until it changes, so the buffer (with its revision) is the key,
// and entries go when the cache lets the version go.
import type { KubeObject } from '../api/object.js';

interface Decoder {
  decode(value: Buffer, modRevision: number, key: string): KubeObject;
}

const decodedByRegistry = new WeakMap<Decoder, WeakMap<Buffer, { revision: number; obj: KubeObject }>>();
const encodedByObject = new WeakMap<KubeObject, Map<string, string>>();

/**
 * The object stored as `value` at `revision`, shared: callers must not modify it. A DELETE
 * event carries the last value with the deletion's revision, so the revision is part of the key.
 */
export function decodedOnce(reg: Decoder, value: Buffer, revision: number, key: string): KubeObject {
  let byValue = decodedByRegistry.get(reg);
  if (!byValue) decodedByRegistry.set(reg, (byValue = new WeakMap()));
  const hit = byValue.get(value);
  if (hit?.revision === revision) return hit.obj;
  const obj = reg.decode(value, revision, key);
  byValue.set(value, { revision, obj });
  return obj;
}

/** `encode()` of a shared decoded object, run once per `representation` (group/version/form). */
export function encodedOnce(obj: KubeObject, representation: string, encode: () => string): string {
  let byRepresentation = encodedByObject.get(obj);
  if (!byRepresentation) encodedByObject.set(obj, (byRepresentation = new Map()));
  let text = byRepresentation.get(representation);
  if (text === undefined) byRepresentation.set(representation, (text = encode()));
  return text;
}
