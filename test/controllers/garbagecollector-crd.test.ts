// The garbage collector and custom resources, against a real API server: a CRD that becomes
// Established is monitored, so ownerReferences to and from its objects are collected in the
// background and in the foreground; deleting the CRD stops its informer.
import t, { type Test } from 'tap';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, realClock, SharedInformerFactory } from '../../src/client/index.js';
import { GarbageCollector } from '../../src/controllers/garbagecollector/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { controllerContext } from '../helpers/controller-context.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const CMS = '/api/v1/namespaces/default/configmaps';

async function cluster(t: Test) {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-controller-manager');
  const informers = new SharedInformerFactory(clients, { clock: realClock });
  const ctx = controllerContext({ clients, informers, clock: realClock, log: logger('test', {}, () => undefined) });
  const gc = new GarbageCollector(ctx);
  informers.start();
  await informers.waitForCacheSync();
  void gc.run(2);
  t.teardown(async () => {
    await gc.stop();
    await informers.stop();
    clients.close();
  });
  return { c: s.client, gc };
}

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
const widgetCRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema }] },
};
const ownerRef = (o: any, apiVersion: string, kind: string) =>
  ({ apiVersion, kind, name: o.metadata.name, uid: o.metadata.uid, blockOwnerDeletion: true });

t.test('custom resources as owners and dependents', async (t) => {
  const { c, gc } = await cluster(t);
  t.equal((await c.post(CRDS, widgetCRD)).status, 201);
  await eventually(() => gc.customResources!.resources().some((r) => r.resource === 'widgets'), 15_000, 'widgets monitored');
  const status = async (path: string) => (await c.get(path)).status;

  t.test('deleting a custom resource collects the ConfigMap it owns', async (t) => {
    const w = (await c.post(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } })).body;
    t.equal((await c.post(CMS, { metadata: { name: 'of-w1', ownerReferences: [ownerRef(w, 'example.com/v1', 'Widget')] }, data: { a: '1' } })).status, 201);
    t.equal((await c.delete(`${WIDGETS}/w1`, { propagationPolicy: 'Background' })).status, 200);
    await eventually(async () => (await status(`${CMS}/of-w1`)) === 404, 15_000, 'ConfigMap collected');
  });

  t.test('deleting a ConfigMap collects the custom resource it owns', async (t) => {
    const cm = (await c.post(CMS, { metadata: { name: 'owner' }, data: {} })).body;
    t.equal((await c.post(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2', ownerReferences: [ownerRef(cm, 'v1', 'ConfigMap')] }, spec: {} })).status, 201);
    t.equal((await c.delete(`${CMS}/owner`)).status, 200);
    await eventually(async () => (await status(`${WIDGETS}/w2`)) === 404, 15_000, 'Widget collected');
  });

  t.test('foreground deletion of a custom resource waits for its dependents', async (t) => {
    const w = (await c.post(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3' }, spec: {} })).body;
    // The dependent's own finalizer holds it, so the owner has something to wait for.
    await c.post(CMS, { metadata: { name: 'of-w3', finalizers: ['example.com/hold'], ownerReferences: [ownerRef(w, 'example.com/v1', 'Widget')] }, data: {} });
    t.equal((await c.delete(`${WIDGETS}/w3`, { propagationPolicy: 'Foreground' })).status, 200);
    await eventually(async () => !!(await c.get(`${CMS}/of-w3`)).body.metadata.deletionTimestamp, 15_000, 'dependent deleted first');
    const owner = (await c.get(`${WIDGETS}/w3`)).body;
    t.ok(owner.metadata.deletionTimestamp, 'the owner is being deleted');
    t.same(owner.metadata.finalizers, ['foregroundDeletion'], 'and waits for its dependent');
    await c.patch(`${CMS}/of-w3`, { metadata: { finalizers: null } });
    await eventually(async () => (await status(`${CMS}/of-w3`)) === 404 && (await status(`${WIDGETS}/w3`)) === 404, 15_000, 'both gone');
  });

  t.test('deleting the CRD stops its informer', async (t) => {
    t.equal((await c.delete(`${CRDS}/widgets.example.com`)).status, 200);
    await eventually(() => !gc.customResources!.resources().length, 15_000, 'widgets no longer monitored');
    await eventually(async () => (await status(`${CRDS}/widgets.example.com`)) === 404, 15_000, 'CRD gone');
  });
});
