// Encryption at rest end to end, once per storage backend: real kubectl against a real
// `capstan apiserver` process restarted with a changing --encryption-provider-config, and the
// raw bytes read back from the store itself (SQLite file or etcd) while the server is down.
// It follows upstream's documented procedures: turn encryption on with identity as a read
// fallback, rotate (new key first, restart, replace everything), lose a key, and decrypt.
import type { Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlFor, eventually } from '../helpers/kubectl.js';
import { startAPIServerProcess, type APIServerProcess } from '../helpers/apiserver-process.js';

export interface RawStore {
  /** The bytes stored at `key`, read while the API server is stopped. */
  read(key: string): Promise<Buffer | undefined>;
}

const key1 = randomBytes(32).toString('base64');
const key2 = randomBytes(32).toString('base64');
const config = (...providers: string[]) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
${providers.map((p) => `      - ${p}`).join('\n')}
`;
const aescbc = (...keys: [string, string][]) => `aescbc: {keys: [${keys.map(([name, secret]) => `{name: ${name}, secret: "${secret}"}`).join(', ')}]}`;
const identity = 'identity: {}';
const b64 = (s: string) => Buffer.from(s).toString('base64');

export async function encryptionScenario(t: Test, store: (t: Test, server: () => APIServerProcess) => Promise<{ url?: string; raw: RawStore }>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-encryption-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'encryption.yaml');
  writeFileSync(file, config(identity));
  let server!: APIServerProcess;
  const backend = await store(t, () => server);
  server = await startAPIServerProcess(t, { store: backend.url, args: ['--encryption-provider-config', file] });
  const k = kubectlFor(t, server.kubeconfig);
  const raw = (name: string, resource = 'secrets') => backend.raw.read(`/registry/${resource}/default/${name}`).then((b) => b?.toString('latin1') ?? '');
  /** Stops the server, lets `inspect` read the store, and starts it with `next` as its config. */
  const restartWith = async (next: string, inspect: () => Promise<void> = async () => undefined) => {
    await server.kill();
    await inspect();
    writeFileSync(file, next);
    await server.restart();
  };
  const password = (name: string) => k.ok(['get', 'secret', name, '-o', 'jsonpath={.data.password}']);
  const replaceAll = async () => k.ok(['replace', '-f', '-'], await k.ok(['get', 'secrets', '-A', '-o', 'json']));

  const oldValue = `old-${randomBytes(6).toString('hex')}`;
  const value = `s3cret-${randomBytes(6).toString('hex')}`;
  const cmValue = `plain-${randomBytes(6).toString('hex')}`;
  await k.ok(['create', 'secret', 'generic', 'old', `--from-literal=password=${oldValue}`]);
  await k.ok(['create', 'configmap', 'cm', `--from-literal=k=${cmValue}`]);

  await t.test('encryption on: new Secrets are stored under aescbc key1, old ones stay readable', async (t) => {
    await restartWith(config(aescbc(['key1', key1]), identity), async () => {
      t.match(await raw('old'), b64(oldValue), 'written before: plain');
    });
    await k.ok(['create', 'secret', 'generic', 's1', `--from-literal=password=${value}`]);
    t.equal(await password('s1'), b64(value), 'kubectl reads it decrypted');
    t.equal(await password('old'), b64(oldValue), 'the unencrypted Secret is read through identity');
    const metrics = await k.ok(['get', '--raw', '/metrics']);
    t.match(metrics, /apiserver_storage_transformation_operations_total\{resource="secrets",transformation_type="to_storage",transformer_prefix="k8s:enc:aescbc:v1:",status="OK"\} [1-9]/);

    // Watches see decrypted objects, served from the watch cache.
    const watch = k.background(['get', 'secrets', '--watch', '-o', 'jsonpath={.metadata.name}={.data.password}{"\\n"}']);
    await eventually(() => watch.output().includes(`s1=${b64(value)}`), 15_000, 'the watch lists s1 decrypted');
    await k.ok(['create', 'secret', 'generic', 's2', `--from-literal=password=${value}-2`]);
    await eventually(() => watch.output().includes(`s2=${b64(`${value}-2`)}`), 15_000, 'the watch shows s2 decrypted');
    await watch.stop();

    await restartWith(config(aescbc(['key2', key2], ['key1', key1]), identity), async () => {
      const s1 = await raw('s1');
      t.ok(s1.startsWith('k8s:enc:aescbc:v1:key1:'), `stored with upstream's prefix: ${JSON.stringify(s1.slice(0, 24))}`);
      t.notOk(s1.includes(value) || s1.includes(b64(value)) || s1.includes('"password"'), 'the store holds no plaintext');
      t.match(await raw('cm', 'configmaps'), cmValue, 'ConfigMaps are not in the config: plain');
    });
  });

  await t.test('rotation: key2 first; replacing every Secret re-encrypts them under key2', async (t) => {
    t.equal(await password('s1'), b64(value), 'key1 still reads');
    await replaceAll();
    await restartWith(config(aescbc(['key2', key2])), async () => {
      for (const name of ['s1', 's2', 'old']) t.ok((await raw(name)).startsWith('k8s:enc:aescbc:v1:key2:'), `${name} now under key2`);
    });
    t.equal(await password('s1'), b64(value), 'key1 gone: everything still reads with key2 alone');
    t.equal(await password('old'), b64(oldValue));
  });

  await t.test('a Secret under a key no longer listed is an error for that object; the server serves on', async (t) => {
    await restartWith(config(identity, aescbc(['key1', key1])));
    const got = await k(['get', 'secret', 's1']);
    t.not(got.code, 0);
    t.match(got.stderr, /InternalError.*unable to transform key "\/registry\/secrets\/default\/s1": no matching key was found for the provided AES transformer/);
    t.match(await k.ok(['get', 'configmap', 'cm', '-o', 'jsonpath={.data.k}']), cmValue, 'other resources are unaffected');
    t.equal(await k.ok(['get', '--raw', '/readyz']), 'ok');
  });

  await t.test('decrypting: identity first, key2 second; replace stores plaintext again', async (t) => {
    await restartWith(config(identity, aescbc(['key2', key2])));
    t.equal(await password('s1'), b64(value));
    await replaceAll();
    await restartWith(config(identity), async () => {
      const s1 = await raw('s1');
      t.notOk(s1.startsWith('k8s:enc:'), 'no encryption prefix');
      t.match(s1, b64(value), 'the value is in the store in the clear');
    });
    t.equal(await password('s1'), b64(value));
    t.equal(await password('old'), b64(oldValue));
  });
}
