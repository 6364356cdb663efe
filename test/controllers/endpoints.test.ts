// The Endpoints controller against the in-memory API: subsets grouped by port set, ready and
// not-ready addresses, headless labels, no writes without change, cleanup of orphans.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { EndpointsController } from '../../src/controllers/endpoints/index.js';
import type { KubeObject } from '../../src/api/object.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

function pod(name: string, ip: string, o: { ready?: boolean; terminating?: boolean; port?: number; node?: string; hostname?: string; subdomain?: string; labels?: Record<string, string> } = {}): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: o.labels ?? { app: 'web' }, ...(o.terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: {
      containers: [{ name: 'main', image: 'nginx', ports: [{ name: 'http', containerPort: o.port ?? 8080 }] }],
      ...(o.node ? { nodeName: o.node } : {}), ...(o.hostname ? { hostname: o.hostname, subdomain: o.subdomain } : {}),
    },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

function service(name = 'web', spec: Record<string, unknown> = {}, labels: Record<string, string> = {}): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: `svc-${name}`, labels },
    spec: { selector: { app: 'web' }, clusterIP: '10.96.0.10', ipFamilies: ['IPv4'], ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }], ...spec },
  };
}

async function setup(t: Test, seed: (f: FakeClientset) => void = () => undefined) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  seed(fake);
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock });
  const c = new EndpointsController(ctx);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  // What run() does first, without starting workers: look at every Endpoints object once.
  for (const ep of informers.informerFor(resources.endpoints).lister.list()) c.enqueue(ep);
  const { drain } = queueDriver(c, fake, clock);
  await drain();
  const ep = (name = 'web') => fake.get(resources.endpoints, 'default', name);
  const writes = () => fake.actions.filter((a) => a.resource === 'endpoints');
  return { fake, c, drain, ep, writes, pods: fake.resource(resources.pods), services: fake.resource(resources.services) };
}

t.test('subsets: ready and not-ready addresses, grouped by the port each pod serves', async (t) => {
  const { ep } = await setup(t, (f) => {
    f.seed(resources.services, service('web', {}, { tier: 'front' }));
    f.seed(resources.pods,
      pod('b', '10.0.0.2', { node: 'n1' }),
      pod('a', '10.0.0.1', { node: 'n1', hostname: 'a', subdomain: 'web' }),
      pod('c', '10.0.0.3', { ready: false }),
      pod('d', '10.0.0.4', { port: 9090 }),
      pod('gone', '10.0.0.5', { terminating: true }),
      pod('db', '10.0.0.6', { labels: { app: 'db' } }));
  });
  const e = ep()!;
  t.strictSame(e.metadata.labels, { tier: 'front' });
  t.strictSame(e.subsets, [
    {
      addresses: [
        { ip: '10.0.0.1', hostname: 'a', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } },
        { ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: 'uid-b' } },
      ],
      notReadyAddresses: [{ ip: '10.0.0.3', targetRef: { kind: 'Pod', namespace: 'default', name: 'c', uid: 'uid-c' } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
    {
      addresses: [{ ip: '10.0.0.4', targetRef: { kind: 'Pod', namespace: 'default', name: 'd', uid: 'uid-d' } }],
      ports: [{ name: 'http', port: 9090, protocol: 'TCP' }],
    },
  ], 'terminating pods are left out, unready ones listed as not ready');
});

t.test('publishNotReadyAddresses lists every pod, terminating ones too, as ready', async (t) => {
  const { ep } = await setup(t, (f) => {
    f.seed(resources.services, service('web', { publishNotReadyAddresses: true }));
    f.seed(resources.pods, pod('a', '10.0.0.1', { ready: false }), pod('b', '10.0.0.2', { terminating: true }));
  });
  t.strictSame(ep()!.subsets.map((s: KubeObject) => s.addresses.map((a: { ip: string }) => a.ip)), [['10.0.0.1', '10.0.0.2']]);
});

t.test('headless services: the headless label, and pods listed even without ports', async (t) => {
  const { ep } = await setup(t, (f) => {
    f.seed(resources.services, service('web', { clusterIP: 'None', ports: [] }));
    f.seed(resources.pods, pod('a', '10.0.0.1'));
  });
  t.strictSame(ep()!.metadata.labels, { 'service.kubernetes.io/headless': '' });
  t.strictSame(ep()!.subsets, [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } }] }]);
});

