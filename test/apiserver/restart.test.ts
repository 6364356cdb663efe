// Concurrency and restarts as clients see them: parallel writers, optimistic concurrency
// under contention, allocations that never double up, and a server restarted on the same
// store that keeps every object and allocation and re-points the `kubernetes` Service.
import t from 'tap';
import { APIServer } from '../../src/apiserver/server.js';
import { logger } from '../../src/log/index.js';
import { APIClient, fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const cms = '/api/v1/namespaces/default/configmaps';
const svcs = '/api/v1/namespaces/default/services';

t.test('parallel patches without resourceVersion all land', async (t) => {
  await c.post(cms, fixtures.configMap('counter'));
  const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => c.patch(`${cms}/counter`, { data: { [`k${i}`]: 'v' } })));
  t.same(rs.map((r) => r.status), Array(20).fill(200));
  t.equal(Object.keys((await c.get(`${cms}/counter`)).body.data).length, 20, 'no write was lost');
});

t.test('parallel updates from one resourceVersion: one wins, the rest conflict', async (t) => {
  const cur = (await c.get(`${cms}/counter`)).body;
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => c.put(`${cms}/counter`, { ...cur, data: { only: String(i) } })));
  const codes = rs.map((r) => r.status).sort();
  t.same(codes, [200, ...Array(9).fill(409)]);
  const winner = rs.find((r) => r.status === 200)!;
  t.same((await c.get(`${cms}/counter`)).body.data, winner.body.data);
});

t.test('parallel creates of one name: one 201, the rest AlreadyExists, one ClusterIP held', async (t) => {
  const before = (await api.store.list('/registry/ipallocations/')).items.length;
  const rs = await Promise.all(Array.from({ length: 5 }, () => c.post(svcs, fixtures.service('same-name'))));
  t.same(rs.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
  const after = (await api.store.list('/registry/ipallocations/')).items.length;
  t.equal(after, before + 1, 'the losers released their IPs');
});

t.test('parallel Service creates get distinct IPs; one NodePort goes to one Service', async (t) => {
  const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => c.post(svcs, fixtures.service(`par-${i}`))));
  t.same(rs.map((r) => r.status), Array(20).fill(201));
  t.equal(new Set(rs.map((r) => r.body.spec.clusterIP)).size, 20);
  const np = await Promise.all(Array.from({ length: 5 }, (_, i) => c.post(svcs, fixtures.service(`np-${i}`, { type: 'NodePort', ports: [{ port: 80, nodePort: 30500 }] }))));
  t.same(np.map((r) => r.status).sort(), [201, 422, 422, 422, 422]);
});

t.test('a restart on the same store keeps objects and allocations and re-points the kubernetes Service', async (t) => {
  const held = (await c.get(`${svcs}/par-0`)).body.spec.clusterIP;
  const oldPort = api.port;
  await api.server.stop();
  const server = new APIServer({
    store: api.store, port: 0, bindAddress: '127.0.0.1', tokenFile: api.pki.tokenFile,
    tls: { certPem: api.pki.serving.certPem, keyPem: api.pki.serving.keyPem, caPem: api.pki.ca.certPem },
    log: logger('apiserver', {}, () => undefined),
  });
  t.teardown(() => server.stop().catch(() => undefined));
  const { port } = await server.start();
  t.not(port, oldPort);
  const c2 = new APIClient(port, c.creds);
  t.equal((await c2.get(`${cms}/counter`)).status, 200, 'objects survive');
  const kubernetes = (await c2.get('/api/v1/namespaces/default/services?fieldSelector=metadata.name%3Dkubernetes')).body.items;
  t.equal(kubernetes.length, 1, 'one kubernetes Service');
  t.equal(kubernetes[0].spec.clusterIP, '10.96.0.1');
  t.equal(kubernetes[0].spec.ports[0].targetPort, port, 'its targetPort follows the new port');
  const ep = (await c2.get('/api/v1/namespaces/default/endpoints/kubernetes')).body;
  t.same(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }], 'Endpoints point at the new port');
  const slice = (await c2.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).body;
  t.same(slice.ports, [{ name: 'https', port, protocol: 'TCP' }], 'the EndpointSlice too');
  t.equal(slice.endpoints.length, 1);
  const ip = await c2.post(svcs, fixtures.service('ip-thief', { clusterIP: held }));
  t.equal(ip.status, 422, 'ClusterIPs stay allocated');
  const np = await c2.post(svcs, fixtures.service('np-thief', { type: 'NodePort', ports: [{ port: 80, nodePort: 30500 }] }));
  t.equal(np.status, 422, 'NodePorts stay allocated');
  const rv = (await c2.get(cms)).body.metadata.resourceVersion;
  const w = await c2.watch(`${cms}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  await c2.patch(`${cms}/counter`, { data: { after: 'restart' } });
  const ev = await w.next();
  t.equal(ev?.type, 'MODIFIED', 'watches work on the new server');
  w.close();
  const before = (await c2.get('/api/v1/namespaces/default/endpoints/kubernetes')).body.metadata.resourceVersion;
  await server.stop();
  const again = new APIServer({
    store: api.store, port, bindAddress: '127.0.0.1', tokenFile: api.pki.tokenFile,
    tls: { certPem: api.pki.serving.certPem, keyPem: api.pki.serving.keyPem, caPem: api.pki.ca.certPem },
    log: logger('apiserver', {}, () => undefined),
  });
  t.teardown(() => again.stop().catch(() => undefined));
  await again.start();
  const c3 = new APIClient(port, c.creds);
  t.equal((await c3.get('/api/v1/namespaces/default/endpoints/kubernetes')).body.metadata.resourceVersion, before, 'a restart on the same port writes nothing');
  await again.stop();
});
