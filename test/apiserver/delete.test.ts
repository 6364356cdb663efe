// What DELETE answers, as kube-apiserver does: a Status of Success for an object that is gone
// (the object itself for pods, services, namespaces and service accounts), the object while
// graceful deletion or finalizers hold it; DeleteOptions from the body, else from the query,
// with the deprecated orphanDependents honoured; deletecollection answers with the list.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const ns = 'deletes';
await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const deploys = `/apis/apps/v1/namespaces/${ns}/deployments`;
const rss = `/apis/apps/v1/namespaces/${ns}/replicasets`;
const pods = `/api/v1/namespaces/${ns}/pods`;
const deleteOptions = (o: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'DeleteOptions', ...o });
const replicaSet = (name: string) => {
  const { spec } = fixtures.deployment(name);
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name }, spec: { selector: spec.selector, template: spec.template } };
};

t.test('an object that is gone at once is answered with a Status of Success naming it', async (t) => {
  const cm = (await c.post(cms, fixtures.configMap('gone'))).body;
  const res = await c.delete(`${cms}/gone`);
  t.equal(res.status, 200);
  t.same(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'gone', kind: 'configmaps', uid: cm.metadata.uid } });
  const deploy = (await c.post(deploys, fixtures.deployment('gone'))).body;
  const del = await c.delete(`${deploys}/gone`, deleteOptions({ propagationPolicy: 'Background' }));
  t.same(del.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'gone', group: 'apps', kind: 'deployments', uid: deploy.metadata.uid } });
  const dry = (await c.post(cms, fixtures.configMap('dry-gone'))).body;
  const dryDel = await c.delete(`${cms}/dry-gone?dryRun=All`);
  t.match(dryDel.body, { kind: 'Status', status: 'Success', details: { name: 'dry-gone', uid: dry.metadata.uid } }, 'a dry run answers as the real one would');
  t.equal((await c.get(`${cms}/dry-gone`)).status, 200);
});

t.test('pods, services, namespaces and service accounts answer with the deleted object', async (t) => {
  await c.post(pods, fixtures.pod('unbound'));
  const pod = await c.delete(`${pods}/unbound`);
  t.equal(pod.status, 200);
  t.match(pod.body, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'unbound' } });
  t.equal((await c.get(`${pods}/unbound`)).status, 404, 'an unscheduled pod is gone at once');
  await c.post(`/api/v1/namespaces/${ns}/services`, fixtures.service('svc'));
  t.match((await c.delete(`/api/v1/namespaces/${ns}/services/svc`)).body, { kind: 'Service', metadata: { name: 'svc' } });
  await c.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } });
  t.match((await c.delete(`/api/v1/namespaces/${ns}/serviceaccounts/sa`)).body, { kind: 'ServiceAccount', metadata: { name: 'sa' } });
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'short' } });
  t.match((await c.delete('/api/v1/namespaces/short')).body, { kind: 'Namespace', status: { phase: 'Terminating' } });
});