t.test('nothing changes, nothing is written; a pod turning not ready moves it', async (t) => {
  const { ep, writes, drain, pods } = await setup(t, (f) => {
    f.seed(resources.services, service());
    f.seed(resources.pods, pod('a', '10.0.0.1'), pod('b', '10.0.0.2'), pod('x', '10.0.0.9', { labels: { app: 'x' } }));
  });
  const n = writes().length;
  await pods.patch('default', 'x', 'merge', { metadata: { labels: { app: 'x', v: '2' } } });
  await pods.patch('default', 'a', 'merge', { metadata: { annotations: { note: 'y' } } });
  await drain();
  t.equal(writes().length, n, 'no writes');
  await pods.patch('default', 'b', 'merge', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, 'status');
  await drain();
  t.equal(writes().length, n + 1);
  t.strictSame(ep()!.subsets[0].addresses.map((a: { ip: string }) => a.ip), ['10.0.0.1']);
  t.strictSame(ep()!.subsets[0].notReadyAddresses.map((a: { ip: string }) => a.ip), ['10.0.0.2']);
});

t.test('the same events in different orders give the same Endpoints', async (t) => {
  const steps: Record<string, (x: Awaited<ReturnType<typeof setup>>) => Promise<unknown>> = {
    svc: (x) => x.services.create('default', service()),
    a: (x) => x.pods.create('default', pod('a', '10.0.0.1')),
    b: (x) => x.pods.create('default', pod('b', '10.0.0.2', { port: 9090 })),
    cUnready: (x) => x.pods.create('default', pod('c', '10.0.0.3')).then(() => x.pods.patch('default', 'c', 'merge', { status: { conditions: [] } }, 'status')),
  };
  const orders = [['svc', 'a', 'b', 'cUnready'], ['cUnready', 'b', 'a', 'svc'], ['a', 'cUnready', 'svc', 'b']];
  const results: string[] = [];
  for (const order of orders) {
    const x = await setup(t);
    for (const s of order) { await steps[s](x); await x.drain(); }
    // Pods created through the API get fresh uids; compare the rest.
    results.push(JSON.stringify(x.ep()!.subsets, (k, v) => (k === 'uid' ? undefined : v)));
  }
  t.match(results[0], /10\.0\.0\.3/);
  for (const r of results.slice(1)) t.equal(r, results[0]);
});

t.test('Endpoints of a deleted Service are removed; selectorless and API-server ones are left alone', async (t) => {
  const manual = { metadata: { name: 'manual', namespace: 'default' }, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80, protocol: 'TCP' }] }] };
  const kubernetes = { metadata: { name: 'kubernetes', namespace: 'default' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }] };
  const leftover = { metadata: { name: 'old', namespace: 'default' }, subsets: [] };
  const { ep, drain, services, writes } = await setup(t, (f) => {
    f.seed(resources.services, service(), service('manual', { selector: undefined }));
    f.seed(resources.endpoints, manual, kubernetes, leftover);
    f.seed(resources.pods, pod('a', '10.0.0.1'));
  });
  t.ok(ep());
  t.notOk(ep('old'), 'an Endpoints object without a Service is removed at startup');
  t.strictSame(ep('manual')!.subsets, manual.subsets);
  t.strictSame(ep('kubernetes')!.subsets, kubernetes.subsets);
  t.notOk(writes().some((a) => a.name === 'manual' || a.name === 'kubernetes'));
  await services.delete('default', 'web');
  await drain();
  t.notOk(ep(), 'gone with its Service');
});

t.test('over 1000 addresses the object is cut, ready ones first, and says so', async (t) => {
  const { desiredSubsets } = await import('../../src/controllers/endpoints/index.js');
  const pods = Array.from({ length: 1005 }, (_, i) => pod(`p${i}`, `10.${Math.floor(i / 250)}.0.${i % 250}`, { ready: i >= 10 }));
  const { subsets, truncated } = desiredSubsets(service(), pods);
  t.ok(truncated);
  t.equal(subsets[0].addresses!.length, 995, 'every ready address kept');
  t.equal(subsets[0].notReadyAddresses!.length, 5);
  const small = desiredSubsets(service(), pods.slice(0, 20));
  t.notOk(small.truncated);
});
