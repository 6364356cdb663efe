// StatefulSets, DaemonSets, ControllerRevisions and PersistentVolumeClaims as the API server
// serves them: upstream's defaults, validation (422 with the field), immutable fields, the
// status and scale subresources, and kubectl's Table columns.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const apps = '/apis/apps/v1/namespaces/default';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const sts = (name: string, spec: object = {}) => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec: { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template, ...spec } });
const ds = (name: string, spec: object = {}) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name }, spec: { selector: { matchLabels: { app: 'web' } }, template, ...spec } });
const causes = (body: any) => (body.details?.causes ?? []).map((x: any) => `${x.field}: ${x.message}`);

t.test('a StatefulSet gets upstream\'s defaults and an empty status', async (t) => {
  const res = await c.post(`${apps}/statefulsets`, sts('defaults'));
  t.equal(res.status, 201);
  t.match(res.body.spec, {
    replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10, minReadySeconds: 0,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
  });
  t.same(res.body.status, { replicas: 0 });
  t.equal(res.body.metadata.generation, 1);
});

const invalid: [string, string, object, RegExp][] = [
  ['statefulsets', 'bad-policy', sts('bad-policy', { podManagementPolicy: 'Random' }), /^spec\.podManagementPolicy: Unsupported value/],
  ['statefulsets', 'empty-selector', sts('empty-selector', { selector: {} }), /^spec\.selector: .*empty selector is invalid for statefulset/],
  ['statefulsets', 'zero-unavailable', sts('zero-unavailable', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } } }), /^spec\.updateStrategy\.rollingUpdate\.maxUnavailable: .*cannot be 0/],
  ['statefulsets', 'ondelete-rolling', sts('ondelete-rolling', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }), /^spec\.updateStrategy\.rollingUpdate: .*only allowed for updateStrategy 'RollingUpdate'/],
  ['statefulsets', 'negative-start', sts('negative-start', { ordinals: { start: -1 } }), /^spec\.ordinals\.start: /],
  ['statefulsets', 'bad-retention', sts('bad-retention', { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } }), /^spec\.persistentVolumeClaimRetentionPolicy\.whenDeleted: Unsupported value/],
  ['statefulsets', 'never-restart', sts('never-restart', { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } }), /^spec\.template\.spec\.restartPolicy: Unsupported value/],
  ['daemonsets', 'both-zero', ds('both-zero', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }), /^spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Required value: cannot be 0 when maxSurge is 0/],
  ['daemonsets', 'both-set', ds('both-set', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } } }), /^spec\.updateStrategy\.rollingUpdate\.maxSurge: .*may not be set when maxUnavailable is non-zero/],
  ['daemonsets', 'mismatch', ds('mismatch', { selector: { matchLabels: { app: 'other' } } }), /^spec\.template\.metadata\.labels: .*`selector` does not match template `labels`/],
  ['daemonsets', 'deadline', ds('deadline', { template: { ...template, spec: { ...template.spec, activeDeadlineSeconds: 5 } } }), /^spec\.template\.spec\.activeDeadlineSeconds: .*activeDeadlineSeconds in DaemonSet is not Supported/],
];

for (const [resource, name, body, cause] of invalid) {
  t.test(`422 for ${resource} ${name}`, async (t) => {
    const res = await c.post(`${apps}/${resource}`, body);
    t.equal(res.status, 422);
    t.equal(res.body.reason, 'Invalid');
    t.ok(causes(res.body).some((x: string) => cause.test(x)), `${cause} in ${JSON.stringify(causes(res.body))}`);
    t.equal((await c.get(`${apps}/${resource}/${name}`)).status, 404, 'nothing written');
  });
}

t.test('a StatefulSet update may change replicas and template but not serviceName', async (t) => {
  await c.post(`${apps}/statefulsets`, sts('immutable'));
  t.equal((await c.patch(`${apps}/statefulsets/immutable`, { spec: { replicas: 3, updateStrategy: { rollingUpdate: { partition: 2 } } } })).status, 200);
  const res = await c.patch(`${apps}/statefulsets/immutable`, { spec: { serviceName: 'other' } });
  t.equal(res.status, 422);
  t.match(causes(res.body)[0], /^spec: .*updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden/);
});