t.test('an object that stays (finalizers, Foreground, graceful pods) is answered with itself', async (t) => {
  await c.post(cms, { ...fixtures.configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  const held = await c.delete(`${cms}/held`);
  t.equal(held.status, 200);
  t.match(held.body, { kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  t.ok(held.body.metadata.deletionTimestamp);

  await c.post(deploys, fixtures.deployment('fg'));
  const fg = await c.delete(`${deploys}/fg`, deleteOptions({ propagationPolicy: 'Foreground' }));
  t.match(fg.body, { kind: 'Deployment', metadata: { name: 'fg', finalizers: ['foregroundDeletion'] } });
  t.ok(fg.body.metadata.deletionTimestamp);

  await c.post(pods, fixtures.pod('bound', { spec: { nodeName: 'node-1' } }));
  const bound = await c.delete(`${pods}/bound`);
  t.match(bound.body, { kind: 'Pod', metadata: { name: 'bound', deletionGracePeriodSeconds: 30 } });
});

t.test('orphanDependents: true orphans, false cascades in the background', async (t) => {
  await c.post(rss, replicaSet('orphaned'));
  const viaQuery = await c.delete(`${rss}/orphaned?orphanDependents=true`);
  t.equal(viaQuery.status, 200);
  t.match(viaQuery.body, { kind: 'ReplicaSet', metadata: { finalizers: ['orphan'] } }, 'waits for the garbage collector to orphan');
  t.ok(viaQuery.body.metadata.deletionTimestamp);

  await c.post(rss, { ...replicaSet('body-orphaned') });
  const viaBody = await c.delete(`${rss}/body-orphaned`, deleteOptions({ orphanDependents: true }));
  t.match(viaBody.body, { metadata: { finalizers: ['orphan'] } });

  await c.post(rss, { ...replicaSet('cascaded'), metadata: { name: 'cascaded', finalizers: ['orphan'] } });
  const cascaded = await c.delete(`${rss}/cascaded?orphanDependents=false`);
  t.equal(cascaded.status, 200);
  t.same(cascaded.body.details?.name, 'cascaded', 'false takes the orphan finalizer away, so it goes at once');
  t.equal((await c.get(`${rss}/cascaded`)).status, 404);
});

t.test('orphanDependents=false on an object that stays answers 202 Accepted', async (t) => {
  await c.post(cms, { ...fixtures.configMap('accepted'), metadata: { name: 'accepted', finalizers: ['example.com/hold'] } });
  const res = await c.delete(`${cms}/accepted`, deleteOptions({ orphanDependents: false }));
  t.equal(res.status, 202);
  t.match(res.body, { kind: 'ConfigMap', metadata: { name: 'accepted' } });
});

t.test('orphanDependents with propagationPolicy, or an unknown policy, is 422 Invalid DeleteOptions', async (t) => {
  await c.post(cms, fixtures.configMap('both'));
  for (const [what, send] of [
    ['query', () => c.delete(`${cms}/both?orphanDependents=true&propagationPolicy=Background`)],
    ['body', () => c.delete(`${cms}/both`, deleteOptions({ orphanDependents: false, propagationPolicy: 'Foreground' }))],
  ] as const) {
    const res = await send();
    t.equal(res.status, 422, what);
    t.equal(res.body.reason, 'Invalid');
    t.match(res.body.message, /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Invalid value: "(Background|Foreground)": orphanDependents and deletionPropagation cannot be both set$/);
    t.match(res.body.details, { group: 'meta.k8s.io', kind: 'DeleteOptions', causes: [{ field: 'propagationPolicy', reason: 'FieldValueInvalid' }] });
  }
  const unknown = await c.delete(`${cms}/both`, deleteOptions({ propagationPolicy: 'Sideways' }));
  t.equal(unknown.status, 422);
  t.match(unknown.body.message, /propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"/);
  t.equal((await c.get(`${cms}/both`)).status, 200, 'nothing was deleted');
});

t.test('with a body, query options are not read', async (t) => {
  await c.post(cms, fixtures.configMap('body-wins'));
  const res = await c.delete(`${cms}/body-wins?propagationPolicy=Orphan`, deleteOptions({}));
  t.equal(res.body.kind, 'Status', 'the query asked to orphan, the (empty) body did not: gone at once');
  t.equal((await c.get(`${cms}/body-wins`)).status, 404);
});

t.test('a negative gracePeriodSeconds means one second', async (t) => {
  await c.post(pods, fixtures.pod('hurry', { spec: { nodeName: 'node-1' } }));
  const res = await c.delete(`${pods}/hurry?gracePeriodSeconds=-5`);
  t.equal(res.status, 200);
  t.equal(res.body.metadata.deletionGracePeriodSeconds, 1);
});

t.test('deletecollection answers with the list as it was', async (t) => {
  for (const [n, finalizers] of [['dc-a', []], ['dc-b', ['example.com/hold']]] as const) {
    await c.post(cms, { ...fixtures.configMap(n, { dc: 'x' }), metadata: { name: n, labels: { dc: 'x' }, finalizers } });
  }
  const res = await c.delete(`${cms}?labelSelector=dc%3Dx`);
  t.equal(res.status, 200);
  t.equal(res.body.kind, 'ConfigMapList');
  t.same(res.body.items.map((i: any) => i.metadata.name), ['dc-a', 'dc-b']);
  t.ok(res.body.items.every((i: any) => !i.metadata.deletionTimestamp), 'the items as listed, before deletion');
  t.equal((await c.get(`${cms}/dc-a`)).status, 404);
  t.ok((await c.get(`${cms}/dc-b`)).body.metadata.deletionTimestamp, 'the held one is terminating');
  const none = await c.delete(`${cms}?labelSelector=dc%3Dnone`);
  t.same(none.body.items, []);
});
