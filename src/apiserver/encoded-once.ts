// Each stored object version is decoded once per registry and serialised once per
// representation, however many lists and watchers send it: the watch cache hands out the same
// value buffer for a version until it changes, so the buffer (with its revision) is the key,
// and entries go when the cache lets the version go.
import type { KubeObject } from '../api/object.js';

interface Decoder {
  decode(value: Buffer, modRevision: number, key: string): KubeObject;
}

// Registries are few and long-lived; a Map (not a WeakMap) so forgetDecoded can reach each.
const decodedByRegistry = new Map<Decoder, WeakMap<Buffer, { revision: number; obj: KubeObject }>>();
const encodedByObject = new WeakMap<KubeObject, Map<string, string | Buffer>>();

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
  let text = byRepresentation.get(representation) as string | undefined;
  if (text === undefined) byRepresentation.set(representation, (text = encode()));
  return text;
}

/**
 * As encodedOnce, as bytes: one Buffer every watcher's connection writes, so no watcher converts
 * the text again. `representation` must name a different entry than any encodedOnce one.
 */
export function encodedBytesOnce(obj: KubeObject, representation: string, encode: () => string): Buffer {
  let byRepresentation = encodedByObject.get(obj);
  if (!byRepresentation) encodedByObject.set(obj, (byRepresentation = new Map()));
  let bytes = byRepresentation.get(representation) as Buffer | undefined;
  if (bytes === undefined) byRepresentation.set(representation, (bytes = Buffer.from(encode())));
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
