// Projected and downwardAPI volumes on disk, the atomic writer's `..data` swap, and the
// service account token manager's refresh timing on a fake clock.
import t from 'tap';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { FakeClock } from '../../src/util/index.js';
import { writePayload } from '../../src/kubelet/atomic-writer.js';
import { downwardItemValue } from '../../src/kubelet/downward-api.js';
import { TokenManager } from '../../src/kubelet/token-manager.js';
import { setUpVolumes } from '../../src/kubelet/volumes.js';
import type { ObjectSource } from '../../src/kubelet/env.js';
import type { Pod } from '../../src/api/kinds.js';

const tmp = (t: { teardown(fn: () => void): void }) => {
  const d = mkdtempSync(join(tmpdir(), 'capstan-projected-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
};
const file = (content: string, mode = 0o644) => ({ content: Buffer.from(content), mode });

t.test('atomic writer: ..data points at a timestamped dir, visible names are links into it', async (t) => {
  const dir = tmp(t);
  t.equal(await writePayload(dir, new Map([['a', file('1')], ['sub/b', file('2', 0o600)]])), true);
  const first = readlinkSync(join(dir, '..data'));
  t.match(first, /^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\w+$/);
  t.equal(statSync(join(dir, first)).mode & 0o777, 0o755, 'other users can walk into it');
  t.equal(readlinkSync(join(dir, 'a')), '..data/a');
  t.equal(readlinkSync(join(dir, 'sub')), '..data/sub');
  t.equal(readFileSync(join(dir, 'sub/b'), 'utf8'), '2');
  t.equal(statSync(join(dir, 'sub/b')).mode & 0o777, 0o600);

  t.equal(await writePayload(dir, new Map([['a', file('1')], ['sub/b', file('2', 0o600)]])), false, 'the same payload writes nothing');
  t.equal(readlinkSync(join(dir, '..data')), first);
  t.equal(await writePayload(dir, new Map([['a', file('1')], ['sub/b', file('2', 0o640)]])), true, 'a new mode alone is written');
  t.equal(statSync(join(dir, 'sub/b')).mode & 0o777, 0o640);
  const firstAgain = readlinkSync(join(dir, '..data'));
  t.not(firstAgain, first);

  t.equal(await writePayload(dir, new Map([['a', file('one')], ['c', file('3')]])), true);
  const second = readlinkSync(join(dir, '..data'));
  t.not(second, firstAgain);
  t.equal(readFileSync(join(dir, 'a'), 'utf8'), 'one');
  t.notOk(existsSync(join(dir, 'sub')), 'a name the payload dropped is gone');
  t.notOk(existsSync(join(dir, firstAgain)), 'the old timestamped dir is removed');
  t.strictSame(readdirSync(dir).sort(), ['..data', second, 'a', 'c'].sort());
  await t.rejects(writePayload(dir, new Map([['ok', file('x')], ['../escape', file('x')]])), /must not contain '\.\.'/);
  await t.rejects(writePayload(dir, new Map([['/abs', file('x')]])), /must be relative path/);
  t.strictSame(readdirSync(dir).sort(), ['..data', second, 'a', 'c'].sort(), 'a rejected payload touches nothing');
});

t.test('atomic writer: overlapping updates of one volume end with the later payload', async (t) => {
  const dir = tmp(t);
  await writePayload(dir, new Map([['key', file('v0')]]));
  // The earlier update is the slower one (many files); were the two not queued, it would
  // swap `..data` last and the volume would end with the older content.
  const many = new Map([['key', file('v1')]]);
  for (let i = 0; i < 400; i++) many.set(`dir${i % 20}/file${i}`, file(`content ${i}`.repeat(50)));
  const earlier = writePayload(dir, many);
  const later = writePayload(dir, new Map([['key', file('v2')]]));
  t.strictSame(await Promise.all([earlier, later]), [true, true]);
  t.equal(readFileSync(join(dir, 'key'), 'utf8'), 'v2');
  const data = readlinkSync(join(dir, '..data'));
  t.strictSame(readdirSync(join(dir, data)), ['key'], '..data holds only the later payload');
  t.strictSame(readdirSync(dir).sort(), ['..data', data, 'key'].sort(), 'one timestamped dir is left, no dropped name');

  // Three at once, the middle one identical to the first: the last still wins.
  const a = writePayload(dir, new Map([['key', file('v3')]]));
  const b = writePayload(dir, new Map([['key', file('v3')]]));
  const c = writePayload(dir, new Map([['key', file('v4', 0o600)]]));
  t.strictSame(await Promise.all([a, b, c]), [true, false, true], 'the second sees the first\'s result and writes nothing');
  t.equal(readFileSync(join(dir, 'key'), 'utf8'), 'v4');
  t.equal(statSync(join(dir, 'key')).mode & 0o777, 0o600);
  t.equal(readdirSync(dir).filter((n) => n.startsWith('..') && n !== '..data').length, 1);
});

const pod: Pod = {
  metadata: { name: 'p', namespace: 'ns1', uid: 'uid-1', labels: { app: 'web', tier: 'a"b' }, annotations: { note: 'x\ny' } },
  spec: {
    nodeName: 'n1', serviceAccountName: 'robot',
    containers: [{ name: 'main', image: 'i', resources: { limits: { memory: '64Mi' }, requests: { cpu: '250m' } } }],
  },
};
const facts = { nodeName: 'n1', allocatable: { cpu: 2, memory: 2 ** 30 } };

t.test('downward API items: metadata fields, labels and annotations as upstream formats them, resources', async (t) => {
  const v = (item: any) => downwardItemValue(pod, { path: 'x', ...item }, facts);
  t.equal(v({ fieldRef: { fieldPath: 'metadata.name' } }), 'p');
  t.equal(v({ fieldRef: { fieldPath: 'metadata.namespace' } }), 'ns1');
  t.equal(v({ fieldRef: { fieldPath: 'metadata.uid' } }), 'uid-1');
  t.equal(v({ fieldRef: { fieldPath: 'metadata.labels' } }), 'app="web"\ntier="a\\"b"');
  t.equal(v({ fieldRef: { fieldPath: 'metadata.annotations' } }), 'note="x\\ny"');
  t.equal(v({ fieldRef: { fieldPath: "metadata.labels['app']" } }), 'web');
  t.equal(v({ resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1Mi' } }), '64');
  t.equal(v({ resourceFieldRef: { containerName: 'main', resource: 'requests.cpu', divisor: '1m' } }), '250');
  t.equal(v({ resourceFieldRef: { containerName: 'main', resource: 'limits.cpu' } }), '2', 'no limit: the node allocatable');
  t.throws(() => v({ resourceFieldRef: { containerName: 'nope', resource: 'limits.cpu' } }), /container nope not found/);
});

const tokenFor = (clock: FakeClock, n: { i: number }) => async (_ns: string, _name: string, tr: TokenRequest): Promise<TokenRequest> => {
  n.i++;
  return { ...tr, status: { token: `token-${n.i}`, expirationTimestamp: new Date(clock.now() + tr.spec.expirationSeconds! * 1000).toISOString() } };
};

t.test('token manager: cached until 80 % of the lifetime or 24 h; failures keep the token until it expires', async (t) => {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const n = { i: 0 };
  let failing = false;
  const req = tokenFor(clock, n);
  const m = new TokenManager(async (ns, name, tr) => { if (failing) throw new Error('apiserver down'); return req(ns, name, tr); }, { clock, random: () => 0 });
  t.teardown(() => m.stop());
  const ask = (exp: number, uid = 'u1') => m.getServiceAccountToken('ns1', 'robot', { spec: { audiences: [], expirationSeconds: exp, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid } } });

  t.equal((await ask(600)).status!.token, 'token-1');
  clock.step(480_000);
  t.equal((await ask(600)).status!.token, 'token-1', 'at exactly 80 % of 600 s it is still fresh');
  clock.step(1_000);
  t.equal((await ask(600)).status!.token, 'token-2', 'past 80 %: refreshed');
  t.equal((await ask(600, 'u2')).status!.token, 'token-3', 'another pod, another token');

  const day = await ask(2 * 86400);
  clock.step(86_400_000);
  t.equal((await ask(2 * 86400)).status!.token, day.status!.token, 'a 2-day token at exactly 24 h is kept');
  clock.step(1_000);
  t.not((await ask(2 * 86400)).status!.token, day.status!.token, 'past 24 h it is refreshed although far from expiry');

  const before = await ask(600);
  clock.step(490_000);
  failing = true;
  t.equal((await ask(600)).status!.token, before.status!.token, 'a failed refresh serves the cached token');
  clock.step(111_000);
  await t.rejects(ask(600), /expired and refresh failed: apiserver down/);
  await t.rejects(m.getServiceAccountToken('ns1', 'robot', { spec: { audiences: ['x'], expirationSeconds: 600 } }), /failed to fetch token: apiserver down/);

  failing = false;
  await ask(600, 'gone');
  const size = m.size;
  m.deleteServiceAccountToken('gone');
  t.equal(m.size, size - 1, 'a removed pod\'s tokens leave the cache');
});

t.test('token manager: the jitter refreshes up to 10 s early, never late', async (t) => {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const n = { i: 0 };
  const m = new TokenManager(tokenFor(clock, n), { clock, random: () => 0.99 });
  t.teardown(() => m.stop());
  const tr = await m.getServiceAccountToken('ns1', 'robot', { spec: { audiences: [], expirationSeconds: 600 } });
  clock.step(471_000);
  t.equal(m.requiresRefresh(tr), false, '80 % less 9 s jitter, not yet');
  clock.step(1);
  t.equal(m.requiresRefresh(tr), true);
});

t.test('projected volume: token, configMap and secret items, downward API; rewritten when the token is due', async (t) => {
  const root = tmp(t);
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const n = { i: 0 };
  const requests: { ns: string; name: string; tr: TokenRequest }[] = [];
  const req = tokenFor(clock, n);
  const tokens = new TokenManager(async (ns, name, tr) => { requests.push({ ns, name, tr }); return req(ns, name, tr); }, { clock, random: () => 0 });
  t.teardown(() => tokens.stop());
  const cms: Record<string, any> = { 'kube-root-ca.crt': { data: { 'ca.crt': 'CA' } }, app: { data: { a: '1', b: '2' } } };
  const objects: ObjectSource = { configMap: async (_ns, name) => cms[name], secret: async (_ns, name) => (name === 's' ? { metadata: {}, data: { k: Buffer.from('v').toString('base64') } } : undefined) };
  const p: Pod = {
    ...pod,
    spec: {
      ...pod.spec!,
      volumes: [
        {
          name: 'kube-api-access-abcde',
          projected: {
            defaultMode: 0o644,
            sources: [
              { serviceAccountToken: { path: 'token', expirationSeconds: 600, audience: 'vault' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
              { secret: { name: 's', items: [{ key: 'k', path: 'creds/k', mode: 0o400 }] } },
              { configMap: { name: 'absent', optional: true } },
              { configMap: { name: 'app', items: [{ key: 'missing', path: 'm' }], optional: true } },
            ],
          },
        },
        { name: 'info', downwardAPI: { defaultMode: 0o600, items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'name', fieldRef: { fieldPath: 'metadata.name' }, mode: 0o644 }] } },
      ],
    },
  };
  const setUp = () => setUpVolumes({ root, pod: p, objects, tokens, facts });
  let vols = await setUp();
  const dir = vols.get('kube-api-access-abcde')!;
  t.match(dir, /pods\/uid-1\/volumes\/kubernetes\.io~projected\/kube-api-access-abcde$/);
  t.equal(readFileSync(join(dir, 'token'), 'utf8'), 'token-1');
  t.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), 'CA');
  t.equal(readFileSync(join(dir, 'namespace'), 'utf8'), 'ns1');
  t.equal(readFileSync(join(dir, 'creds/k'), 'utf8'), 'v');
  t.equal(statSync(join(dir, 'creds/k')).mode & 0o777, 0o400);
  t.equal(statSync(join(dir, 'token')).mode & 0o777, 0o644);
  t.ok(lstatSync(join(dir, 'token')).isSymbolicLink());
  t.strictSame(requests.map((r) => [r.ns, r.name, r.tr.spec]), [['ns1', 'robot', {
    audiences: ['vault'], expirationSeconds: 600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'uid-1' },
  }]], 'the TokenRequest names the pod\'s service account and binds the token to the pod');
  const info = vols.get('info')!;
  t.match(info, /kubernetes\.io~downward-api\/info$/);
  t.equal(readFileSync(join(info, 'labels'), 'utf8'), 'app="web"\ntier="a\\"b"');
  t.equal(statSync(join(info, 'labels')).mode & 0o777, 0o600);
  t.equal(statSync(join(info, 'name')).mode & 0o777, 0o644);

  const data = readlinkSync(join(dir, '..data'));
  clock.step(400_000);
  vols = await setUp();
  t.equal(readlinkSync(join(dir, '..data')), data, 'nothing due: nothing rewritten');
  clock.step(81_000);
  cms['kube-root-ca.crt'] = { data: { 'ca.crt': 'CA2' } };
  vols = await setUp();
  t.equal(readFileSync(join(dir, 'token'), 'utf8'), 'token-2', 'refreshed past 80 % of its lifetime');
  t.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), 'CA2', 'and the edited ConfigMap shows');
  t.equal(requests.length, 2);

  delete cms['kube-root-ca.crt'];
  await t.rejects(setUp(), { message: 'configmap "kube-root-ca.crt" not found', volume: 'kube-api-access-abcde' });
  cms['kube-root-ca.crt'] = { data: {} };
  await t.rejects(setUp(), { message: 'configmap references non-existent config key: ca.crt' });
});
