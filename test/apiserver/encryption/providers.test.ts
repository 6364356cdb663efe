// The providers byte for byte: known vectors (derived with Python's `cryptography` and PyNaCl,
// independent of node:crypto and tweetnacl), upstream's on-disk prefixes, key selection on
// read, and every way a read must fail: wrong key, tampered or truncated data, no provider.
import t from 'tap';
import { aesCBC, aesGCM, CipherError, secretbox } from '../../../src/apiserver/encryption/ciphers.js';
import { prefixTransformer, TransformError, type TransformOperation } from '../../../src/apiserver/encryption/transformer.js';
import type { ProviderConfig } from '../../../src/apiserver/encryption/config.js';

const plain = Buffer.from('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');
const aad = '/registry/secrets/default/s1';
const range = (from: number, to: number) => Buffer.from(Array.from({ length: to - from }, (_, i) => from + i));
const key32 = range(0, 32);
const boxKey = range(0x40, 0x60);
/** A nonce source that hands out the given bytes, so sealing is deterministic. */
const fixed = (bytes: Buffer) => (size: number) => { if (size !== bytes.length) throw new Error(`asked ${size} bytes`); return Buffer.from(bytes); };

const vectors = [
  { name: 'aescbc 256', cipher: aesCBC(key32, fixed(range(0xa0, 0xb0))), sealed: 'a0a1a2a3a4a5a6a7a8a9aaabacadaeafda54e881eafae68f34aa2ddb00e56b52ebc8f04455a57c27e78aeee850c41f0287a4a7535609c48c0de9e74dbdbab3018af66c95ed00289fb479660eb4e37993' },
  { name: 'aescbc 128', cipher: aesCBC(range(0, 16), fixed(range(0xa0, 0xb0))), sealed: 'a0a1a2a3a4a5a6a7a8a9aaabacadaeafc15858287920aa138bca2074cc32f9c1a95dedc4461eb68fcec2feac84dcdef06e19092941d02992e6ed0703f61ed82b76b5931feacb5d82b58098dc73ac9ec9' },
  { name: 'aesgcm 256', cipher: aesGCM(key32, fixed(range(0xb0, 0xbc))), sealed: 'b0b1b2b3b4b5b6b7b8b9babbe27731c282a9996565abf2c1bf38fce0a81e2db3614fad0f25ecf2902ff18579772f010041bfeeeed03fe71c45f4e588104f6abae1459090871f8c2bb249b33ef32a5e91' },
  { name: 'aesgcm 192', cipher: aesGCM(range(0, 24), fixed(range(0xb0, 0xbc))), sealed: 'b0b1b2b3b4b5b6b7b8b9babbc7c4383e6632ff2f3545f365fa251130b900913c447ca04c12dc2bd45d00cd70e5f237e1952a44d15770bd0a377e1f54a72bd6d8df422d95a82b7299200ed5276434965b' },
  { name: 'secretbox', cipher: secretbox(boxKey, fixed(range(0xc0, 0xd8))), sealed: 'c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d70addf757d91d2c4392648ceb3c253ece2856211cbc9e0beb699f45b48f9d61cfff8f12b86b42a21da824f122c29c99d1a80c0abe1ad82ec68e2698e4f4abd549f992333c' },
];

for (const v of vectors) {
  t.test(`${v.name}: seals to the known vector and opens it`, async (t) => {
    t.equal(v.cipher.seal(plain, aad).toString('hex'), v.sealed);
    t.same(v.cipher.open(Buffer.from(v.sealed, 'hex'), aad), plain);
  });
  t.test(`${v.name}: a flipped byte or cut data fails to open`, async (t) => {
    const sealed = Buffer.from(v.sealed, 'hex');
    // The last byte: CBC has no MAC, but its padding check catches a change in the last block.
    const tampered = Buffer.from(sealed); tampered[tampered.length - 1] ^= 0x01;
    t.throws(() => v.cipher.open(tampered, aad), CipherError);
    t.throws(() => v.cipher.open(sealed.subarray(0, 10), aad), CipherError);
  });
}

t.test('aesgcm: the storage key is authenticated; the same bytes under another key do not open', async (t) => {
  const v = vectors[2];
  t.throws(() => v.cipher.open(Buffer.from(v.sealed, 'hex'), '/registry/secrets/default/other'), /message authentication failed/);
});

t.test('the wrong key does not open a value', async (t) => {
  const other = range(100, 132);
  t.throws(() => aesGCM(other).open(Buffer.from(vectors[2].sealed, 'hex'), aad), CipherError);
  t.throws(() => secretbox(other).open(Buffer.from(vectors[4].sealed, 'hex'), aad), CipherError);
  t.throws(() => aesCBC(other).open(Buffer.from(vectors[0].sealed, 'hex'), aad), CipherError);
});

t.test('random nonces: two seals of one value differ, both open', async (t) => {
  for (const c of [aesCBC(key32), aesGCM(key32), secretbox(boxKey)]) {
    const a = c.seal(plain, aad), b = c.seal(plain, aad);
    t.not(a.toString('hex'), b.toString('hex'));
    t.same(c.open(a, aad), plain);
    t.same(c.open(b, aad), plain);
  }
});

