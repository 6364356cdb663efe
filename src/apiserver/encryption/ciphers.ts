// The three ciphers of kube-apiserver's encryption providers, each for one key, with
// upstream's layout after the `k8s:enc:<provider>:v1:<key>:` prefix:
//   aescbc:    16-byte IV ‖ AES-CBC ciphertext (PKCS#7 padding); no integrity of its own
//   aesgcm:    12-byte nonce ‖ ciphertext ‖ 16-byte tag; the storage key is authenticated data
//   secretbox: 24-byte nonce ‖ NaCl secretbox (XSalsa20-Poly1305: tag ‖ ciphertext)
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import nacl from 'tweetnacl';

/** Encrypts and decrypts with one key. `aad` is the storage key the value lives at. */
export interface KeyCipher {
  seal(plain: Buffer, aad: string): Buffer;
  /** Throws CipherError when the data is not this key's (wrong key, tampered, truncated). */
  open(sealed: Buffer, aad: string): Buffer;
}

export class CipherError extends Error {
  override name = 'CipherError';
}

/** Where nonces and IVs come from; tests pass a fixed source to check known vectors. */
export type RandomSource = (size: number) => Buffer;

const blockSize = 16;

export function aesCBC(key: Buffer, random: RandomSource = randomBytes): KeyCipher {
  const algorithm = aesName('cbc', key);
  return {
    seal(plain) {
      const iv = random(blockSize);
      const c = createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, c.update(plain), c.final()]);
    },
    open(sealed) {
      if (sealed.length < blockSize) throw new CipherError('the stored data was shorter than the required size');
      const body = sealed.subarray(blockSize);
      if (body.length === 0 || body.length % blockSize !== 0) throw new CipherError('the stored data is not a multiple of the block size');
      try {
        const d = createDecipheriv(algorithm, key, sealed.subarray(0, blockSize));
        return Buffer.concat([d.update(body), d.final()]);
      } catch {
        throw new CipherError('invalid padding on input');
      }
    },
  };
}

const gcmNonceSize = 12;
const gcmTagSize = 16;

export function aesGCM(key: Buffer, random: RandomSource = randomBytes): KeyCipher {
  const algorithm = aesName('gcm', key) as CipherGCMTypes;
  return {
    seal(plain, aad) {
      const nonce = random(gcmNonceSize);
      const c = createCipheriv(algorithm, key, nonce);
      c.setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
    open(sealed, aad) {
      if (sealed.length < gcmNonceSize + gcmTagSize) throw new CipherError('the stored data was shorter than the required size');
      try {
        const d = createDecipheriv(algorithm, key, sealed.subarray(0, gcmNonceSize));
        d.setAAD(Buffer.from(aad));
        d.setAuthTag(sealed.subarray(sealed.length - gcmTagSize));
        return Buffer.concat([d.update(sealed.subarray(gcmNonceSize, sealed.length - gcmTagSize)), d.final()]);
      } catch {
        throw new CipherError('cipher: message authentication failed');
      }
    },
  };
}

const secretboxNonceSize = nacl.secretbox.nonceLength;

export function secretbox(key: Buffer, random: RandomSource = randomBytes): KeyCipher {
  const k = new Uint8Array(key);
  return {
    seal(plain) {
      const nonce = random(secretboxNonceSize);
      return Buffer.concat([nonce, nacl.secretbox(new Uint8Array(plain), new Uint8Array(nonce), k)]);
    },
    open(sealed) {
      if (sealed.length < secretboxNonceSize + nacl.secretbox.overheadLength) throw new CipherError('the stored data was shorter than the required size');
      const plain = nacl.secretbox.open(new Uint8Array(sealed.subarray(secretboxNonceSize)), new Uint8Array(sealed.subarray(0, secretboxNonceSize)), k);
      if (!plain) throw new CipherError('output array was not large enough for encryption');
      return Buffer.from(plain);
    },
  };
}

function aesName(mode: 'cbc' | 'gcm', key: Buffer): string {
  if (![16, 24, 32].includes(key.length)) throw new CipherError(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}
