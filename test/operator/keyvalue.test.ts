// The operator toolkit and the example KeyValueStore operator against a real API server (no
// controller-manager: nothing but the operator creates or removes the children, and the
// StatefulSet's status is what a StatefulSet controller would report, written here).
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { Clientset, RESTClient, isNotFound, resources, writeKubeconfig } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { Manager, customResource, inClusterConnection, kubeconfigConnection, isTrue, findCondition } from '../../src/operator/index.js';
import { keyValueStoreReconciler } from '../../examples/keyvalue-operator/reconciler.js';
import { keyValueStores, FINALIZER, type KeyValueStore } from '../../examples/keyvalue-operator/types.js';

const manifest = readFileSync(new URL('../../../examples/keyvalue-operator/deploy/operator.yaml', import.meta.url), 'utf8');
const crd = (yaml.loadAll(manifest) as { kind: string }[]).find((d) => d.kind === 'CustomResourceDefinition')!;
const crds = customResource<any>({ group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });

const api = await startAPIServer(t);
const dir = mkdtempSync(join(api.dir, 'operator-'));
const kubeconfig = join(dir, 'admin.kubeconfig');
writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: api.pki.admin.certPem, keyPem: api.pki.admin.keyPem });
const clients = new Clientset(new RESTClient(kubeconfigConnection(kubeconfig).config, 'test'));
t.teardown(() => clients.close());
await clients.resource(crds).create(undefined, crd as any);
await eventually(async () => isTrue((await clients.resource(crds).get(undefined, 'keyvaluestores.example.capstan.io')).status?.conditions, 'Established'), 15_000, 'CRD Established');
const kvsClient = clients.resource(keyValueStores);
// The CRD's resource is served a moment after Established.
await eventually(async () => { try { await kvsClient.list('default'); return true; } catch { return false; } }, 15_000, 'keyvaluestores served');

const quiet = logger('keyvalue-operator', {}, () => undefined);
const kvs = (name: string, replicas: number, data: Record<string, string>): KeyValueStore => ({ metadata: { name }, spec: { replicas, data } });
const getOrNull = async <T>(p: Promise<T>): Promise<T | null> => p.catch((e) => { if (isNotFound(e)) return null; throw e; });

