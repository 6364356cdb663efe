// Each stored object version is decoded once per registry and serialised once per
// representation (kept as bytes), however many lists and watchers send it: the watch cache
// hands out the same value buffer for a version until it changes, so the buffer (with its
// revision) is the key, and entries go when the cache lets the version go.
import type { KubeObject } from '../api/object.js';

interface Decoder {
  decode(value: Buffer, modRevision: number, key: string): KubeObject;
}

// Registries are few and long-lived; a Map (not a WeakMap) so forgetDecoded can reach each.
const decodedByRegistry = new Map<Decoder, WeakMap<Buffer, { revision: number; obj: KubeObject }>>();
const encodedByObject = new WeakMap<KubeObject, Map<string, Buffer>>();

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

/**
 * `encode()` of a shared decoded object, run once per `representation` (group/version/form), as
 * the bytes every list and watcher writes: no response converts the text again. Representations
 * built from another one's bytes (a watch event line around the object) pass a Buffer.
 */
export function encodedBytesOnce(obj: KubeObject, representation: string, encode: () => string | Buffer): Buffer {
  let byRepresentation = encodedByObject.get(obj);
  if (!byRepresentation) encodedByObject.set(obj, (byRepresentation = new Map()));
  let bytes = byRepresentation.get(representation);
  if (bytes === undefined) {
    const encoded = encode();
    byRepresentation.set(representation, (bytes = typeof encoded === 'string' ? Buffer.from(encoded) : encoded));
  }
  return bytes;
}

/**
 * Lets go of the decoding (and with it the encodings) of a version the watch cache has replaced:
 * at thousands of objects changing, each superseded version's object and JSON kept until the
 * version left the history were most of the API server's memory. A watcher still reading that
 * history decodes it again.
 */
export function forgetDecoded(value: Buffer): void {
  for (const byValue of decodedByRegistry.values()) byValue.delete(value);
}
