// The storage resources as the API server serves them (no controllers run here): creation
// defaults and status, PersistentVolume and StorageClass validation, what may change in a
// claim (volumeName once, a class where there was none, a bound claim's size upwards only), the
// DefaultStorageClass plugin (the newest default class wins; none: the claim keeps no class),
// PersistentVolumeClaimResize, the status subresources, the Table columns kubectl prints, and
// the Node authorizer letting a node read the volume its pod's claim is bound to.
import t from 'tap';
import { parseRequestInfo } from '../../src/apiserver/request-info.js';
import { fixtures, startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';

const api = await startAPIServer(t);
const c = api.client;
const PVS = '/api/v1/persistentvolumes';
const PVCS = '/api/v1/namespaces/default/persistentvolumeclaims';
const SCS = '/apis/storage.k8s.io/v1/storageclasses';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

const pv = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, ...spec },
});
const pvc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const causes = (r: { body: any }) => (r.body.details?.causes ?? []).map((x: any) => `${x.field}: ${x.message}`);

t.test('PersistentVolume: defaults, Pending status, validation, fixed source', async (t) => {
  const r = await c.post(PVS, pv('one'));
  t.equal(r.status, 201);
  t.equal(r.body.spec.persistentVolumeReclaimPolicy, 'Retain');
  t.equal(r.body.spec.volumeMode, 'Filesystem');
  t.same(r.body.status, { phase: 'Pending' });
  const bad = [
    [pv('b1', { accessModes: [] }), 'spec.accessModes: Required value: must specify at least 1 access mode'],
    [pv('b2', { capacity: {} }), 'spec.capacity: Required value'],
    [pv('b3', { capacity: { storage: '1Gi', cpu: '1' } }), 'spec.capacity: Unsupported value: "cpu": supported values: "storage"'],
    [pv('b4', { hostPath: undefined }), 'spec: Required value: must specify a volume type'],
    [pv('b5', { nfs: { server: 'nfs.example', path: '/x' } }), 'spec.nfs: Forbidden: may not specify more than 1 volume type'],
    [pv('b6', { hostPath: undefined, local: { path: '/mnt/a' } }), 'spec.nodeAffinity: Required value: Local volume requires node affinity'],
    [pv('b7', { persistentVolumeReclaimPolicy: 'Keep' }), 'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"'],
    [pv('b8', { hostPath: { path: 'relative' } }), 'spec.hostPath.path: Invalid value: "relative": must be an absolute path'],
  ] as const;
  for (const [body, cause] of bad) {
    const res = await c.post(PVS, body);
    t.equal(res.status, 422, body.metadata.name);
    t.ok(causes(res).includes(cause), `${body.metadata.name}: ${cause} in ${JSON.stringify(causes(res))}`);
  }
  const moved = await c.patch(`${PVS}/one`, { spec: { hostPath: { path: '/srv/elsewhere' } } });
  t.equal(moved.status, 422);
  t.ok(causes(moved).includes('spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation'));
  // The status subresource writes the phase only.
  const st = await c.patch(`${PVS}/one/status`, { status: { phase: 'Available' }, spec: { persistentVolumeReclaimPolicy: 'Delete' } });
  t.equal(st.status, 200);
  t.equal(st.body.status.phase, 'Available');
  t.equal(st.body.spec.persistentVolumeReclaimPolicy, 'Retain');
  const table = (await c.get(PVS, TABLE)).body;
  t.same(table.columnDefinitions.map((d: any) => d.name), ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
  t.same(table.rows[0].cells.slice(0, 9), ['one', '1Gi', 'RWO', 'Retain', 'Available', '', '', '<unset>', '']);
});

t.test('StorageClass: defaults, validation, fixed fields, (default) in the name column', async (t) => {
  const r = await c.post(SCS, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'std' }, provisioner: 'example.com/disk', parameters: { type: 'ssd' } });
  t.equal(r.status, 201);
  t.equal(r.body.reclaimPolicy, 'Delete');
  t.equal(r.body.volumeBindingMode, 'Immediate');
  const noProvisioner = await c.post(SCS, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'bad' }, reclaimPolicy: 'Recycle' });
  t.equal(noProvisioner.status, 422);
  t.ok(causes(noProvisioner).includes('provisioner: Required value'));
  t.ok(causes(noProvisioner).includes('reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"'));
  const edit = await c.patch(`${SCS}/std`, { parameters: { type: 'hdd' }, volumeBindingMode: 'WaitForFirstConsumer' });
  t.equal(edit.status, 422);
  t.ok(causes(edit).includes('parameters: Forbidden: updates to parameters are forbidden.'));
  t.ok(causes(edit).includes('volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable'));
  t.equal((await c.patch(`${SCS}/std`, { allowVolumeExpansion: true })).status, 200, 'allowVolumeExpansion may change');
});

