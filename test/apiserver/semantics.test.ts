// Object lifecycle as a client sees it: server-set metadata, generation, optimistic
// concurrency, status/scale/binding subresources, finalizers, namespaces, dry runs.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const cms = '/api/v1/namespaces/default/configmaps';
const deploys = '/apis/apps/v1/namespaces/default/deployments';
const pods = '/api/v1/namespaces/default/pods';

t.test('create sets uid, creationTimestamp and resourceVersion', async (t) => {
  const res = await c.post(cms, { ...fixtures.configMap('meta'), metadata: { name: 'meta', uid: 'client-uid', resourceVersion: '5', creationTimestamp: '2001-01-01T00:00:00Z' } });
  t.equal(res.status, 201);
  const m = res.body.metadata;
  t.match(m.uid, /^[0-9a-f-]{36}$/);
  t.not(m.uid, 'client-uid');
  t.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.not(m.creationTimestamp, '2001-01-01T00:00:00Z');
  t.match(m.resourceVersion, /^\d+$/);
  t.equal(res.body.apiVersion, 'v1');
  t.equal(res.body.kind, 'ConfigMap');
  const got = await c.get(`${cms}/meta`);
  t.same(got.body.metadata.uid, m.uid);
  t.same(got.body.metadata.resourceVersion, m.resourceVersion);
});

t.test('generateName', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const res = await c.post(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
    t.equal(res.status, 201);
    t.match(res.body.metadata.name, /^gen-[a-z0-9]{5}$/);
    t.equal(res.body.metadata.generateName, 'gen-');
    seen.add(res.body.metadata.name);
  }
  t.equal(seen.size, 3, 'distinct names');
  const none = await c.post(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
  t.equal(none.status, 422, 'neither name nor generateName');
});

t.test('generation bumps only on spec changes', async (t) => {
  const created = await c.post(deploys, fixtures.deployment('gen'));
  t.equal(created.body.metadata.generation, 1);
  const labelled = await c.patch(`${deploys}/gen`, { metadata: { labels: { tier: 'web' } } });
  t.equal(labelled.status, 200);
  t.equal(labelled.body.metadata.generation, 1, 'label change keeps generation');
  const annotated = await c.patch(`${deploys}/gen`, { metadata: { annotations: { note: 'x' } } });
  t.equal(annotated.body.metadata.generation, 1, 'annotation change keeps generation');
  const scaled = await c.patch(`${deploys}/gen`, { spec: { replicas: 3 } });
  t.equal(scaled.body.metadata.generation, 2, 'spec change bumps');
  const status = await c.patch(`${deploys}/gen/status`, { status: { replicas: 3, observedGeneration: 2 } });
  t.equal(status.status, 200);
  t.equal(status.body.metadata.generation, 2, 'status change keeps generation');
  const same = await c.patch(`${deploys}/gen`, { spec: { replicas: 3 } });
  t.equal(same.body.metadata.generation, 2, 'a no-op spec write keeps generation');
  t.equal(same.body.metadata.resourceVersion, status.body.metadata.resourceVersion, 'a no-op write keeps the resourceVersion');
});

t.test('an update with a stale resourceVersion is 409 Conflict', async (t) => {
  const created = (await c.post(cms, fixtures.configMap('occ', {}, { v: '1' }))).body;
  const first = await c.put(`${cms}/occ`, { ...created, data: { v: '2' } });
  t.equal(first.status, 200);
  t.not(first.body.metadata.resourceVersion, created.metadata.resourceVersion);
  const stale = await c.put(`${cms}/occ`, { ...created, data: { v: '3' } });
  t.equal(stale.status, 409);
  t.match(stale.body, { kind: 'Status', reason: 'Conflict', code: 409, details: { name: 'occ', kind: 'configmaps' } });
  t.match(stale.body.message, /Operation cannot be fulfilled on configmaps "occ": the object has been modified/);
  t.equal((await c.get(`${cms}/occ`)).body.data.v, '2', 'the stale write changed nothing');
  const stalePatch = await c.patch(`${cms}/occ`, { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { v: '4' } });
  t.equal(stalePatch.status, 409, 'a patch naming a stale resourceVersion conflicts too');
  const unconditional = await c.put(`${cms}/occ`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'occ' }, data: { v: '5' } });
  t.equal(unconditional.status, 200, 'an update without resourceVersion is unconditional');
});