const provider = (type: 'aescbc' | 'aesgcm' | 'secretbox', ...keys: [string, Buffer][]): ProviderConfig => ({ type, keys: keys.map(([name, secret]) => ({ name, secret })) });
const identity: ProviderConfig = { type: 'identity' };

t.test('writes carry upstream\'s prefix: k8s:enc:<provider>:v1:<key>: then the cipher\'s bytes', async (t) => {
  const cases: [ProviderConfig, string, string][] = [
    [provider('aescbc', ['key1', key32]), 'k8s:enc:aescbc:v1:key1:', vectors[0].sealed],
    [provider('aesgcm', ['key1', key32]), 'k8s:enc:aesgcm:v1:key1:', vectors[2].sealed],
    [provider('secretbox', ['key1', boxKey]), 'k8s:enc:secretbox:v1:key1:', vectors[4].sealed],
  ];
  const nonces: Record<string, Buffer> = { aescbc: range(0xa0, 0xb0), aesgcm: range(0xb0, 0xbc), secretbox: range(0xc0, 0xd8) };
  for (const [p, prefix, sealed] of cases) {
    const tr = prefixTransformer([p], undefined, fixed(nonces[p.type]));
    const stored = tr.toStorage(plain, aad);
    t.equal(stored.subarray(0, prefix.length).toString(), prefix);
    t.equal(stored.subarray(prefix.length).toString('hex'), sealed);
    t.same(tr.fromStorage(stored, aad), { data: plain, stale: false });
  }
  t.same(prefixTransformer([identity]).toStorage(plain, aad), plain, 'identity first stores plain');
});

t.test('rotation: any listed key reads; only the first writes; others are stale', async (t) => {
  const key2 = range(32, 64);
  const old = prefixTransformer([provider('aescbc', ['key1', key32])]);
  const written = old.toStorage(plain, aad);
  const rotated = prefixTransformer([provider('aescbc', ['key2', key2], ['key1', key32])]);
  t.same(rotated.fromStorage(written, aad), { data: plain, stale: true }, 'key1 data read, marked for rewrite');
  const rewritten = rotated.toStorage(plain, aad);
  t.match(rewritten.toString('latin1'), /^k8s:enc:aescbc:v1:key2:/);
  t.same(rotated.fromStorage(rewritten, aad), { data: plain, stale: false });
  const dropped = prefixTransformer([provider('aescbc', ['key2', key2])]);
  t.throws(() => dropped.fromStorage(written, aad), new TransformError('no matching key was found for the provided AES transformer'));
  // A second provider of the same type (rotating between provider entries) is tried too.
  const twoEntries = prefixTransformer([provider('aescbc', ['key2', key2]), provider('aescbc', ['key1', key32])]);
  t.same(twoEntries.fromStorage(written, aad), { data: plain, stale: true });
});

t.test('identity: plain data is read only when identity is listed; first identity reads encrypted data through later providers', async (t) => {
  const enc = prefixTransformer([provider('secretbox', ['k', boxKey])]);
  t.throws(() => enc.fromStorage(plain, aad), new TransformError('no matching prefix found'), 'unlisted identity: plain data is refused, as upstream');
  const withFallback = prefixTransformer([provider('secretbox', ['k', boxKey]), identity]);
  t.same(withFallback.fromStorage(plain, aad), { data: plain, stale: true });
  const decrypting = prefixTransformer([identity, provider('secretbox', ['k', boxKey])]);
  const sealed = enc.toStorage(plain, aad);
  t.same(decrypting.fromStorage(sealed, aad), { data: plain, stale: true });
  t.same(decrypting.fromStorage(plain, aad), { data: plain, stale: false });
  t.throws(() => prefixTransformer([identity]).fromStorage(sealed, aad), new TransformError('no matching prefix found'), 'identity alone does not pass encrypted data off as plain');
});

t.test('a value under a known key name that does not open is an error, not garbage', async (t) => {
  const tr = prefixTransformer([provider('aesgcm', ['key1', key32])]);
  const stored = tr.toStorage(plain, aad);
  stored[stored.length - 3] ^= 0x40;
  t.throws(() => tr.fromStorage(stored, aad), new TransformError('cipher: message authentication failed'));
  const impostor = prefixTransformer([provider('aesgcm', ['key1', range(7, 39)])]);
  t.throws(() => impostor.fromStorage(tr.toStorage(plain, aad), aad), TransformError, 'same name, other secret');
});

t.test('operations are counted as apiserver_storage_transformation_operations_total labels them', async (t) => {
  const ops: TransformOperation[] = [];
  const tr = prefixTransformer([provider('aescbc', ['key1', key32]), identity], (op) => ops.push(op));
  tr.fromStorage(tr.toStorage(plain, aad), aad);
  tr.fromStorage(plain, aad);
  t.throws(() => tr.fromStorage(Buffer.from('k8s:enc:aesgcm:v1:x:abc'), aad));
  t.same(ops, [
    { transformationType: 'to_storage', transformerPrefix: 'k8s:enc:aescbc:v1:', status: 'OK' },
    { transformationType: 'from_storage', transformerPrefix: 'k8s:enc:aescbc:v1:', status: 'OK' },
    { transformationType: 'from_storage', transformerPrefix: 'identity', status: 'OK' },
    { transformationType: 'from_storage', transformerPrefix: 'unknown', status: 'Unknown' },
  ]);
});
