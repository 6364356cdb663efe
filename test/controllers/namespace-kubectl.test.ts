// The Namespace and ServiceAccount controllers against a real API server over HTTPS, seen
// through real kubectl: a new namespace gets its default ServiceAccount, and
// `kubectl delete namespace --wait` finishes once the content is gone — at once for
// unbound content, after the kubelet for Pods bound to a node.
import t, { type Test } from 'tap';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, realClock, SharedInformerFactory } from '../../src/client/index.js';
import { controllers as registry, type Controller } from '../../src/controllers/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { controllerContext } from '../helpers/controller-context.js';

async function cluster(t: Test) {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-controller-manager');
  const informers = new SharedInformerFactory(clients, { clock: realClock });
  const log = logger('test', {}, () => undefined);
  const ctx = controllerContext({ clients, informers, clock: realClock, log });
  // Through the registry, as `capstan controller-manager --controllers ...` loads them.
  const running: Controller[] = [];
  for (const name of ['namespace', 'serviceaccount', 'endpointslice', 'endpoints']) running.push(await (await registry[name]())(ctx));
  informers.start();
  await informers.waitForCacheSync();
  for (const c of running) void c.run(2);
  t.teardown(async () => {
    await Promise.all(running.map((c) => c.stop()));
    await informers.stop();
    clients.close();
  });
  return { s, k: kubectlFor(t, kubeconfig) };
}

t.test('namespaces: default ServiceAccount, and deletion with content', async (t) => {
  const { s, k } = await cluster(t);

  t.test('kubectl create namespace, then the default ServiceAccount appears', async (t) => {
    t.match(await k.ok(['create', 'namespace', 'x']), 'namespace/x created');
    await eventually(async () => /^default\s/m.test(await k.ok(['get', 'sa', '-n', 'x'])), 15_000, 'default sa in x');
    t.match(await k.ok(['get', 'sa', '-n', 'default']), /^default\s/m, 'and in the namespaces that were there before');
    await k.ok(['delete', 'sa', 'default', '-n', 'x']);
    await eventually(async () => (await k(['get', 'sa', 'default', '-n', 'x'])).code === 0, 15_000, 'default sa recreated');
  });

  t.test('kubectl delete namespace --wait finishes and the content is gone', async (t) => {
    await k.ok(['create', 'configmap', 'cfg', '-n', 'x', '--from-literal=a=1']);
    await k.ok(['create', 'secret', 'generic', 'sec', '-n', 'x', '--from-literal=b=2']);
    await k.ok(['create', 'service', 'clusterip', 'web', '-n', 'x', '--tcp=80:8080']);
    await k.ok(['create', 'deployment', 'web', '-n', 'x', '--image=nginx']);
    await k.ok(['run', 'lone', '-n', 'x', '--image=nginx']);
    // kubectl's own --timeout bounds the wait: it exits non-zero if the namespace outlives it.
    const del = await k(['delete', 'namespace', 'x', '--wait', '--timeout=60s']);
    t.equal(del.code, 0, del.stderr);
    t.match(del.stdout, 'namespace "x" deleted');
    t.match((await k(['get', 'namespace', 'x'])).stderr, /NotFound/);
    for (const r of ['configmaps', 'secrets', 'services', 'pods', 'serviceaccounts', 'endpoints']) {
      t.strictSame((await s.client.get(`/api/v1/namespaces/x/${r}`)).body.items, [], `no ${r} left`);
    }
    t.strictSame((await s.client.get('/apis/apps/v1/namespaces/x/deployments')).body.items, []);
  });

  t.test('a pod bound to a node holds the namespace until its kubelet lets go', async (t) => {
    await k.ok(['create', 'namespace', 'y']);
    await k.ok(['create', 'configmap', 'cfg', '-n', 'y']);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bound', namespace: 'y' }, spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'nginx' }] } };
    t.equal((await s.client.post('/api/v1/namespaces/y/pods', pod)).status, 201);
    t.match(await k.ok(['delete', 'namespace', 'y', '--wait=false']), 'namespace "y" deleted');
    await eventually(async () => {
      const ns = JSON.parse(await k.ok(['get', 'namespace', 'y', '-o', 'json']));
      return (ns.status.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'NamespaceContentRemaining' && c.status === 'True');
    }, 15_000, 'NamespaceContentRemaining');
    const ns = JSON.parse(await k.ok(['get', 'namespace', 'y', '-o', 'json']));
    t.equal(ns.status.phase, 'Terminating');
    t.match(ns.status.conditions, [
      { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered' },
      { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False' },
      { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted' },
      { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: pods. has 1 resource instances' },
      { type: 'NamespaceFinalizersRemaining', status: 'False' },
    ]);
    t.strictSame((await s.client.get('/api/v1/namespaces/y/configmaps')).body.items, [], 'the rest is gone already');
    t.match(await k.ok(['describe', 'namespace', 'y']), /NamespaceContentRemaining\s+True/);

    // The kubelet finishes the pod.
    t.equal((await s.client.delete('/api/v1/namespaces/y/pods/bound', { gracePeriodSeconds: 0 })).status, 200);
    const del = await k(['wait', '--for=delete', 'namespace/y', '--timeout=60s']);
    t.equal(del.code, 0, del.stderr);
    t.match((await k(['get', 'namespace', 'y'])).stderr, /NotFound/);
  });
});
