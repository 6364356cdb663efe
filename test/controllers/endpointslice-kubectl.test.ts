// The EndpointSlice and Endpoints controllers against a real API server over HTTPS, seen
// through real kubectl: a Service's ready Pods show up, a Pod turning not ready moves to
// not ready, steady state writes nothing, and a deleted Service takes its endpoints along.
import t, { type Test } from 'tap';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, realClock, resources, SharedInformerFactory } from '../../src/client/index.js';
import { type QueueController } from '../../src/controllers/framework.js';
import { create as endpointSlices } from '../../src/controllers/endpointslice/index.js';
import { create as endpoints } from '../../src/controllers/endpoints/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer, type APIClient } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { controllerContext } from '../helpers/controller-context.js';

async function cluster(t: Test) {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-controller-manager');
  const informers = new SharedInformerFactory(clients, { clock: realClock });
  const log = logger('test', {}, () => undefined);
  const ctx = controllerContext({ clients, informers, clock: realClock, log });
  const controllers = [endpointSlices(ctx), endpoints(ctx)] as QueueController[];
  informers.start();
  await informers.waitForCacheSync();
  for (const c of controllers) void c.run(2);
  t.teardown(async () => {
    await Promise.all(controllers.map((c) => c.stop()));
    await informers.stop();
    clients.close();
  });
  const pods = informers.informerFor(resources.pods).lister;
  /**
   * Resolves once the controllers' pod informer holds each pod at (at least) the given
   * resourceVersion, so its handlers have queued whatever they queue, and then no controller
   * has a key waiting or a reconcile running: every reaction to those writes is done.
   */
  const reacted = (seen: Record<string, string>) => eventually(async () =>
    Object.entries(seen).every(([name, rv]) => Number(pods.get('default', name)?.metadata.resourceVersion ?? 0) >= Number(rv)) &&
    controllers.every((c) => c.queue.idle), 15_000, 'the controllers to handle the pod changes');
  return { s, k: kubectlFor(t, kubeconfig), reacted };
}

const manifest = `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-a, labels: {app: web}}
spec: {containers: [{name: main, image: nginx, ports: [{name: http, containerPort: 8080}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-b, labels: {app: web}}
spec: {containers: [{name: main, image: nginx, ports: [{name: http, containerPort: 8080}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other, labels: {app: other}}
spec: {containers: [{name: main, image: nginx}]}
`;

/** What a kubelet reports: the pod's IP and whether it is Ready, through the status subresource. */
async function reportStatus(client: APIClient, name: string, ip: string, ready: boolean): Promise<void> {
  const r = await client.patch(`/api/v1/namespaces/default/pods/${name}/status`, {
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  if (r.status !== 200) throw new Error(`status of ${name}: ${r.status} ${r.text}`);
}

t.test('kubectl sees a Service\'s endpoints follow its Pods', async (t) => {
  const { s, k, reacted } = await cluster(t);
  await k.ok(['apply', '-f', '-'], manifest);
  await reportStatus(s.client, 'web-a', '10.244.1.5', true);
  await reportStatus(s.client, 'web-b', '10.244.1.6', true);
  await reportStatus(s.client, 'other', '10.244.1.7', true);

  await eventually(async () => /10\.244\.1\.5,10\.244\.1\.6/.test(await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])), 15_000, 'slice with both addresses');
  const table = await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
  t.match(table, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/);
  t.match(table, /web-\S+\s+IPv4\s+8080\s+10\.244\.1\.5,10\.244\.1\.6/);
  await eventually(async () => /10\.244\.1\.5:8080,10\.244\.1\.6:8080/.test(await k.ok(['get', 'endpoints', 'web'])), 15_000, 'endpoints with both addresses');

  const slice = JSON.parse(await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])).items[0];
  t.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
  t.match(slice.metadata.ownerReferences, [{ kind: 'Service', name: 'web', controller: true }]);
  t.strictSame(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  t.match(slice.endpoints, [
    { addresses: ['10.244.1.5'], conditions: { ready: true, serving: true, terminating: false }, targetRef: { kind: 'Pod', name: 'web-a' } },
    { addresses: ['10.244.1.6'], conditions: { ready: true, serving: true, terminating: false }, targetRef: { kind: 'Pod', name: 'web-b' } },
  ]);

  t.test('an unrelated change writes nothing', async (t) => {
    const rv = (await s.client.get(`/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/${slice.metadata.name}`)).body.metadata.resourceVersion;
    const epRV = (await s.client.get('/api/v1/namespaces/default/endpoints/web')).body.metadata.resourceVersion;
    await reportStatus(s.client, 'other', '10.244.1.8', true);
    const annotated = JSON.parse(await k.ok(['annotate', 'pod', 'web-a', 'note=x', '-o', 'json']));
    const other = (await s.client.get('/api/v1/namespaces/default/pods/other')).body;
    await reacted({ 'web-a': annotated.metadata.resourceVersion, other: other.metadata.resourceVersion });
    t.equal((await s.client.get(`/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/${slice.metadata.name}`)).body.metadata.resourceVersion, rv);
    t.equal((await s.client.get('/api/v1/namespaces/default/endpoints/web')).body.metadata.resourceVersion, epRV);
  });

  t.test('a pod turning not ready moves to not ready', async (t) => {
    await reportStatus(s.client, 'web-b', '10.244.1.6', false);
    await eventually(async () => /\s10\.244\.1\.5:8080\s/.test(await k.ok(['get', 'endpoints', 'web'])), 15_000, 'endpoints without web-b');
    const ep = JSON.parse(await k.ok(['get', 'endpoints', 'web', '-o', 'json']));
    t.match(ep.subsets, [{ addresses: [{ ip: '10.244.1.5' }], notReadyAddresses: [{ ip: '10.244.1.6', targetRef: { name: 'web-b' } }], ports: [{ name: 'http', port: 8080 }] }]);
    await eventually(async () => {
      const s2 = JSON.parse(await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])).items[0];
      return s2.endpoints.find((e: { targetRef: { name: string } }) => e.targetRef.name === 'web-b')?.conditions.ready === false;
    }, 15_000, 'web-b not ready in its slice');
  });

  t.test('deleting the Service removes its slices and Endpoints', async (t) => {
    await k.ok(['delete', 'service', 'web']);
    await eventually(async () => (await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'name'])).trim() === '', 15_000, 'slices gone');
    await eventually(async () => (await k(['get', 'endpoints', 'web'])).code !== 0, 15_000, 'endpoints gone');
    t.match((await k(['get', 'endpoints', 'web'])).stderr, /NotFound/);
    t.match(await k.ok(['get', 'endpointslices', '-n', 'default']), /kubernetes\s+IPv4/, 'the API server\'s own slice stays');
  });
});