t.test('DefaultStorageClass: no default leaves the class unset; the newest default wins', async (t) => {
  const none = await c.post(PVCS, pvc('before-default'));
  t.equal(none.status, 201);
  t.equal(none.body.spec.storageClassName, undefined);
  t.same(none.body.status, { phase: 'Pending' });
  const def = (name: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'example.com/disk' });
  t.equal((await c.post(SCS, def('old-default'))).status, 201);
  await new Promise((r) => setTimeout(r, 1100)); // creationTimestamp has second resolution
  t.equal((await c.post(SCS, def('new-default'))).status, 201);
  t.equal((await c.post(PVCS, pvc('after-default'))).body.spec.storageClassName, 'new-default');
  t.equal((await c.post(PVCS, pvc('explicit', { storageClassName: 'std' }))).body.spec.storageClassName, 'std');
  t.equal((await c.post(PVCS, pvc('empty', { storageClassName: '' }))).body.spec.storageClassName, '', 'an empty class stays empty');
  const table = (await c.get(SCS, TABLE)).body;
  const names = table.rows.map((r: any) => r.cells[0]).sort();
  t.same(names, ['new-default (default)', 'old-default (default)', 'std']);
  for (const n of ['old-default', 'new-default']) await c.delete(`${SCS}/${n}`);
});

t.test('PersistentVolumeClaim updates: volumeName once, a class where none was, growth of a bound claim', async (t) => {
  t.equal((await c.post(PVCS, pvc('grow', { storageClassName: 'std' }))).status, 201);
  t.equal((await c.patch(`${PVCS}/grow`, { spec: { volumeName: 'pv-a' } })).status, 200, 'volumeName set once');
  const again = await c.patch(`${PVCS}/grow`, { spec: { volumeName: 'pv-b' } });
  t.equal(again.status, 422);
  t.ok(causes(again).includes('spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  const unboundGrowth = await c.patch(`${PVCS}/grow`, { spec: { resources: { requests: { storage: '2Gi' } } } });
  t.equal(unboundGrowth.status, 422, 'an unbound claim does not grow');
  t.equal((await c.patch(`${PVCS}/grow/status`, { status: { phase: 'Bound' } })).status, 200);
  t.equal((await c.patch(`${PVCS}/grow`, { spec: { resources: { requests: { storage: '2Gi' } } } })).status, 200, 'a bound claim of an expandable class grows');
  const shrink = await c.patch(`${PVCS}/grow`, { spec: { resources: { requests: { storage: '1Gi' } } } });
  t.equal(shrink.status, 422);
  t.ok(causes(shrink).includes('spec.resources.requests.storage: Forbidden: field can not be less than previous value'));
  // PersistentVolumeClaimResize: a class without allowVolumeExpansion (or no class) does not grow.
  t.equal((await c.post(PVCS, pvc('fixed', { storageClassName: '' }))).status, 201);
  t.equal((await c.patch(`${PVCS}/fixed/status`, { status: { phase: 'Bound' } })).status, 200);
  const refused = await c.patch(`${PVCS}/fixed`, { spec: { resources: { requests: { storage: '2Gi' } } } });
  t.equal(refused.status, 403);
  t.match(refused.body.message, /only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize/);
  t.equal((await c.post(PVCS, pvc('classless'))).status, 201);
  t.equal((await c.patch(`${PVCS}/classless`, { spec: { storageClassName: 'std' } })).status, 200, 'a claim without a class may get one');
  t.equal((await c.patch(`${PVCS}/classless`, { spec: { storageClassName: 'other' } })).status, 422, 'but not change it');
  const table = (await c.get(`${PVCS}/grow`, TABLE)).body;
  t.same(table.rows[0].cells.slice(0, 6), ['grow', 'Bound', 'pv-a', '', '', 'std']);
});

t.test('a node may read the claim its pod names and the volume that claim is bound to', async (t) => {
  const node = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  const mayGet = async (path: string) => (await api.server.authorizer.authorize(node, parseRequestInfo('GET', path, new URLSearchParams()))) === null;
  t.equal((await c.post(PVS, pv('for-n1'))).status, 201);
  t.equal((await c.post(PVCS, pvc('n1-claim', { storageClassName: '', volumeName: 'for-n1' }))).status, 201);
  t.notOk(await mayGet(`${PVS}/for-n1`), 'no pod of n1 uses it yet');
  t.equal((await c.post('/api/v1/namespaces/default/pods', fixtures.pod('uses-claim', { spec: { nodeName: 'n1', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'n1-claim' } }] } }))).status, 201);
  await eventually(() => mayGet(`${PVCS}/n1-claim`), 5000, 'the claim readable by n1');
  await eventually(() => mayGet(`${PVS}/for-n1`), 5000, 'the volume readable by n1');
  t.notOk(await mayGet(`${PVS}/one`), 'another volume is not');
});