t.test('statefulsets/scale and statefulsets/status', async (t) => {
  await c.post(`${apps}/statefulsets`, sts('scaled'));
  const scale = await c.patch(`${apps}/statefulsets/scaled/scale`, { spec: { replicas: 4 } });
  t.equal(scale.status, 200);
  t.match(scale.body, { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 4 }, status: { selector: 'app=web' } });
  const cur = (await c.get(`${apps}/statefulsets/scaled`)).body;
  t.equal(cur.spec.replicas, 4);
  const status = await c.put(`${apps}/statefulsets/scaled/status`, { ...cur, spec: { ...cur.spec, replicas: 9 }, status: { replicas: 2, readyReplicas: 1, currentRevision: 'scaled-abc', updateRevision: 'scaled-abc' } });
  t.equal(status.status, 200);
  t.equal(status.body.spec.replicas, 4, '/status does not change spec');
  t.equal(status.body.status.readyReplicas, 1);
});

t.test('a DaemonSet gets defaults, a zero status and its template generation; a new template bumps it', async (t) => {
  const res = await c.post(`${apps}/daemonsets`, ds('agent'));
  t.equal(res.status, 201);
  t.match(res.body.spec, { revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
  t.same(res.body.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
  t.equal(res.body.metadata.annotations['deprecated.daemonset.template.generation'], '1');
  const updated = await c.patch(`${apps}/daemonsets/agent`, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
  t.equal(updated.body.metadata.annotations['deprecated.daemonset.template.generation'], '2');
  const relabelled = await c.patch(`${apps}/daemonsets/agent`, { metadata: { labels: { x: 'y' } } });
  t.equal(relabelled.body.metadata.annotations['deprecated.daemonset.template.generation'], '2', 'unchanged when the template is');
  const selector = await c.patch(`${apps}/daemonsets/agent`, { spec: { selector: { matchLabels: { app: 'web', x: 'y' } }, template: { metadata: { labels: { x: 'y' } } } } });
  t.equal(selector.status, 422, 'the selector is immutable');
});

t.test('ControllerRevisions keep their data; the revision number may change', async (t) => {
  const body = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-1' }, data: { spec: { template: { $patch: 'replace' } } }, revision: 1 };
  t.equal((await c.post(`${apps}/controllerrevisions`, { ...body, metadata: { name: 'no-data' }, data: undefined })).status, 422);
  t.equal((await c.post(`${apps}/controllerrevisions`, body)).status, 201);
  t.equal((await c.patch(`${apps}/controllerrevisions/web-1`, { revision: 5 })).body.revision, 5);
  const cur = (await c.get(`${apps}/controllerrevisions/web-1`)).body;
  const res = await c.put(`${apps}/controllerrevisions/web-1`, { ...cur, data: { spec: { template: { metadata: { labels: { a: 'b' } } } } } });
  t.equal(res.status, 422);
  t.match(causes(res.body)[0], /^data: .*field is immutable/);
});

t.test('Table columns as kubectl prints them', async (t) => {
  const table = async (path: string) => (await c.get(path, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).body;
  const names = (tb: any) => tb.columnDefinitions.map((d: any) => d.name);
  t.same(names(await table(`${apps}/statefulsets`)), ['Name', 'Ready', 'Age', 'Containers', 'Images']);
  t.same(names(await table(`${apps}/daemonsets`)), ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers', 'Images', 'Selector']);
  t.same(names(await table(`${apps}/controllerrevisions`)), ['Name', 'Controller', 'Revision', 'Age']);
  t.same(names(await table('/api/v1/namespaces/default/persistentvolumeclaims')), ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
  const row = (await table(`${apps}/statefulsets/scaled`)).rows[0].cells;
  t.equal(row[1], '1/4', 'ready/replicas');
});

t.test('a PersistentVolumeClaim is served, Pending, with a spec fixed until it is bound', async (t) => {
  const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
  const res = await c.post('/api/v1/namespaces/default/persistentvolumeclaims', pvc);
  t.equal(res.status, 201);
  t.same(res.body.status, { phase: 'Pending' });
  t.equal(res.body.spec.volumeMode, 'Filesystem');
  // Only a Bound claim's storage request may grow (test/apiserver/storage.test.ts covers that).
  const grow = await c.patch('/api/v1/namespaces/default/persistentvolumeclaims/data', { spec: { resources: { requests: { storage: '2Gi' } } } });
  t.equal(grow.status, 422);
  t.match(grow.body.message, /spec is immutable after creation except resources.requests/);
  t.equal((await c.patch('/api/v1/namespaces/default/persistentvolumeclaims/data', { spec: { accessModes: ['ReadWriteMany'] } })).status, 422);
  t.equal((await c.post('/api/v1/namespaces/default/persistentvolumeclaims', { ...pvc, metadata: { name: 'no-modes' }, spec: { resources: pvc.spec.resources } })).status, 422);
});
