// One object, several API versions: apps/v1beta1 and apps/v1 Deployments, core and
// events.k8s.io/v1 Events, each written in one and read in the other.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const v1 = '/apis/apps/v1/namespaces/default/deployments';
const v1beta1 = '/apis/apps/v1beta1/namespaces/default/deployments';

t.test('apps/v1beta1 create, read back via apps/v1, with v1beta1 defaults', async (t) => {
  const body = {
    apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'beta' },
    spec: { template: { metadata: { labels: { app: 'beta' } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } } },
  };
  const created = await c.post(v1beta1, body);
  t.equal(created.status, 201);
  t.equal(created.body.apiVersion, 'apps/v1beta1');
  t.same(created.body.spec.selector, { matchLabels: { app: 'beta' } }, 'selector defaulted from template labels');
  t.same(created.body.metadata.labels, { app: 'beta' }, 'labels defaulted from template labels');
  t.match(created.body.spec, { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, revisionHistoryLimit: 2, progressDeadlineSeconds: 600 });

  const read = await c.get(`${v1}/beta`);
  t.equal(read.status, 200);
  t.equal(read.body.apiVersion, 'apps/v1');
  t.equal(read.body.kind, 'Deployment');
  t.equal(read.body.metadata.uid, created.body.metadata.uid);
  t.same(read.body.spec.selector, { matchLabels: { app: 'beta' } });
  t.equal(read.body.spec.replicas, 1);
  t.equal(read.body.spec.revisionHistoryLimit, 2);

  const listed = await c.get(v1beta1);
  t.equal(listed.body.kind, 'DeploymentList');
  t.equal(listed.body.apiVersion, 'apps/v1beta1');
  t.ok((listed.body.items as any[]).every((i) => i.apiVersion === 'apps/v1beta1'));
});

t.test('apps/v1 create, read back via apps/v1beta1', async (t) => {
  const created = await c.post(v1, fixtures.deployment('ga', { replicas: 4 }));
  t.equal(created.status, 201);
  t.match(created.body.spec, { replicas: 4, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
  const read = await c.get(`${v1beta1}/ga`);
  t.equal(read.body.apiVersion, 'apps/v1beta1');
  t.equal(read.body.spec.replicas, 4);
  t.equal(read.body.spec.revisionHistoryLimit, 10);
  t.same(read.body.spec.selector, { matchLabels: { app: 'ga' } });
  const updated = await c.patch(`${v1beta1}/ga`, { spec: { replicas: 2 } });
  t.equal(updated.status, 200);
  t.equal(updated.body.apiVersion, 'apps/v1beta1');
  t.equal((await c.get(`${v1}/ga`)).body.spec.replicas, 2, 'a v1beta1 patch is seen in v1');
  const put = await c.put(`${v1beta1}/ga`, { ...updated.body, spec: { ...updated.body.spec, replicas: 6 } });
  t.equal(put.status, 200);
  t.equal((await c.get(`${v1}/ga`)).body.spec.replicas, 6, 'a v1beta1 update is seen in v1');
  const scale = await c.get(`${v1beta1}/ga/scale`);
  t.match(scale.body, { kind: 'Scale', spec: { replicas: 6 } });
});

t.test('apps/v1 requires a selector', async (t) => {
  const d = fixtures.deployment('no-selector') as any;
  delete d.spec.selector;
  const res = await c.post(v1, d);
  t.equal(res.status, 422);
  t.ok((res.body.details.causes as any[]).some((x) => x.field === 'spec.selector'));
});

t.test('a body in another version than the URL is 400', async (t) => {
  const res = await c.post(v1beta1, fixtures.deployment('mixed'));
  t.equal(res.status, 400);
  t.match(res.body.message, /does not match the expected API version/);
});

t.test('v1beta1 rollbackTo survives a round trip through v1 storage', async (t) => {
  const cur = (await c.get(`${v1beta1}/beta`)).body;
  const res = await c.put(`${v1beta1}/beta`, { ...cur, spec: { ...cur.spec, rollbackTo: { revision: 3 } } });
  t.equal(res.status, 200);
  t.same((await c.get(`${v1beta1}/beta`)).body.spec.rollbackTo, { revision: 3 });
  const inV1 = (await c.get(`${v1}/beta`)).body;
  t.notOk('rollbackTo' in inV1.spec, 'apps/v1 has no rollbackTo');
});

t.test('a core Event reads as events.k8s.io/v1 with note and regarding', async (t) => {
  const core = {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.1' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', uid: 'u-1' },
    reason: 'Pulled', message: 'Container image pulled', type: 'Normal',
    source: { component: 'kubelet', host: 'node-1' }, count: 3,
    firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:01:00Z',
  };
  t.equal((await c.post('/api/v1/namespaces/default/events', core)).status, 201);
  const ev = await c.get('/apis/events.k8s.io/v1/namespaces/default/events/web.1');
  t.equal(ev.status, 200);
  t.match(ev.body, {
    apiVersion: 'events.k8s.io/v1', kind: 'Event',
    note: 'Container image pulled', reason: 'Pulled', type: 'Normal',
    regarding: { kind: 'Pod', name: 'web', namespace: 'default', uid: 'u-1' },
    deprecatedSource: { component: 'kubelet', host: 'node-1' }, deprecatedCount: 3,
    deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:01:00Z',
  });
  t.notOk('message' in ev.body);
  t.notOk('involvedObject' in ev.body);
  const byRegarding = await c.get('/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dweb');
  t.same((byRegarding.body.items as any[]).map((i) => i.metadata.name), ['web.1']);
});

t.test('an events.k8s.io/v1 Event reads as a core Event', async (t) => {
  const res = await c.post('/apis/events.k8s.io/v1/namespaces/default/events', {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'db.1' },
    eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'capstan/scheduler', reportingInstance: 'sched-1',
    action: 'Binding', reason: 'Scheduled', note: 'assigned to node-2', type: 'Normal',
    regarding: { kind: 'Pod', name: 'db', namespace: 'default' },
  });
  t.equal(res.status, 201);
  t.equal(res.body.note, 'assigned to node-2');
  const core = await c.get('/api/v1/namespaces/default/events/db.1');
  t.match(core.body, { apiVersion: 'v1', kind: 'Event', message: 'assigned to node-2', involvedObject: { kind: 'Pod', name: 'db' }, reportingComponent: 'capstan/scheduler', reportingInstance: 'sched-1', action: 'Binding' });
  const sel = await c.get('/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Ddb');
  t.same((sel.body.items as any[]).map((i) => i.metadata.name), ['db.1']);
});
