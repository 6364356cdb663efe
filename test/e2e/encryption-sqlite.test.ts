// Encryption at rest on SQLite (the raw row read from the data file while the server is down),
// and a bad --encryption-provider-config stopping `capstan apiserver` with the wrong field.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { capstanBin } from '../helpers/apiserver-process.js';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { encryptionScenario } from './encryption-scenario.js';

function rawRow(file: string, key: string): Buffer | undefined {
  const db = new Database(file);
  try {
    const row = db.prepare('SELECT value, deleted FROM kv WHERE key = ? ORDER BY id DESC LIMIT 1').get(key) as { value: Buffer; deleted: number } | undefined;
    return row && !row.deleted ? row.value : undefined;
  } finally {
    db.close();
  }
}

t.test('Secrets encrypted at rest in SQLite', (t) =>
  encryptionScenario(t, async (_t, server) => ({
    raw: {
      read: async (key) => rawRow(join(server().dataDir, 'state.db'), key),
    },
  })));

t.test('a bad file: the server refuses to start and names the field', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-encryption-bad-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'encryption.yaml');
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aescbc: {keys: [{name: key1, secret: ${Buffer.alloc(8).toString('base64')}}]}
`);
  const r = spawnSync(process.execPath, [capstanBin, 'apiserver', '--data-dir', dir, '--secure-port', '0', '--encryption-provider-config', file], { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 1);
  t.match(r.stderr, 'capstan apiserver: --encryption-provider-config: error while parsing file');
  t.match(r.stderr, 'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]');
  t.notMatch(r.stdout, /ready on/);
});

t.test('capstan up passes --encryption-provider-config to its API server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-encryption-up-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'encryption.json');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration',
    resources: [{ resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'box1', secret: Buffer.alloc(32, 5).toString('base64') }] } }] }],
  }));
  const up = await startCapstanUp(t, ['--encryption-provider-config', file], { dataDir: join(dir, 'data') });
  const k = kubectlFor(t, up.kubeconfig);
  await k.ok(['create', 'secret', 'generic', 'viaup', '--from-literal=password=up-value']);
  t.equal(await k.ok(['get', 'secret', 'viaup', '-o', 'jsonpath={.data.password}']), Buffer.from('up-value').toString('base64'));
  await up.stop();
  const raw = rawRow(join(dir, 'data', 'state.db'), '/registry/secrets/default/viaup')!.toString('latin1');
  t.ok(raw.startsWith('k8s:enc:secretbox:v1:box1:'), JSON.stringify(raw.slice(0, 26)));
  t.notOk(raw.includes(Buffer.from('up-value').toString('base64')));
});