t.test('metadata.uid is immutable: an update naming another uid is 422', async (t) => {
  const cm = (await c.post(cms, fixtures.configMap('uid-fixed', {}, { v: '1' }))).body;
  const res = await c.put(`${cms}/uid-fixed`, { ...cm, metadata: { ...cm.metadata, uid: 'not-the-uid' }, data: { v: '2' } });
  t.equal(res.status, 422);
  t.equal(res.body.details.causes[0].field, 'metadata.uid');
  t.match(res.body.message, /field is immutable/);
  t.equal((await c.get(`${cms}/uid-fixed`)).body.data.v, '1', 'nothing written');
  const patched = await c.patch(`${cms}/uid-fixed`, { metadata: { uid: 'not-the-uid' } });
  t.equal(patched.status, 422, 'also through a patch');
  const same = await c.put(`${cms}/uid-fixed`, { ...cm, data: { v: '3' } });
  t.equal(same.status, 200, 'the object\'s own uid is fine');
});

t.test('immutable ConfigMaps and Secrets', async (t) => {
  const cases: Array<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
    ['configmap', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'frozen' }, immutable: true, data: { a: '1' } }, { data: { a: '2' } }],
    ['secret', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'frozen' }, immutable: true, data: { a: 'MQ==' } }, { data: { a: 'Mg==' } }],
  ];
  for (const [name, path, body, change] of cases) {
    t.equal((await c.post(path, body)).status, 201);
    const data = await c.patch(`${path}/frozen`, change);
    t.equal(data.status, 422, `${name}: data cannot change`);
    t.equal(data.body.details.causes[0].field, 'data');
    const unset = await c.patch(`${path}/frozen`, { immutable: false });
    t.equal(unset.status, 422, `${name}: immutable cannot be unset`);
    t.equal(unset.body.details.causes[0].field, 'immutable');
    const removed = await c.patch(`${path}/frozen`, { immutable: null });
    t.equal(removed.status, 422, `${name}: immutable cannot be removed`);
    const labels = await c.patch(`${path}/frozen`, { metadata: { labels: { ok: 'yes' } } });
    t.equal(labels.status, 200, `${name}: metadata still changes`);
    t.equal((await c.delete(`${path}/frozen`)).status, 200, `${name}: and it can be deleted`);
  }
});

t.test('PUT to a missing object is 404', async (t) => {
  const res = await c.put(`${cms}/absent`, fixtures.configMap('absent'));
  t.equal(res.status, 404);
  t.equal(res.body.reason, 'NotFound');
});

t.test('the status subresource ignores spec; the main endpoint ignores status', async (t) => {
  const d = (await c.post(deploys, fixtures.deployment('split'))).body;
  t.notOk(d.status?.replicas, 'create drops status');
  const viaStatus = await c.put(`${deploys}/split/status`, { ...d, spec: { ...d.spec, replicas: 7 }, status: { replicas: 4 } });
  t.equal(viaStatus.status, 200);
  t.equal(viaStatus.body.spec.replicas, 1, 'spec unchanged through /status');
  t.equal(viaStatus.body.status.replicas, 4);
  const cur = viaStatus.body;
  const viaMain = await c.put(`${deploys}/split`, { ...cur, spec: { ...cur.spec, replicas: 2 }, status: { replicas: 99 } });
  t.equal(viaMain.status, 200);
  t.equal(viaMain.body.spec.replicas, 2);
  t.equal(viaMain.body.status.replicas, 4, 'status unchanged through the main endpoint');
  const labels = await c.patch(`${deploys}/split/status`, { metadata: { labels: { x: 'y' } } });
  t.notOk(labels.body.metadata.labels?.x, 'labels do not change through /status');
  const got = await c.get(`${deploys}/split/status`);
  t.equal(got.status, 200);
  t.equal(got.body.kind, 'Deployment');
});

