// Encryption at rest inside one API server: what clients see through get, list and watch when
// the store holds ciphertext, and when it holds a value no configured key can read (written
// under a key since removed, or moved to another key): a 500 for that object, an ERROR event
// ending that watch, and every other watch and resource going on as before.
import t from 'tap';
import { parseEncryptionConfiguration } from '../../src/apiserver/encryption/index.js';
import { fixtures, startAPIServer, type WatchEvent, type WatchStream } from '../helpers/api.js';

const encryption = parseEncryptionConfiguration(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm: {keys: [{name: key1, secret: ${Buffer.alloc(32, 9).toString('base64')}}]}
`);
const api = await startAPIServer(t, { encryption });
const c = api.client;
const secrets = '/api/v1/namespaces/default/secrets';
const cms = '/api/v1/namespaces/default/configmaps';

async function until(w: WatchStream, match: (ev: WatchEvent) => boolean): Promise<WatchEvent> {
  for (;;) {
    const ev = await w.next(10_000);
    if (!ev) throw new Error('the watch ended first');
    if (match(ev)) return ev;
  }
}

t.test('the store holds aesgcm ciphertext; get, list and watch return the Secret decrypted', async (t) => {
  const w = await c.watch(`${secrets}?watch=true`);
  t.teardown(() => w.close());
  t.equal((await c.post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { token: 'hunter2' } })).status, 201);
  const raw = (await api.store.get('/registry/secrets/default/s1'))!.value;
  t.ok(raw.toString('latin1').startsWith('k8s:enc:aesgcm:v1:key1:'));
  t.notOk(raw.includes(Buffer.from('hunter2').toString('base64')));
  const want = { data: { token: Buffer.from('hunter2').toString('base64') } };
  t.match((await c.get(`${secrets}/s1`)).body, want);
  t.match((await c.get(secrets)).body.items, [want]);
  t.match((await c.get(`${secrets}?resourceVersion=0`)).body.items, [want], 'from the watch cache');
  t.match((await until(w, (ev) => ev.object.metadata?.name === 's1')).object, want);
});

t.test('a value moved to another key does not decrypt: the key is authenticated data', async (t) => {
  const raw = (await api.store.get('/registry/secrets/default/s1'))!.value;
  await api.store.create('/registry/secrets/default/moved', raw);
  const r = await c.get(`${secrets}/moved`);
  t.equal(r.status, 500);
  t.match(r.body, { kind: 'Status', reason: 'InternalError', message: 'Internal error occurred: unable to transform key "/registry/secrets/default/moved": cipher: message authentication failed' });
  await api.store.delete('/registry/secrets/default/moved');
});

t.test('a value under a removed key: that watch ends with ERROR 500; others go on', async (t) => {
  const sw = await c.watch(`${secrets}?watch=true`);
  const cw = await c.watch(`${cms}?watch=true`);
  t.teardown(() => { sw.close(); cw.close(); });
  await until(sw, (ev) => ev.object.metadata?.name === 's1');
  await api.store.create('/registry/secrets/default/lost', Buffer.from('k8s:enc:aesgcm:v1:key0:0123456789abcdef0123456789abcdef'));
  const err = await until(sw, (ev) => ev.type === 'ERROR');
  t.match(err.object, { kind: 'Status', code: 500, reason: 'InternalError', message: /unable to transform key "\/registry\/secrets\/default\/lost": no matching key was found for the provided AES transformer/ });
  t.ok(await sw.ended(5_000), 'the broken watch is closed');

  await c.post(cms, fixtures.configMap('after'));
  t.equal((await until(cw, (ev) => ev.object.metadata?.name === 'after')).type, 'ADDED', 'a ConfigMap watch is unaffected');
  t.match((await c.get(`${secrets}/s1`)).body, { data: { token: Buffer.from('hunter2').toString('base64') } }, 'other Secrets read');
  t.equal((await c.get(`${secrets}/lost`)).status, 500);
  t.equal((await c.get(secrets)).status, 500, 'a list holding it fails, as upstream');
  const fresh = await c.watch(`${secrets}?watch=true`);
  t.teardown(() => fresh.close());
  t.equal(fresh.status, 500, 'so does a new watch that would list it');

  await api.store.delete('/registry/secrets/default/lost');
  t.equal((await c.get(secrets)).status, 200, 'once it is gone, lists work again');
});

t.test('bytes that are not JSON (what a tampered aescbc value may decrypt to) fail that object alone', async (t) => {
  const cw = await c.watch(`${cms}?watch=true`);
  const sw = await c.watch(`${secrets}?watch=true`);
  t.teardown(() => { cw.close(); sw.close(); });
  await until(sw, (ev) => ev.object.metadata?.name === 's1');
  await api.store.create('/registry/configmaps/default/garbled', Buffer.from([0x9f, 0x00, 0x42]));
  t.match((await until(cw, (ev) => ev.type === 'ERROR')).object, { code: 500, message: /unable to decode the object stored at "\/registry\/configmaps\/default\/garbled"/ });
  const r = await c.get(`${cms}/garbled`);
  t.equal(r.status, 500);
  await c.post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's9' } });
  t.equal((await until(sw, (ev) => ev.object.metadata?.name === 's9')).type, 'ADDED', 'the Secret watch goes on');
  await api.store.delete('/registry/configmaps/default/garbled');
});
