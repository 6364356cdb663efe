// The kubelet API's authentication and authorization against a real API server (RBAC): no
// credentials is 401; a cluster-CA certificate or a ServiceAccount token (TokenReview) names
// the user, whose SubjectAccessReview on nodes/<subresource> of this node decides (403 in
// upstream's words); the API server's kubelet client is allowed by system:kubelet-api-admin.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeRuntime } from '../../cri/index.js';
import { clientsetFromKubeconfig, writeKubeconfig } from '../../src/client/index.js';
import { issueCert, type KeyPair } from '../../src/pki/index.js';
import { delegatedAuth, requestAttributes, startKubeletServer } from '../../src/kubelet/server/index.js';
import { startAPIServer } from '../helpers/api.js';

t.test('request attributes, as upstream maps kubelet paths', async (t) => {
  t.same(requestAttributes('GET', '/containerLogs/ns/p/c'), { verb: 'get', subresources: ['proxy'] });
  t.same(requestAttributes('POST', '/exec/ns/p/c'), { verb: 'create', subresources: ['proxy'] });
  t.same(requestAttributes('GET', '/stats/summary'), { verb: 'get', subresources: ['stats'] });
  t.same(requestAttributes('GET', '/metrics/cadvisor'), { verb: 'get', subresources: ['metrics'] });
  t.same(requestAttributes('GET', '/logs/syslog'), { verb: 'get', subresources: ['log'] });
  t.same(requestAttributes('GET', '/spec/'), { verb: 'get', subresources: ['spec'] });
  t.same(requestAttributes('GET', '/healthz'), { verb: 'get', subresources: ['healthz', 'proxy'] });
  t.same(requestAttributes('GET', '/pods'), { verb: 'get', subresources: ['pods', 'proxy'] });
  t.same(requestAttributes('GET', '/statsx'), { verb: 'get', subresources: ['proxy'] }, 'a prefix is a whole path segment');
});

t.test('kubelet API behind TokenReview and SubjectAccessReview', async (t) => {
  const api = await startAPIServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'capstan-kubelet-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ca = api.pki.ca;
  // The kubelet asks the API server as the node itself.
  const nodeCert = issueCert(ca, { commonName: 'system:node:node-a', organizations: ['system:nodes'], usage: 'client' });
  const kubeconfig = join(dir, 'kubelet.kubeconfig');
  writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${api.port}`, caPem: ca.certPem, certPem: nodeCert.certPem, keyPem: nodeCert.keyPem });
  const clients = clientsetFromKubeconfig(kubeconfig, 'kubelet-auth-test');
  t.teardown(() => clients.close());
  const srv = await startKubeletServer({
    cri: new FakeRuntime({ images: [] }), address: '127.0.0.1', port: 0, nodeName: 'node-a', clientCA: ca.certPem,
    tls: issueCert(ca, { commonName: 'node-a', ipAddresses: ['127.0.0.1'], usage: 'server' }),
    auth: delegatedAuth(clients, 'node-a'),
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as never,
  });
  t.teardown(() => srv.stop());

  const get = (path: string, creds: { cert?: KeyPair; token?: string } = {}) => new Promise<{ code: number; body: string }>((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: srv.port, path, ca: ca.certPem, agent: false,
      ...(creds.cert ? { cert: creds.cert.certPem, key: creds.cert.keyPem } : {}),
      headers: creds.token ? { Authorization: `Bearer ${creds.token}` } : {},
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
  const user = (name: string, groups: string[] = []) => issueCert(ca, { commonName: name, organizations: groups, usage: 'client' });

  // A role for nodes/proxy on this node, bound to bob and to the ServiceAccount `prober`.
  t.equal((await api.client.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'node-a-proxy' }, rules: [{ apiGroups: [''], resources: ['nodes/proxy'], resourceNames: ['node-a'], verbs: ['get'] }],
  })).status, 201);
  t.equal((await api.client.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'node-a-proxy' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-a-proxy' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }, { kind: 'ServiceAccount', name: 'prober', namespace: 'default' }],
  })).status, 201);
  for (const name of ['prober', 'nobody']) t.equal((await api.client.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name } })).status, 201);
  const token = async (sa: string) => (await api.client.post(`/api/v1/namespaces/default/serviceaccounts/${sa}/token`, { spec: {} })).body.status.token as string;

  t.test('no credentials, or a bad token: 401', async (t) => {
    t.same(await get('/healthz'), { code: 401, body: 'Unauthorized\n' });
    t.same(await get('/pods', { token: 'not-a-token' }), { code: 401, body: 'Unauthorized\n' });
  });

  t.test('a certificate user without the right: 403 in upstream\'s words', async (t) => {
    const r = await get('/containerLogs/default/web/main', { cert: user('alice', ['devs']) });
    t.same(r, { code: 403, body: 'Forbidden (user=alice, verb=get, resource=nodes, subresource=proxy)\n' });
    t.equal((await get('/healthz', { cert: user('alice', ['devs']) })).code, 403, 'healthz needs nodes/healthz or nodes/proxy');
  });

  t.test('a certificate user bound to nodes/proxy of this node gets in', async (t) => {
    t.same(await get('/healthz', { cert: user('bob') }), { code: 200, body: 'ok\n' });
    t.equal((await get('/containerLogs/default/web/main', { cert: user('bob') })).code, 404, 'past authorization: the container is simply not there');
  });

  t.test('bearer tokens are reviewed by the API server', async (t) => {
    t.same(await get('/healthz', { token: await token('prober') }), { code: 200, body: 'ok\n' });
    const denied = await get('/healthz', { token: await token('nobody') });
    t.same(denied, { code: 403, body: 'Forbidden (user=system:serviceaccount:default:nobody, verb=get, resource=nodes, subresource=proxy)\n' });
  });

  t.test('the API server\'s kubelet client is allowed by system:kubelet-api-admin, not by system:masters', async (t) => {
    t.same(await get('/healthz', { cert: user('kube-apiserver-kubelet-client') }), { code: 200, body: 'ok\n' });
    t.equal((await get('/stats/summary', { cert: user('kube-apiserver-kubelet-client') })).code, 404, 'nodes/stats allowed; not served here');
  });
});
