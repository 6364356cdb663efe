// The PersistentVolume binder and the local-path provisioner against a real API server (its
// strategies and the DefaultStorageClass plugin included): static volumes bind to the
// smallest fitting claim, honouring class, access modes, selectors and volumeName pre-binding;
// a WaitForFirstConsumer claim waits for the scheduler's selected-node, then gets a provisioned
// volume on that node; a released volume is kept (Retain), fails without a deleter (Delete of a
// static volume), or is emptied by a helper pod on its node and deleted (local-path).
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, realClock, SharedInformerFactory } from '../../src/client/index.js';
import { LocalPathProvisioner, PersistentVolumeBinder } from '../../src/controllers/volume/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { controllerContext } from '../helpers/controller-context.js';

const PVS = '/api/v1/persistentvolumes';
const SCS = '/apis/storage.k8s.io/v1/storageclasses';
const EVENTS = '/api/v1/namespaces/default/events';

async function cluster(t: Test) {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-controller-manager');
  const informers = new SharedInformerFactory(clients, { clock: realClock });
  const ctx = controllerContext({ clients, informers, clock: realClock, log: logger('test', {}, () => undefined) });
  const binder = new PersistentVolumeBinder(ctx);
  const provisioner = new LocalPathProvisioner(ctx);
  informers.start();
  await informers.waitForCacheSync();
  void binder.run(2);
  void provisioner.run(1);
  t.teardown(async () => {
    await binder.stop();
    await provisioner.stop();
    await informers.stop();
    clients.close();
  });
  return s.client;
}

