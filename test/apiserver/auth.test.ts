// Authentication as a client sees it: bad tokens and certificates are 401 Status objects; no
// credentials is system:anonymous, which the default policy lets read /version only (and 401
// with --anonymous-auth=false); the token file's token and the admin client certificate get in.
import t from 'tap';
import { createCA, issueCert } from '../../src/pki/index.js';
import { startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const closed = await startAPIServer(t, { anonymousAuth: false });
const anonymous = api.client.as({});
const strangerCert = issueCert(createCA('stranger-ca'), { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'client' });
const paths = ['/api/v1/namespaces/default/pods', '/version', '/apis'];
const all = (status: number) => [status, status, status];
const cases = [
  { name: 'no credentials (anonymous)', client: anonymous, status: [403, 200, 403] },
  { name: 'no credentials, --anonymous-auth=false', client: closed.client.as({}), status: all(401) },
  { name: 'unknown bearer token', client: api.client.as({ token: 'not-a-token' }), status: all(401) },
  { name: 'empty bearer token (as none: anonymous)', client: api.client.as({ token: ' ' }), status: [403, 200, 403] },
  { name: 'empty bearer token, --anonymous-auth=false', client: closed.client.as({ token: ' ' }), status: all(401) },
  { name: 'token from the token file', client: api.client.as({ token: api.token }), status: all(200) },
  { name: 'admin client certificate', client: api.client, status: all(200) },
  { name: 'client certificate from another CA', client: api.client.as({ cert: strangerCert.certPem, key: strangerCert.keyPem }), status: all(401) },
];
for (const c of cases) {
  t.test(c.name, async (t) => {
    for (const [i, path] of paths.entries()) {
      const res = await c.client.get(path);
      t.equal(res.status, c.status[i], `${path} → ${c.status[i]}`);
      if (c.status[i] === 401) {
        t.match(res.body, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }, `${path} answers a Status`);
      }
      if (c.status[i] === 403) t.match(res.body, { kind: 'Status', reason: 'Forbidden', code: 403, message: /User "system:anonymous" cannot/ }, `${path} answers a Status`);
    }
  });
}

t.test('the token user is who the token file says', async (t) => {
  const res = await api.client.as({ token: api.token }).post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  t.equal(res.status, 201);
  t.equal(res.body.status.userInfo.username, 'admin-token');
  t.ok(res.body.status.userInfo.groups.includes('system:masters'));
  t.ok(res.body.status.userInfo.groups.includes('system:authenticated'));
});

t.test('the certificate user is the CN, groups the O', async (t) => {
  const res = await api.client.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  t.equal(res.status, 201);
  t.equal(res.body.status.userInfo.username, 'kubernetes-admin');
  t.ok(res.body.status.userInfo.groups.includes('system:masters'));
});

t.test('a write without credentials changes nothing', async (t) => {
  const res = await anonymous.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sneaky' } });
  t.equal(res.status, 403);
  t.equal((await api.client.get('/api/v1/namespaces/default/configmaps/sneaky')).status, 404);
});
