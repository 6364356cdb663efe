// Compact JWS (RFC 7515) signing and verification for the two algorithms ServiceAccount
// keys use: RS256 (RSA) and ES256 (ECDSA P-256). Claims are not judged here.
import { createHash, createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';

export type Algorithm = 'RS256' | 'ES256';

export interface JWTHeader {
  alg: string;
  kid?: string;
  typ?: string;
}

export interface DecodedJWT {
  header: JWTHeader;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

/** The algorithm a key signs with, or an error for a key of another kind. */
export function algorithmOf(key: KeyObject): Algorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`unsupported service account key: ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ''} (RSA or ECDSA P-256 needed)`);
}

/** Key id as kube-apiserver derives it: the SHA-256 of the PKIX public key, base64url. */
export function keyID(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function signJWT(claims: Record<string, unknown>, privateKey: KeyObject): string {
  const alg = algorithmOf(privateKey);
  const input = `${b64({ alg, kid: keyID(privateKey) })}.${b64(claims)}`;
  const sig = cryptoSign('sha256', Buffer.from(input), alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey);
  return `${input}.${sig.toString('base64url')}`;
}

/** Splits and parses a compact JWS; null when the string is not one (so another authenticator may try it). */
export function decodeJWT(token: string): DecodedJWT | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as JWTHeader;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    if (!header || typeof header !== 'object' || typeof header.alg !== 'string' || !claims || typeof claims !== 'object' || Array.isArray(claims)) return null;
    return { header, claims, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], 'base64url') };
  } catch {
    return null;
  }
}

/** A public key that verifies tokens, with what the JWKS and token headers call it. */
export interface VerifyingKey {
  key: KeyObject;
  kid: string;
  alg: Algorithm;
}

export function verifyingKey(key: KeyObject): VerifyingKey {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return { key: pub, kid: keyID(pub), alg: algorithmOf(pub) };
}

/** Whether one of `keys` signed the token with the algorithm its header names (never "none"). */
export function verifySignature(jwt: DecodedJWT, keys: VerifyingKey[]): boolean {
  for (const k of keys) {
    if (jwt.header.alg !== k.alg) continue;
    if (jwt.header.kid && jwt.header.kid !== k.kid) continue;
    const ok = cryptoVerify('sha256', Buffer.from(jwt.signingInput), k.alg === 'ES256' ? { key: k.key, dsaEncoding: 'ieee-p1363' } : k.key, jwt.signature);
    if (ok) return true;
  }
  return false;
}
