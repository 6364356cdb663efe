// Integers outside their OpenAPI format (int32, int64) are refused on every write of every
// kind, as Kubernetes' decoder refuses them: 400 when a create or update body does not
// decode, 422 when a patch's result does not (kubectl scale and kubectl patch included).
import t from 'tap';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { fixtures, startAPIServer } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';

const api = await startAPIServer(t);
const c = api.client;
const kubectl = kubectlFor(t, writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`));
const deploys = '/apis/apps/v1/namespaces/default/deployments';
const replicasets = '/apis/apps/v1/namespaces/default/replicasets';
const pods = '/api/v1/namespaces/default/pods';

const rs = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
});

for (const [what, n] of [['2^31', 2 ** 31], ['2^53', 2 ** 53], ['-2^31 - 1', -(2 ** 31) - 1]] as const) {
  t.test(`replicas ${what} is 400 on create and nothing is stored`, async (t) => {
    for (const [path, body] of [[replicasets, rs(`big-rs-${n < 0 ? 'neg' : n}`, n)], [deploys, fixtures.deployment(`big-d-${n < 0 ? 'neg' : n}`, { replicas: n })]] as const) {
      const res = await c.post(path, body);
      t.equal(res.status, 400, `${path}: 400`);
      t.match(res.body, { reason: 'BadRequest', message: new RegExp(`cannot unmarshal number ${BigInt(n)} into field spec\\.replicas of type int32`) });
      t.equal((await c.get(`${path}/${body.metadata.name}`)).status, 404);
    }
  });
}

t.test('the int32 bounds themselves are accepted', async (t) => {
  t.equal((await c.post(replicasets, rs('max-int32', 2 ** 31 - 1))).status, 201);
  const scaled = await c.patch(`${replicasets}/max-int32`, { spec: { replicas: 0 } });
  t.equal(scaled.status, 200);
});

t.test('a patch to 2^31 or 2^53 is 422 and changes nothing', async (t) => {
  t.equal((await c.post(deploys, fixtures.deployment('patched'))).status, 201);
  for (const n of [2 ** 31, 2 ** 53]) {
    const merge = await c.patch(`${deploys}/patched`, { spec: { replicas: n } });
    t.equal(merge.status, 422, 'merge patch');
    t.match(merge.body, { reason: 'Invalid', details: { causes: [{ field: 'patch' }] } });
    const smp = await c.patch(`${deploys}/patched`, { spec: { replicas: n } }, { contentType: 'application/strategic-merge-patch+json' });
    t.equal(smp.status, 422, 'strategic merge patch');
    const json = await c.patch(`${deploys}/patched`, [{ op: 'replace', path: '/spec/replicas', value: n }], { contentType: 'application/json-patch+json' });
    t.equal(json.status, 422, 'JSON patch');
    const scale = await c.patch(`${deploys}/patched/scale`, { spec: { replicas: n } });
    t.equal(scale.status, 422, 'scale subresource');
  }
  const put = (await c.get(`${deploys}/patched`)).body;
  put.spec.replicas = 2 ** 53;
  t.equal((await c.put(`${deploys}/patched`, put)).status, 400, 'update');
  t.equal((await c.get(`${deploys}/patched`)).body.spec.replicas, 1, 'unchanged');
});

t.test('kubectl is told so', async (t) => {
  const manifest = JSON.stringify(fixtures.deployment('kubectl-big', { replicas: 2 ** 53 }));
  const create = await kubectl(['create', '-f', '-'], manifest);
  t.not(create.code, 0);
  t.match(create.stderr, /BadRequest.*cannot unmarshal number 9007199254740992 into field spec\.replicas of type int32/);
  t.equal((await c.get(`${deploys}/kubectl-big`)).status, 404);
  t.equal((await c.post(deploys, fixtures.deployment('kubectl-scale'))).status, 201);
  const scale = await kubectl(['scale', 'deployment/kubectl-scale', '--replicas=2147483648']);
  t.not(scale.code, 0);
  t.match(scale.stderr, /Invalid|is invalid/);
  t.equal((await c.get(`${deploys}/kubectl-scale`)).body.spec.replicas, 1);
});

t.test('int64 fields take what an int64 holds, int-or-string holds an int32', async (t) => {
  const ok = await c.post(pods, fixtures.pod('int64-ok', { spec: { terminationGracePeriodSeconds: 2 ** 53 } }));
  t.equal(ok.status, 201, 'terminationGracePeriodSeconds 2^53 (int64)');
  t.equal(ok.body.spec.terminationGracePeriodSeconds, 2 ** 53);
  const over = await c.post(pods, fixtures.pod('int64-over', { spec: { terminationGracePeriodSeconds: 2 ** 64 } }));
  t.equal(over.status, 400, 'terminationGracePeriodSeconds 2^64');
  t.match(over.body.message, /spec\.terminationGracePeriodSeconds of type int64/);
  const port = await c.post(pods, fixtures.pod('port-over', { spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 2 ** 32 + 80 }] }] } }));
  t.equal(port.status, 400, 'containerPort 2^32 + 80 does not wrap to 80');
  const surge = await c.post(deploys, fixtures.deployment('surge-over', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2 ** 31 } } }));
  t.equal(surge.status, 400, 'maxSurge (int-or-string) 2^31');
  const status = await c.post(replicasets, rs('status-rs', 1));
  t.equal(status.status, 201);
  const st = await c.put(`${replicasets}/status-rs/status`, { ...status.body, status: { replicas: 2 ** 40 } });
  t.equal(st.status, 400, 'status.replicas 2^40 through the status subresource');
});
