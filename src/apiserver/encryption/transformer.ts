// Value transformers between a resource's registry and the store, after k8s.io/apiserver's
// storage/value prefix transformers. Writes go through the first provider of the resource's
// rule; a read picks the provider (and key) whose prefix the stored bytes carry, so data
// written under any listed key stays readable while keys rotate. Unprefixed data is read only
// when `identity` is listed, as upstream does.
import { aesCBC, aesGCM, CipherError, secretbox, type KeyCipher, type RandomSource } from './ciphers.js';
import type { CipherName, ProviderConfig } from './config.js';

export interface ValueTransformer {
  /** The bytes to store for `plain` at storage key `key`. */
  toStorage(plain: Buffer, key: string): Buffer;
  /**
   * The plain bytes behind `stored`. `stale` is true when they were not written by the first
   * provider's first key: an update must rewrite them even if the object did not change.
   * Throws TransformError when no listed provider can read them.
   */
  fromStorage(stored: Buffer, key: string): { data: Buffer; stale: boolean };
}

export class TransformError extends Error {
  override name = 'TransformError';
}

/** Resources with no rule: stored as they are, read as they are. */
export const identity: ValueTransformer = {
  toStorage: (plain) => plain,
  fromStorage: (stored) => ({ data: stored, stale: false }),
};

/** One transformation, as apiserver_storage_transformation_operations_total counts it. */
export interface TransformOperation {
  transformationType: 'to_storage' | 'from_storage';
  /** The provider's prefix (`k8s:enc:aescbc:v1:`), `identity`, `unknown`, or '' for identity writes. */
  transformerPrefix: string;
  /** `OK`, or `Unknown` for a failure (upstream reports the gRPC code of the error). */
  status: 'OK' | 'Unknown';
}

export type OperationRecorder = (op: TransformOperation) => void;

interface Provider {
  /** Empty for identity. */
  prefix: Buffer;
  /** Absent for identity. */
  keys?: { prefix: Buffer; cipher: KeyCipher }[];
  /** What upstream says when no key's name matches. */
  noKey?: string;
}

const encryptedMarker = Buffer.from('k8s:enc:');
const cipherFactories: Record<CipherName, (key: Buffer, random?: RandomSource) => KeyCipher> = { aescbc: aesCBC, aesgcm: aesGCM, secretbox };
const noKeyText: Record<CipherName, string> = {
  aescbc: 'no matching key was found for the provided AES transformer',
  aesgcm: 'no matching key was found for the provided AES transformer',
  secretbox: 'no matching key was found for the provided Secretbox transformer',
};

/** The transformer of one resource rule's providers, in the file's order. */
export function prefixTransformer(configs: ProviderConfig[], record: OperationRecorder = () => undefined, random?: RandomSource): ValueTransformer {
  const providers: Provider[] = configs.map((c) => c.type === 'identity'
    ? { prefix: Buffer.alloc(0) }
    : {
        prefix: Buffer.from(`k8s:enc:${c.type}:v1:`),
        keys: c.keys.map((k) => ({ prefix: Buffer.from(`${k.name}:`), cipher: cipherFactories[c.type](k.secret, random) })),
        noKey: noKeyText[c.type],
      });
  const writer = providers[0];
  const label = (p: Provider) => p.prefix.toString();
  return {
    toStorage(plain, key) {
      if (!writer.keys) {
        record({ transformationType: 'to_storage', transformerPrefix: '', status: 'OK' });
        return plain;
      }
      const first = writer.keys[0];
      let sealed: Buffer;
      try {
        sealed = first.cipher.seal(plain, key);
      } catch (e) {
        record({ transformationType: 'to_storage', transformerPrefix: label(writer), status: 'Unknown' });
        throw new TransformError((e as Error).message);
      }
      record({ transformationType: 'to_storage', transformerPrefix: label(writer), status: 'OK' });
      return Buffer.concat([writer.prefix, first.prefix, sealed]);
    },

    fromStorage(stored, key) {
      const errors: string[] = [];
      for (let i = 0; i < providers.length; i++) {
        const p = providers[i];
        if (!startsWith(stored, p.prefix)) continue;
        if (!p.keys) {
          // Identity reads plain data only; encrypted data falls through to a later provider
          // (identity listed first while migrating away from encryption).
          if (startsWith(stored, encryptedMarker)) continue;
          record({ transformationType: 'from_storage', transformerPrefix: 'identity', status: 'OK' });
          return { data: stored, stale: i !== 0 };
        }
        const rest = stored.subarray(p.prefix.length);
        const keyErrors: string[] = [];
        for (let j = 0; j < p.keys.length; j++) {
          const k = p.keys[j];
          if (!startsWith(rest, k.prefix)) continue;
          try {
            const data = k.cipher.open(rest.subarray(k.prefix.length), key);
            record({ transformationType: 'from_storage', transformerPrefix: label(p), status: 'OK' });
            return { data, stale: i !== 0 || j !== 0 };
          } catch (e) {
            if (!(e instanceof CipherError)) throw e;
            keyErrors.push(e.message);
          }
        }
        record({ transformationType: 'from_storage', transformerPrefix: label(p), status: 'Unknown' });
        // Several providers may share a prefix (the same cipher listed twice during a
        // rotation): a failure here does not stop a later one from trying.
        errors.push(keyErrors.length ? reduce(keyErrors) : p.noKey!);
      }
      if (errors.length) throw new TransformError(reduce(errors));
      record({ transformationType: 'from_storage', transformerPrefix: 'unknown', status: 'Unknown' });
      throw new TransformError('no matching prefix found');
    },
  };
}

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/** One error as itself, several as `[a, b]` (k8s.io/apimachinery's aggregate). */
function reduce(errors: string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}
