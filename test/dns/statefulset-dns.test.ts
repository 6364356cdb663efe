// A StatefulSet's pods by name through its headless Service, as CoreDNS serves them: the
// StatefulSet controller gives each pod hostname <pod> and subdomain <serviceName>, the
// EndpointSlice controller copies the hostname into the slice, and the cluster DNS answers
// <pod>.<service>.<ns>.svc.cluster.local. Real API server, real controllers, real dig.
import t from 'tap';
import { realClock, resources, SharedInformerFactory } from '../../src/client/index.js';
import { controllers as registry, type Controller } from '../../src/controllers/index.js';
import { logger } from '../../src/log/index.js';
import { controllerContext } from '../helpers/controller-context.js';
import { data, startCluster, within } from './harness.js';

t.test('web-0.web.default.svc.cluster.local names the StatefulSet pod web-0', async (t) => {
  const c = await startCluster(t);
  const informers = new SharedInformerFactory(c.clients, { clock: realClock });
  const ctx = controllerContext({ clients: c.clients, informers, clock: realClock, log: logger('test', {}, () => undefined) });
  const running: Controller[] = [];
  for (const name of ['statefulset', 'endpointslice']) running.push(await (await registry[name]())(ctx));
  informers.start();
  await informers.waitForCacheSync();
  for (const ctl of running) void ctl.run(1);
  t.teardown(async () => { await Promise.all(running.map((ctl) => ctl.stop())); await informers.stop(); });

  await c.clients.resource(resources.services).create('default', { metadata: { name: 'web' }, spec: { clusterIP: 'None', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] } });
  await c.clients.resource(resources.statefulsets).create('default', {
    metadata: { name: 'web' },
    spec: {
      replicas: 2, serviceName: 'web', podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  });
  const pods = c.clients.resource(resources.pods);
  await within(10_000, async () => (await pods.list('default')).items.length === 2, 'two pods');
  // What a kubelet reports: an address, Running and Ready.
  for (const [i, p] of (await pods.list('default')).items.sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name))).entries()) {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await pods.updateStatus({ ...p, status: { phase: 'Running', podIP: `10.1.0.${10 + i}`, podIPs: [{ ip: `10.1.0.${10 + i}` }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } });
  }
  await within(10_000, async () => (await c.dig(['web-1.web.default.svc.cluster.local'])).answer.length === 1, 'web-1 in DNS');
  t.same(data(await c.dig(['web-0.web.default.svc.cluster.local', 'A'])), ['10.1.0.10']);
  t.same(data(await c.dig(['web-1.web.default.svc.cluster.local', 'A'])), ['10.1.0.11']);
  t.same(data(await c.dig(['web.default.svc.cluster.local', 'A'])), ['10.1.0.10', '10.1.0.11'], 'the headless Service name has every ready pod');
  t.same(data(await c.dig(['_http._tcp.web.default.svc.cluster.local', 'SRV'])).map((r) => r.split(' ').slice(2).join(' ')), ['80 web-0.web.default.svc.cluster.local.', '80 web-1.web.default.svc.cluster.local.']);
  const slices = await c.clients.resource(resources.endpointslices).list('default', { labelSelector: 'kubernetes.io/service-name=web' });
  const hostnames = slices.items.flatMap((s) => (s.endpoints ?? []).map((e) => `${e.hostname}`)).sort();
  t.same(hostnames, ['web-0', 'web-1'], 'the EndpointSlice controller sets each endpoint\'s hostname');
});