t.test('scale subresource', async (t) => {
  await c.post(deploys, fixtures.deployment('scaled', { replicas: 2 }));
  const scale = await c.get(`${deploys}/scaled/scale`);
  t.equal(scale.status, 200);
  t.match(scale.body, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'scaled', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=scaled' } });
  const put = await c.put(`${deploys}/scaled/scale`, { ...scale.body, spec: { replicas: 5 } });
  t.equal(put.status, 200);
  t.equal(put.body.spec.replicas, 5);
  t.equal((await c.get(`${deploys}/scaled`)).body.spec.replicas, 5);
  const patched = await c.patch(`${deploys}/scaled/scale`, { spec: { replicas: 3 } });
  t.equal(patched.status, 200);
  t.equal(patched.body.spec.replicas, 3);
  const d = (await c.get(`${deploys}/scaled`)).body;
  t.equal(d.spec.replicas, 3);
  t.equal(d.metadata.generation, 3, 'each replica change is a spec change');
  const stale = await c.put(`${deploys}/scaled/scale`, { ...scale.body, spec: { replicas: 1 } });
  t.equal(stale.status, 409, 'a Scale with a stale resourceVersion conflicts');
  const negative = await c.patch(`${deploys}/scaled/scale`, { spec: { replicas: -1 } });
  t.equal(negative.status, 422);
  t.equal(negative.body.details.causes[0].field, 'spec.replicas');
  const rs = await c.get('/apis/apps/v1/namespaces/default/replicasets/none/scale');
  t.equal(rs.status, 404);
});

t.test('pods/binding', async (t) => {
  await c.post(pods, fixtures.pod('bind-me'));
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } };
  const res = await c.post(`${pods}/bind-me/binding`, binding);
  t.equal(res.status, 201);
  t.match(res.body, { kind: 'Status', status: 'Success' });
  const pod = (await c.get(`${pods}/bind-me`)).body;
  t.equal(pod.spec.nodeName, 'node-1');
  const cond = (pod.status.conditions as any[]).find((x) => x.type === 'PodScheduled');
  t.equal(cond?.status, 'True');
  const again = await c.post(`${pods}/bind-me/binding`, { ...binding, target: { ...binding.target, name: 'node-2' } });
  t.equal(again.status, 409);
  t.equal(again.body.reason, 'Conflict');
  t.equal((await c.get(`${pods}/bind-me`)).body.spec.nodeName, 'node-1');
  const missing = await c.post(`${pods}/ghost/binding`, { ...binding, metadata: { name: 'ghost' } });
  t.equal(missing.status, 404);
  const noTarget = await c.post(`${pods}/bind-me/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me' } });
  t.equal(noTarget.status, 422);
});

t.test('finalizers hold a deleted object until they are removed', async (t) => {
  await c.post(cms, { ...fixtures.configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  const del = await c.delete(`${cms}/held`);
  t.equal(del.status, 200);
  t.ok(del.body.metadata.deletionTimestamp, 'the reply carries deletionTimestamp');
  const got = await c.get(`${cms}/held`);
  t.equal(got.status, 200, 'still there');
  t.ok(got.body.metadata.deletionTimestamp);
  t.same(got.body.metadata.finalizers, ['example.com/hold']);
  const again = await c.delete(`${cms}/held`);
  t.equal(again.status, 200, 'deleting again is fine');
  t.equal(again.body.metadata.deletionTimestamp, got.body.metadata.deletionTimestamp, 'and keeps the timestamp');
  const adding = await c.patch(`${cms}/held`, { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } });
  t.equal(adding.status, 422, 'no new finalizers on a terminating object');
  const cur = (await c.get(`${cms}/held`)).body;
  const cleared = await c.put(`${cms}/held`, { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
  t.equal(cleared.status, 200);
  t.equal((await c.get(`${cms}/held`)).status, 404, 'gone once the last finalizer is removed');
});

t.test('delete without finalizers removes at once; then 404', async (t) => {
  await c.post(cms, fixtures.configMap('short-lived'));
  const del = await c.delete(`${cms}/short-lived`);
  t.equal(del.status, 200);
  t.equal((await c.get(`${cms}/short-lived`)).status, 404);
  const twice = await c.delete(`${cms}/short-lived`);
  t.equal(twice.status, 404);
  t.equal(twice.body.message, 'configmaps "short-lived" not found');
});

t.test('graceful pod deletion', async (t) => {
  const rv = (await c.get(pods)).body.metadata.resourceVersion;
  const w = await c.watch(`${pods}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dgraceful`);
  t.teardown(() => w.close());
  await c.post(pods, fixtures.pod('graceful'));
  await c.post(`${pods}/graceful/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'graceful' }, target: { kind: 'Node', name: 'node-1' } });
  const first = await c.delete(`${pods}/graceful`);
  t.equal(first.status, 200);
  t.equal(first.body.metadata.deletionGracePeriodSeconds, 30, 'a bound pod waits terminationGracePeriodSeconds for its kubelet');
  t.ok(first.body.metadata.deletionTimestamp);
  t.equal((await c.get(`${pods}/graceful`)).status, 200, 'still there');
  const shorter = await c.delete(`${pods}/graceful`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 5 });
  t.equal(shorter.body.metadata.deletionGracePeriodSeconds, 5, 'a shorter grace period shortens it');
  t.ok(Date.parse(shorter.body.metadata.deletionTimestamp) < Date.parse(first.body.metadata.deletionTimestamp));
  const longer = await c.delete(`${pods}/graceful`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 60 });
  t.equal(longer.body.metadata.deletionGracePeriodSeconds, 5, 'a longer one does not lengthen it');
  const now = await c.delete(`${pods}/graceful?gracePeriodSeconds=0`);
  t.equal(now.status, 200);
  t.equal((await c.get(`${pods}/graceful`)).status, 404, 'gracePeriodSeconds=0 (the kubelet\'s final delete) removes it');
  const types: string[] = [];
  for (;;) {
    const ev = await w.next();
    types.push(ev!.type);
    if (ev!.type === 'DELETED') break;
  }
  t.equal(types[0], 'ADDED');
  t.equal(types[types.length - 1], 'DELETED');
  t.ok(types.slice(1, -1).every((x) => x === 'MODIFIED'));

  await c.post(pods, fixtures.pod('unbound'));
  t.equal((await c.delete(`${pods}/unbound`)).status, 200);
  t.equal((await c.get(`${pods}/unbound`)).status, 404, 'an unscheduled pod goes at once');
  await c.post(pods, fixtures.pod('finished'));
  await c.post(`${pods}/finished/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'finished' }, target: { kind: 'Node', name: 'node-1' } });
  await c.patch(`${pods}/finished/status`, { status: { phase: 'Succeeded' } });
  await c.delete(`${pods}/finished`);
  t.equal((await c.get(`${pods}/finished`)).status, 404, 'a finished pod goes at once');
});

t.test('delete preconditions', async (t) => {
  const cm = (await c.post(cms, fixtures.configMap('precond'))).body;
  const wrongUID = await c.delete(`${cms}/precond`, { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'nope' } });
  t.equal(wrongUID.status, 409);
  const wrongRV = await c.delete(`${cms}/precond`, { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } });
  t.equal(wrongRV.status, 409);
  const right = await c.delete(`${cms}/precond`, { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion } });
  t.equal(right.status, 200);
});

t.test('namespace deletion: Terminating, no new content, /finalize removes it', async (t) => {
  const created = await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
  t.equal(created.status, 201);
  t.same(created.body.spec.finalizers, ['kubernetes']);
  t.equal(created.body.status.phase, 'Active');
  t.equal(created.body.metadata.labels['kubernetes.io/metadata.name'], 'doomed');
  t.equal((await c.post('/api/v1/namespaces/doomed/configmaps', fixtures.configMap('before'))).status, 201);
  const del = await c.delete('/api/v1/namespaces/doomed');
  t.equal(del.status, 200);
  const ns = (await c.get('/api/v1/namespaces/doomed')).body;
  t.equal(ns.status.phase, 'Terminating');
  t.ok(ns.metadata.deletionTimestamp);
  const refused = await c.post('/api/v1/namespaces/doomed/configmaps', fixtures.configMap('after'));
  t.equal(refused.status, 403);
  t.equal(refused.body.reason, 'Forbidden');
  t.match(refused.body.message, /because it is being terminated/);
  t.equal((await c.get('/api/v1/namespaces/doomed/configmaps/before')).status, 200, 'existing content stays readable');
  const again = await c.delete('/api/v1/namespaces/doomed');
  t.equal(again.status, 409, 'deleting a terminating namespace again is a conflict');
  t.match(again.body.message, /The system is ensuring all content is removed from this namespace/);
  const event = await c.post('/api/v1/namespaces/doomed/events', {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'doomed.1' }, involvedObject: { kind: 'Namespace', name: 'doomed' }, reason: 'Deleting', message: 'x',
  });
  t.equal(event.status, 201, 'events may still be written');
  const fin = await c.put('/api/v1/namespaces/doomed/finalize', { ...ns, spec: { finalizers: [] } });
  t.equal(fin.status, 200);
  t.equal((await c.get('/api/v1/namespaces/doomed')).status, 404, 'gone after finalize');
});

t.test('system namespaces exist and cannot be deleted', async (t) => {
  const list = await c.get('/api/v1/namespaces');
  const names = (list.body.items as any[]).map((n) => n.metadata.name);
  for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    t.ok(names.includes(n), `${n} exists`);
  }
  for (const n of ['default', 'kube-system', 'kube-public']) {
    const del = await c.delete(`/api/v1/namespaces/${n}`);
    t.equal(del.status, 403, `${n} cannot be deleted`);
    t.equal((await c.get(`/api/v1/namespaces/${n}`)).body.status.phase, 'Active');
  }
});

t.test('dryRun=All changes nothing', async (t) => {
  const created = await c.post(`${cms}?dryRun=All`, fixtures.configMap('dry', {}, { k: 'v' }));
  t.equal(created.status, 201);
  t.equal(created.body.metadata.name, 'dry');
  t.equal((await c.get(`${cms}/dry`)).status, 404, 'dry-run create wrote nothing');

  const real = (await c.post(cms, fixtures.configMap('wet', {}, { k: 'v' }))).body;
  const updated = await c.put(`${cms}/wet?dryRun=All`, { ...real, data: { k: 'changed' } });
  t.equal(updated.status, 200);
  t.equal(updated.body.data.k, 'changed', 'the reply shows the result');
  const patched = await c.patch(`${cms}/wet?dryRun=All`, { data: { k: 'patched' } });
  t.equal(patched.status, 200);
  let got = (await c.get(`${cms}/wet`)).body;
  t.equal(got.data.k, 'v', 'dry-run update and patch wrote nothing');
  t.equal(got.metadata.resourceVersion, real.metadata.resourceVersion);

  const deleted = await c.delete(`${cms}/wet?dryRun=All`);
  t.equal(deleted.status, 200);
  got = (await c.get(`${cms}/wet`)).body;
  t.equal(got.metadata.name, 'wet', 'dry-run delete removed nothing');

  const svc = await c.post('/api/v1/namespaces/default/services?dryRun=All', fixtures.service('dry-svc', { clusterIP: '10.96.100.100' }));
  t.equal(svc.status, 201);
  const real2 = await c.post('/api/v1/namespaces/default/services', fixtures.service('wet-svc', { clusterIP: '10.96.100.100' }));
  t.equal(real2.status, 201, 'a dry-run create allocates no ClusterIP');

  const bad = await c.post(`${cms}?dryRun=Some`, fixtures.configMap('dry2'));
  t.equal(bad.status, 400, 'unknown dryRun value');
});

t.test('deletecollection with a label selector', async (t) => {
  for (const [n, tier] of [['dc-a', 'x'], ['dc-b', 'x'], ['dc-c', 'y']]) await c.post(cms, fixtures.configMap(n, { dc: tier }));
  const res = await c.delete(`${cms}?labelSelector=dc%3Dx`);
  t.equal(res.status, 200);
  const left = ((await c.get(`${cms}?labelSelector=dc`)).body.items as any[]).map((i) => i.metadata.name);
  t.same(left, ['dc-c']);
});
