// The Node authorizer's graph fed from a watch cache over a real store: pods written through
// the API (created, bound by the scheduler's binding, deleted) change what a node may read
// as their events arrive, without the authorizer listing anything.
import t from 'tap';
import { feedNodeGraph, nodeAuthorizerFor } from '../../src/apiserver/authz/node.js';
import { NodeGraph } from '../../src/apiserver/authz/node-graph.js';
import { parseRequestInfo } from '../../src/apiserver/request-info.js';
import { WatchCache } from '../../src/storage/watch-cache.js';
import { startAPIServer, fixtures } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';

const api = await startAPIServer(t);
const cache = new WatchCache(api.store, '/registry/');
await cache.start();
t.teardown(() => cache.stop());
const pods = api.server.registries.get('', 'pods')!;
const { authorizer: authz, stop } = nodeAuthorizerFor(cache, api.server.registries);
t.teardown(stop);
const n1 = { username: 'system:node:n1', groups: ['system:nodes'] };
const secret = parseRequestInfo('GET', '/api/v1/namespaces/default/secrets/db-password', new URLSearchParams());
const mayRead = async () => (await authz.authorize(n1, secret)) === null;

t.test('pods already stored when the feed starts are in the graph', async (t) => {
  const res = await api.client.post('/api/v1/namespaces/default/pods', fixtures.pod('early', { spec: { nodeName: 'n1', volumes: [{ name: 'v', configMap: { name: 'early-cm' } }] } }));
  t.equal(res.status, 201);
  const g = new NodeGraph();
  await eventually(() => cache.revision >= Number(res.body.metadata.resourceVersion), 5000, 'cache caught up');
  const stopLate = feedNodeGraph(g, cache, { pods: (v, rev, key) => pods.decode(v, rev, key) });
  t.teardown(stopLate);
  t.ok(g.reaches('n1', 'configmap', 'default', 'early-cm'));
});

t.test('create, bind, delete', async (t) => {
  const created = await api.client.post('/api/v1/namespaces/default/pods', fixtures.pod('db', { spec: { volumes: [{ name: 's', secret: { secretName: 'db-password' } }] } }));
  t.equal(created.status, 201);
  await eventually(() => cache.revision >= Number(created.body.metadata.resourceVersion), 5000, 'cache caught up');
  t.notOk(await mayRead(), 'an unscheduled pod grants nothing');

  const bound = await api.client.post('/api/v1/namespaces/default/pods/db/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'db' }, target: { kind: 'Node', name: 'n1' } });
  t.equal(bound.status, 201);
  await eventually(mayRead, 5000, 'n1 may read the secret of its pod');

  const deleted = await api.client.delete('/api/v1/namespaces/default/pods/db', { gracePeriodSeconds: 0 });
  t.equal(deleted.status, 200);
  await eventually(async () => !(await mayRead()), 5000, 'n1 loses the secret with the pod');
});
