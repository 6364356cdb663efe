// JWS signing and verification for both key types the API server accepts, and the refusals:
// a changed payload or signature, another key, the "none" algorithm.
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { decodeJWT, keyID, signJWT, verifySignature, verifyingKey } from '../../src/util/jwt.js';
import { jwks, loadServiceAccountKeys, readPublicKeys } from '../../src/apiserver/authn/keys.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

for (const [alg, key] of [['RS256', rsa], ['ES256', ec]] as const) {
  t.test(`${alg}: signs, verifies, and refuses tampering`, async (t) => {
    const token = signJWT({ sub: 'x', n: 1 }, key);
    const jwt = decodeJWT(token)!;
    t.match(jwt.header, { alg, kid: keyID(key) });
    t.same(jwt.claims, { sub: 'x', n: 1 });
    t.ok(verifySignature(jwt, [verifyingKey(key)]), 'its own key verifies it');
    t.notOk(verifySignature(jwt, [verifyingKey(other)]), 'another key does not');
    const [h, p, s] = token.split('.');
    const changedPayload = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', n: 1 })).toString('base64url')}.${s}`;
    t.notOk(verifySignature(decodeJWT(changedPayload)!, [verifyingKey(key)]), 'a changed payload fails');
    const sig = Buffer.from(s, 'base64url');
    sig[sig.length - 1] ^= 1;
    t.notOk(verifySignature(decodeJWT(`${h}.${p}.${sig.toString('base64url')}`)!, [verifyingKey(key)]), 'a changed signature fails');
  });
}

t.test('alg "none" and mismatched algorithms are refused', async (t) => {
  const token = signJWT({ sub: 'x' }, rsa);
  const [, p] = token.split('.');
  const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.AA`;
  t.notOk(verifySignature(decodeJWT(none)!, [verifyingKey(rsa)]));
  const claimsES = `${Buffer.from(JSON.stringify({ alg: 'ES256', kid: keyID(rsa) })).toString('base64url')}.${p}.${token.split('.')[2]}`;
  t.notOk(verifySignature(decodeJWT(claimsES)!, [verifyingKey(rsa)]), 'an RSA signature labelled ES256');
});

t.test('strings that are not JWTs decode to null', async (t) => {
  for (const s of ['', 'abc', 'a.b', 'a.b.c.d', 'abcdef.0123456789abcdef', '!!.??.**', `${Buffer.from('[]').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.AA`]) {
    t.equal(decodeJWT(s), null, JSON.stringify(s));
  }
});

t.test('key sets: public keys from PEM files, JWKS with matching kids', async (t) => {
  const keys = loadServiceAccountKeys(rsa.export({ type: 'pkcs8', format: 'pem' }) as string, [
    ec.export({ type: 'pkcs8', format: 'pem' }) as string,
    (other.export({ type: 'pkcs8', format: 'pem' }) as string),
  ]);
  t.equal(keys.verifying.length, 3);
  t.equal(readPublicKeys('no pem here').length, 0);
  const set = jwks(keys);
  t.same(set.keys.map((k) => k.kid), [keyID(rsa), keyID(ec), keyID(other)]);
  t.match(set.keys[0], { use: 'sig', kty: 'RSA', alg: 'RS256', n: String, e: 'AQAB' });
  t.match(set.keys[1], { use: 'sig', kty: 'EC', alg: 'ES256', crv: 'P-256', x: String, y: String });
  t.notOk('d' in set.keys[0] || 'd' in set.keys[1], 'no private parts');
});