t.test('the KeyValueStore operator reconciles a store', async (t) => {
  const manager = new Manager({ name: 'keyvalue-operator', connection: kubeconfigConnection(kubeconfig), log: quiet }).add(keyValueStoreReconciler);
  manager.start();
  t.teardown(() => manager.stop());
  const created = await kvsClient.create('default', kvs('colours', 2, { sky: 'blue', grass: 'green' }));

  await t.test('creates its children, owned by the store', async (t) => {
    await eventually(async () => !!(await getOrNull(clients.resource(resources.statefulsets).get('default', 'colours'))), 15_000, 'StatefulSet');
    const sts = await clients.resource(resources.statefulsets).get('default', 'colours');
    t.equal(sts.spec?.replicas, 2);
    t.equal(sts.spec?.serviceName, 'colours-headless');
    t.same(sts.metadata.ownerReferences, [{ apiVersion: 'example.capstan.io/v1alpha1', kind: 'KeyValueStore', name: 'colours', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    await eventually(async () => !!(await getOrNull(clients.resource(resources.services).get('default', 'colours-headless'))), 15_000, 'headless Service');
    t.equal((await clients.resource(resources.services).get('default', 'colours-headless')).spec?.clusterIP, 'None');
    t.match((await clients.resource(resources.services).get('default', 'colours')).spec?.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
    t.same((await clients.resource(resources.configmaps).get('default', 'colours-data')).data, { sky: 'blue', grass: 'green' });
    await eventually(async () => (await kvsClient.get('default', 'colours')).status?.conditions !== undefined, 15_000, 'status');
    const store = await kvsClient.get('default', 'colours');
    t.same(store.metadata.finalizers, [FINALIZER]);
    t.match(store.status, { observedGeneration: 1, readyReplicas: 0, conditions: [{ type: 'Ready', status: 'False', reason: 'ReplicasNotReady', message: '0/2 replicas ready', observedGeneration: 1 }] });
    // Events are written in the background.
    await eventually(async () => (await clients.resource(resources.events).list('default')).items.some((e) => e.reason === 'Created' && e.involvedObject.kind === 'KeyValueStore' && e.involvedObject.name === 'colours' && e.source?.component === 'keyvalue-operator'), 15_000, 'a Created event about the store');
  });

  await t.test('reports Ready once the StatefulSet is', async (t) => {
    const sts = await clients.resource(resources.statefulsets).get('default', 'colours');
    await clients.resource(resources.statefulsets).updateStatus({ ...sts, status: { replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, observedGeneration: sts.metadata.generation } });
    await eventually(async () => isTrue((await kvsClient.get('default', 'colours')).status?.conditions, 'Ready'), 15_000, 'Ready');
    t.match((await kvsClient.get('default', 'colours')).status, { readyReplicas: 2, replicas: 2, observedGeneration: 1, conditions: [{ reason: 'AllReplicasReady', message: '2/2 replicas ready' }] });
  });

  await t.test('heals a child deleted or changed by hand', async (t) => {
    const before = await clients.resource(resources.services).get('default', 'colours');
    await clients.resource(resources.services).delete('default', 'colours');
    await eventually(async () => { const s = await getOrNull(clients.resource(resources.services).get('default', 'colours')); return !!s && s.metadata.uid !== before.metadata.uid; }, 15_000, 'Service re-created');
    await clients.resource(resources.statefulsets).patch('default', 'colours', 'merge', { spec: { replicas: 7 } });
    await eventually(async () => (await clients.resource(resources.statefulsets).get('default', 'colours')).spec?.replicas === 2, 15_000, 'hand scale undone');
    await clients.resource(resources.configmaps).patch('default', 'colours-data', 'merge', { data: { sky: 'green' }, metadata: { annotations: { 'example.capstan.io/spec-hash': 'x' } } });
    await eventually(async () => (await clients.resource(resources.configmaps).get('default', 'colours-data')).data?.sky === 'blue', 15_000, 'data restored');
    t.pass('healed');
  });

  await t.test('scales with spec.replicas and follows spec.data', async (t) => {
    await kvsClient.patch('default', 'colours', 'merge', { spec: { replicas: 3, data: { sky: 'grey' } } });
    await eventually(async () => (await clients.resource(resources.statefulsets).get('default', 'colours')).spec?.replicas === 3, 15_000, 'scaled');
    await eventually(async () => (await clients.resource(resources.configmaps).get('default', 'colours-data')).data?.sky === 'grey', 15_000, 'data');
    await eventually(async () => (await kvsClient.get('default', 'colours')).status?.observedGeneration === 2, 15_000, 'observedGeneration 2');
    const ready = findCondition((await kvsClient.get('default', 'colours')).status?.conditions, 'Ready');
    t.match(ready, { status: 'False', observedGeneration: 2, message: '2/3 replicas ready' });
  });

  await t.test('on delete, removes the children, then the store goes', async (t) => {
    await kvsClient.delete('default', 'colours');
    await eventually(async () => !(await getOrNull(kvsClient.get('default', 'colours'))), 15_000, 'store gone');
    for (const [type, name] of [[resources.statefulsets, 'colours'], [resources.services, 'colours'], [resources.services, 'colours-headless'], [resources.configmaps, 'colours-data']] as const) {
      t.equal(await getOrNull(clients.resource(type as typeof resources.services).get('default', name)), null, `${type.resource}/${name} removed (no garbage collector runs here)`);
    }
  });

  await t.test('refuses to take over an object it does not own', async (t) => {
    await clients.resource(resources.configmaps).create('default', { metadata: { name: 'taken-data' }, data: { mine: 'yes' } });
    await kvsClient.create('default', kvs('taken', 1, { a: 'b' }));
    await eventually(async () => (await clients.resource(resources.events).list('default')).items.some((e) => e.reason === 'ErrResourceExists' && e.involvedObject.name === 'taken'), 15_000, 'ErrResourceExists event');
    t.same((await clients.resource(resources.configmaps).get('default', 'taken-data')).data, { mine: 'yes' }, 'left as it was');
    await kvsClient.delete('default', 'taken');
    await eventually(async () => !(await getOrNull(kvsClient.get('default', 'taken'))), 15_000, 'store gone');
    t.ok(await getOrNull(clients.resource(resources.configmaps).get('default', 'taken-data')), 'not removed: it was never the operator\'s');
  });
});

t.test('leader election: one replica acts, the other takes over when it stops', async (t) => {
  const le = { namespace: 'default', name: 'kv-test', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };
  const a = new Manager({ name: 'keyvalue-operator', connection: kubeconfigConnection(kubeconfig), log: quiet, leaderElection: { ...le, identity: 'a' } }).add(keyValueStoreReconciler);
  const b = new Manager({ name: 'keyvalue-operator', connection: kubeconfigConnection(kubeconfig), log: quiet, leaderElection: { ...le, identity: 'b' } }).add(keyValueStoreReconciler);
  a.start();
  await eventually(() => a.leading, 15_000, 'a leads');
  b.start();
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const lease = await clients.resource(resources.leases).get('default', 'kv-test');
  t.equal(lease.spec?.holderIdentity, 'a');
  await b['elector']!['tick'](); // one campaign round of b, awaited: it finds the lease held
  t.notOk(b.leading, 'b waits while a holds the lease');
  await a.stop();
  await eventually(() => b.leading, 15_000, 'b takes over');
  t.equal((await clients.resource(resources.leases).get('default', 'kv-test')).spec?.holderIdentity, 'b');
  await kvsClient.create('default', kvs('after', 1, { k: 'v' }));
  await eventually(async () => !!(await getOrNull(clients.resource(resources.configmaps).get('default', 'after-data'))), 15_000, 'b reconciles');
  await kvsClient.delete('default', 'after');
  await eventually(async () => !(await getOrNull(kvsClient.get('default', 'after'))), 15_000, 'store gone');
});

t.test('in-cluster connection: ServiceAccount token, CA and namespace files, KUBERNETES_SERVICE_HOST/PORT', async (t) => {
  const sa = mkdtempSync(join(dir, 'sa-'));
  t.teardown(() => rmSync(sa, { recursive: true, force: true }));
  writeFileSync(join(sa, 'token'), `${api.token}\n`);
  writeFileSync(join(sa, 'ca.crt'), api.pki.ca.certPem);
  writeFileSync(join(sa, 'namespace'), 'kube-system');
  const conn = inClusterConnection({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(api.port) }, sa);
  t.teardown(() => conn.close());
  t.equal(conn.namespace, 'kube-system');
  t.equal(conn.config.server, `https://127.0.0.1:${api.port}`);
  const c = new Clientset(new RESTClient(conn.config, 'in-cluster-test'));
  t.teardown(() => c.close());
  const ns = await c.resource(resources.namespaces).get(undefined, 'kube-system');
  t.equal(ns.metadata.name, 'kube-system', 'the token and CA reach the API server');
  t.throws(() => inClusterConnection({}, sa), /unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined/);
});
