// The ServiceAccount token keys: one private key signs (--service-account-signing-key-file),
// every public key listed verifies (--service-account-key-file, plus the signing key's own),
// so keys can be rotated by adding the new one before signing with it. With no flags, the
// key lives in the data dir, created on first start (0600) and kept across restarts.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { verifyingKey, type VerifyingKey } from '../../util/jwt.js';

export interface ServiceAccountKeys {
  signing: KeyObject;
  verifying: VerifyingKey[];
}

/** The signing key at `path`, generated (RSA 2048, PKCS#8 PEM, mode 0600) when the file is missing. */
export function ensureSigningKeyFile(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    try {
      writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // Another process created it first: use theirs.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return path;
}

/** Every PEM block in a file as a key: private keys stand for their public halves. */
export function readPublicKeys(pem: string): KeyObject[] {
  const blocks = pem.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
  return blocks.flatMap((b) => {
    if (/CERTIFICATE/.test(b)) return [createPublicKey(b)];
    if (/PRIVATE KEY/.test(b)) return [createPublicKey(createPrivateKey(b))];
    if (/PUBLIC KEY/.test(b)) return [createPublicKey(b)];
    return [];
  });
}

export function loadServiceAccountKeys(signingKeyPem: string, publicKeyPems: string[] = []): ServiceAccountKeys {
  const signing = createPrivateKey(signingKeyPem);
  const verifying = new Map<string, VerifyingKey>();
  for (const k of [signing, ...publicKeyPems.flatMap(readPublicKeys)]) {
    const v = verifyingKey(k);
    verifying.set(v.kid, v);
  }
  return { signing, verifying: [...verifying.values()] };
}

export function loadServiceAccountKeyFiles(signingKeyFile: string, publicKeyFiles: string[] = []): ServiceAccountKeys {
  return loadServiceAccountKeys(readFileSync(signingKeyFile, 'utf8'), publicKeyFiles.map((f) => readFileSync(f, 'utf8')));
}

/** A key for this process only (tests, and servers started without a data dir): tokens die with it. */
export function ephemeralServiceAccountKeys(): ServiceAccountKeys {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return loadServiceAccountKeys(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
}

/** The public keys as a JSON Web Key Set, as /openid/v1/jwks serves them. */
export function jwks(keys: ServiceAccountKeys): { keys: Record<string, unknown>[] } {
  return {
    keys: keys.verifying.map((k) => {
      const { kty, n, e, crv, x, y } = k.key.export({ format: 'jwk' });
      return kty === 'RSA' ? { use: 'sig', kty, kid: k.kid, alg: k.alg, n, e } : { use: 'sig', kty, kid: k.kid, crv, alg: k.alg, x, y };
    }),
  };
}