const hostPathPV = (name: string, size: string, extra: Record<string, unknown> = {}, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/capstan-pv-${name}` }, ...extra },
});
const claim = (name: string, size: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...spec },
});

t.test('the binder and the local-path provisioner', async (t) => {
  const c = await cluster(t);
  const ns = `pv-${randomBytes(3).toString('hex')}`;
  t.equal((await c.post('/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const PVCS = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  const pv = async (name: string) => (await c.get(`${PVS}/${name}`)).body;
  const pvc = async (name: string) => (await c.get(`${PVCS}/${name}`)).body;
  const events = async (name: string) => ((await c.get(`/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=${name}`)).body.items as any[]).map((e) => `${e.reason}: ${e.message}`);
  const uniq = (p: string) => `${p}-${randomBytes(3).toString('hex')}`;

  await eventually(async () => (await c.get(`${SCS}/local-path`)).status === 200, 15_000, 'the default StorageClass');
  const sc = (await c.get(`${SCS}/local-path`)).body;
  t.equal(sc.provisioner, 'capstan.io/local-path');
  t.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
  t.equal(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class'], 'true');

  await t.test('a claim binds to the smallest static volume that fits it', async (t) => {
    const [small, fits, big, rwx] = ['small', 'fits', 'big', 'rwx'].map(uniq);
    for (const [name, size] of [[small, '1Gi'], [fits, '3Gi'], [big, '10Gi']]) t.equal((await c.post(PVS, hostPathPV(name, size, { storageClassName: 'manual' }))).status, 201);
    t.equal((await c.post(PVS, hostPathPV(rwx, '2Gi', { storageClassName: 'manual', accessModes: ['ReadOnlyMany'] }))).status, 201);
    await eventually(async () => (await pv(small)).status?.phase === 'Available', 10_000, 'free volumes Available');
    t.equal((await c.post(PVCS, claim('data', '2Gi', { storageClassName: 'manual' }))).status, 201);
    await eventually(async () => (await pvc('data')).status?.phase === 'Bound', 15_000, 'claim Bound');
    const bound = await pvc('data');
    t.equal(bound.spec.volumeName, fits, 'the 3Gi volume: the smallest that is big enough with the right access mode');
    t.equal(bound.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
    t.equal(bound.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    t.same(bound.status.capacity, { storage: '3Gi' });
    t.same(bound.status.accessModes, ['ReadWriteOnce']);
    await eventually(async () => (await pv(fits)).status?.phase === 'Bound', 10_000, 'volume Bound');
    const vol = await pv(fits);
    t.match(vol.spec.claimRef, { kind: 'PersistentVolumeClaim', namespace: ns, name: 'data', uid: bound.metadata.uid });
    t.equal(vol.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    t.equal((await pv(small)).status.phase, 'Available');
    t.equal((await pv(big)).status.phase, 'Available');
    for (const name of [small, big, rwx]) await c.delete(`${PVS}/${name}`);
  });

  await t.test('class, selector and volumeName decide; a claim nothing fits stays Pending', async (t) => {
    const [gold, labelled, named] = ['gold', 'labelled', 'named'].map(uniq);
    t.equal((await c.post(PVS, hostPathPV(gold, '5Gi', { storageClassName: 'gold' }))).status, 201);
    t.equal((await c.post(PVS, hostPathPV(labelled, '5Gi', { storageClassName: '' }, { tier: 'db' }))).status, 201);
    t.equal((await c.post(PVS, hostPathPV(named, '5Gi', { storageClassName: '' }))).status, 201);
    // An empty class asks for volumes without one (the default class is not applied to "").
    t.equal((await c.post(PVCS, claim('by-label', '1Gi', { storageClassName: '', selector: { matchLabels: { tier: 'db' } } }))).status, 201);
    t.equal((await c.post(PVCS, claim('by-name', '1Gi', { storageClassName: '', volumeName: named }))).status, 201);
    t.equal((await c.post(PVCS, claim('silver', '1Gi', { storageClassName: 'silver' }))).status, 201);
    await eventually(async () => (await pvc('by-label')).spec.volumeName === labelled && (await pvc('by-name')).status?.phase === 'Bound', 15_000, 'selector and volumeName claims bound');
    t.equal((await pvc('by-name')).spec.volumeName, named);
    t.notOk((await pvc('by-name')).metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'the user named the volume: not bound by the controller');
    await eventually(async () => (await events('silver')).some((e) => e === 'ProvisioningFailed: storageclass.storage.k8s.io "silver" not found'), 10_000, 'missing class reported');
    t.equal((await pvc('silver')).status.phase, 'Pending');
    t.equal((await pv(gold)).status.phase, 'Available', 'a volume of another class is not taken');
  });

  await t.test('released volumes: Retain keeps them Released, Delete without a deleter fails', async (t) => {
    const [kept, gone] = ['kept', 'gone'].map(uniq);
    t.equal((await c.post(PVS, hostPathPV(kept, '1Gi', { storageClassName: 'r', persistentVolumeReclaimPolicy: 'Retain' }))).status, 201);
    t.equal((await c.post(PVS, hostPathPV(gone, '1Gi', { storageClassName: 'd', persistentVolumeReclaimPolicy: 'Delete' }))).status, 201);
    t.equal((await c.post(PVCS, claim('keep', '1Gi', { storageClassName: 'r' }))).status, 201);
    t.equal((await c.post(PVCS, claim('drop', '1Gi', { storageClassName: 'd' }))).status, 201);
    await eventually(async () => (await pv(kept)).status?.phase === 'Bound' && (await pv(gone)).status?.phase === 'Bound', 15_000, 'both bound');
    await c.delete(`${PVCS}/keep`);
    await c.delete(`${PVCS}/drop`);
    await eventually(async () => (await pv(kept)).status?.phase === 'Released', 15_000, 'Retain: Released');
    await eventually(async () => (await pv(gone)).status?.phase === 'Failed', 15_000, 'Delete of a static volume: Failed');
    t.match((await pv(gone)).status.message, /no deletable volume plugin matched/);
    const onPV = ((await c.get(`${EVENTS}?fieldSelector=involvedObject.name=${gone}`)).body.items as any[]).map((e) => e.reason);
    t.ok(onPV.includes('VolumeFailedDelete'), 'a VolumeFailedDelete event');
    // An administrator frees the retained volume by removing its claimRef.
    t.equal((await c.patch(`${PVS}/${kept}`, { spec: { claimRef: null } })).status, 200);
    await eventually(async () => (await pv(kept)).status?.phase === 'Available', 15_000, 'Available again');
  });

  await t.test('WaitForFirstConsumer: Pending until a node is selected, then provisioned on that node', async (t) => {
    const node = uniq('node');
    t.equal((await c.post('/api/v1/nodes', { metadata: { name: node, labels: { 'kubernetes.io/hostname': node }, annotations: { 'capstan.io/local-path-dir': '/srv/volumes' } } })).status, 201);
    t.equal((await c.post(PVCS, claim('wait', '1Gi'))).status, 201);
    const created = await pvc('wait');
    t.equal(created.spec.storageClassName, 'local-path', 'DefaultStorageClass filled in the default class');
    await eventually(async () => (await events('wait')).includes('WaitForFirstConsumer: waiting for first consumer to be created before binding'), 10_000, 'WaitForFirstConsumer event');
    t.equal((await pvc('wait')).status.phase, 'Pending');
    t.equal((await c.patch(`${PVCS}/wait`, { metadata: { annotations: { 'volume.kubernetes.io/selected-node': node } } })).status, 200);
    await eventually(async () => (await pvc('wait')).status?.phase === 'Bound', 15_000, 'provisioned and bound');
    const bound = await pvc('wait');
    t.equal(bound.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'capstan.io/local-path');
    const vol = await pv(bound.spec.volumeName);
    t.equal(vol.metadata.name, `pvc-${bound.metadata.uid}`);
    t.equal(vol.metadata.annotations['pv.kubernetes.io/provisioned-by'], 'capstan.io/local-path');
    t.equal(vol.spec.hostPath.path, `/srv/volumes/pvc-${bound.metadata.uid}_${ns}_wait`, 'under the directory the node published');
    t.same(vol.spec.nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }]);
    t.equal(vol.spec.persistentVolumeReclaimPolicy, 'Delete');
    const ev = await events('wait');
    t.ok(ev.some((e) => e.startsWith('ExternalProvisioning: Waiting for a volume to be created either by the external provisioner \'capstan.io/local-path\'')), 'ExternalProvisioning event');
    t.ok(ev.includes(`ProvisioningSucceeded: Successfully provisioned volume ${vol.metadata.name}`), 'ProvisioningSucceeded event');

    await t.test('deleting the claim: a helper pod on the node empties the directory, then the volume goes', async (t) => {
      await c.delete(`${PVCS}/wait`);
      const helper = `/api/v1/namespaces/kube-system/pods/helper-pod-delete-${vol.metadata.name}`;
      await eventually(async () => (await c.get(helper)).status === 200, 15_000, 'helper pod created');
      const pod = (await c.get(helper)).body;
      t.equal(pod.spec.nodeName, node, 'on the volume\'s node');
      t.same(pod.spec.volumes[0].hostPath, { path: '/srv/volumes', type: 'DirectoryOrCreate' });
      t.same(pod.spec.containers[0].env, [{ name: 'VOL_DIR', value: `pvc-${bound.metadata.uid}_${ns}_wait` }]);
      t.equal((await pv(vol.metadata.name)).status.phase, 'Released', 'Released while the helper runs');
      // No kubelet here: play it, the pod finishes.
      t.equal((await c.patch(`${helper}/status`, { status: { phase: 'Succeeded' } })).status, 200);
      await eventually(async () => (await c.get(`${PVS}/${vol.metadata.name}`)).status === 404, 15_000, 'volume deleted');
      await eventually(async () => (await c.get(helper)).status === 404, 15_000, 'helper pod deleted');
    });
  });
});
