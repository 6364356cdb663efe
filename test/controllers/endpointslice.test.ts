// The EndpointSlice controller against the in-memory API with a fake clock: conditions as
// Kubernetes computes them, named ports, slice size limits, minimal churn, cleanup, and the
// same events in different orders giving the same slices.
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { EndpointSliceController } from '../../src/controllers/endpointslice/index.js';
import type { KubeObject } from '../../src/api/object.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

interface PodOpts {
  ip?: string | null;
  ips?: string[];
  ready?: boolean;
  terminating?: boolean;
  labels?: Record<string, string>;
  node?: string;
  ports?: { name: string; containerPort: number; protocol?: string }[];
  hostname?: string;
  subdomain?: string;
  phase?: string;
}

let uidSeq = 0;
function pod(name: string, o: PodOpts = {}): KubeObject {
  const ip = o.ip === undefined ? `10.0.${Math.floor(++uidSeq / 250)}.${(uidSeq % 250) + 1}` : o.ip;
  return {
    metadata: {
      name, namespace: 'default', uid: `uid-${name}`, labels: o.labels ?? { app: 'web' },
      ...(o.terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: {
      containers: [{ name: 'main', image: 'nginx', ports: o.ports ?? [{ name: 'http', containerPort: 8080 }] }],
      ...(o.node ? { nodeName: o.node } : {}), ...(o.hostname ? { hostname: o.hostname } : {}), ...(o.subdomain ? { subdomain: o.subdomain } : {}),
    },
    status: {
      phase: o.phase ?? 'Running',
      ...(ip ? { podIP: ip, podIPs: (o.ips ?? [ip]).map((x) => ({ ip: x })) } : {}),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

function service(name = 'web', spec: Record<string, unknown> = {}, labels: Record<string, string> = {}): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: `svc-uid-${name}`, labels },
    spec: { selector: { app: name }, clusterIP: '10.96.0.10', ipFamilies: ['IPv4'], ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }], ...spec },
  };
}

async function setup(t: Test, seed: (fake: FakeClientset) => void = () => undefined, maxEndpointsPerSlice?: number, drainFirst = true) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  seed(fake);
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock });
  const c = new EndpointSliceController(ctx, { maxEndpointsPerSlice });
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock, { tickMs: 200 }); // ticks: stale-cache requeues
  if (drainFirst) await drain();
  const slices = (svc = 'web') => fake.list(resources.endpointslices, 'default').filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === svc);
  const writes = () => fake.actions.filter((a) => a.resource === 'endpointslices');
  const pods = fake.resource(resources.pods);
  return { fake, c, drain, slices, writes, pods, services: fake.resource(resources.services), clock, informers };
}

const endpointsOf = (slices: KubeObject[]) => slices.flatMap((s) => s.endpoints ?? []);
const byPod = (slices: KubeObject[]) => Object.fromEntries(endpointsOf(slices).map((e) => [e.targetRef.name, e]));

/** What a user compares: everything but names, uids and versions. */
function normalized(slices: KubeObject[]): string[] {
  const noUID = (o: object) => ({ ...o, uid: undefined });
  return slices.map((s) => JSON.stringify({
    type: s.addressType, ports: s.ports, labels: s.metadata.labels, owner: (s.metadata.ownerReferences ?? []).map(noUID),
    endpoints: s.endpoints.map((e: KubeObject) => ({ ...e, targetRef: noUID(e.targetRef) })),
  })).sort();
}

t.test('endpoint conditions follow the Pod and the Service', async (t) => {
  const cases: { name: string; pod: PodOpts; publishNotReady?: boolean; want?: { ready: boolean; serving: boolean; terminating: boolean } }[] = [
    { name: 'ready', pod: {}, want: { ready: true, serving: true, terminating: false } },
    { name: 'not ready', pod: { ready: false }, want: { ready: false, serving: false, terminating: false } },
    { name: 'ready and terminating', pod: { terminating: true }, want: { ready: false, serving: true, terminating: true } },
    { name: 'not ready and terminating', pod: { ready: false, terminating: true }, want: { ready: false, serving: false, terminating: true } },
    { name: 'publishNotReadyAddresses, not ready', pod: { ready: false }, publishNotReady: true, want: { ready: true, serving: false, terminating: false } },
    { name: 'publishNotReadyAddresses, terminating', pod: { terminating: true }, publishNotReady: true, want: { ready: true, serving: true, terminating: true } },
    { name: 'no IP yet', pod: { ip: null } },
    { name: 'succeeded', pod: { phase: 'Succeeded' } },
    { name: 'failed', pod: { phase: 'Failed' } },
  ];
  for (const tc of cases) {
    t.test(tc.name, async (t) => {
      const { slices } = await setup(t, (f) => {
        f.seed(resources.services, service('web', tc.publishNotReady ? { publishNotReadyAddresses: true } : {}));
        f.seed(resources.pods, pod('p', tc.pod));
      });
      const eps = endpointsOf(slices());
      if (!tc.want) { t.equal(eps.length, 0, 'not an endpoint'); return; }
      t.equal(eps.length, 1);
      t.strictSame(eps[0].conditions, tc.want);
    });
  }
});

t.test('a slice carries the labels, owner, addresses, node, zone, hostname and targetRef', async (t) => {
  const { slices } = await setup(t, (f) => {
    f.seed(resources.nodes, { metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } }, { metadata: { name: 'n2' } });
    f.seed(resources.services, service('web', { clusterIP: 'None' }, { tier: 'front' }));
    f.seed(resources.pods,
      pod('a', { ip: '10.1.0.5', node: 'n1', hostname: 'a', subdomain: 'web' }),
      pod('b', { ip: '10.1.0.6', node: 'n2', hostname: 'b', subdomain: 'other' }),
      pod('v6', { ip: 'fd00::5', ips: ['fd00::5'] }),
      pod('other', { ip: '10.1.0.7', labels: { app: 'db' } }));
  });
  const s = slices();
  t.equal(s.length, 1);
  t.equal(s[0].addressType, 'IPv4');
  t.strictSame(s[0].metadata.labels, { tier: 'front', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'service.kubernetes.io/headless': '' });
  t.strictSame(s[0].metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid-web', controller: true, blockOwnerDeletion: true }]);
  t.match(s[0].metadata.name, /^web-/);
  t.strictSame(s[0].ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  const eps = byPod(s);
  t.strictSame(Object.keys(eps).sort(), ['a', 'b'], 'only IPv4 pods the service selects');
  t.strictSame(eps.a, {
    addresses: ['10.1.0.5'], conditions: { ready: true, serving: true, terminating: false },
    targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' }, hostname: 'a', nodeName: 'n1', zone: 'zone-a',
  });
  t.notOk('hostname' in eps.b, 'subdomain of another service: no hostname');
  t.notOk('zone' in eps.b, 'node without a zone label');
});

t.test('named target ports resolving to different numbers go to different slices', async (t) => {
  const { slices } = await setup(t, (f) => {
    f.seed(resources.services, service('web', { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }, { name: 'metrics', port: 9100, targetPort: 9100, protocol: 'TCP' }] }));
    f.seed(resources.pods,
      pod('a', { ports: [{ name: 'http', containerPort: 8080 }] }),
      pod('b', { ports: [{ name: 'http', containerPort: 8080 }] }),
      pod('c', { ports: [{ name: 'http', containerPort: 9090 }] }),
      pod('udp', { ports: [{ name: 'http', containerPort: 7070, protocol: 'UDP' }] }));
  });
  const s = slices();
  const byPorts = Object.fromEntries(s.map((x) => [x.ports.map((p: { name: string; port: number }) => `${p.name}:${p.port}`).join(','), x.endpoints.map((e: KubeObject) => e.targetRef.name).sort()]));
  t.strictSame(byPorts, {
    'http:8080,metrics:9100': ['a', 'b'],
    'http:9090,metrics:9100': ['c'],
    'metrics:9100': ['udp'], // its "http" is UDP, so only the numeric port resolves
  });
});

t.test('slices hold at most --max-endpoints-per-slice endpoints', async (t) => {
  const many = Array.from({ length: 250 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`));
  t.test('default 100', async (t) => {
    const { slices, writes } = await setup(t, (f) => { f.seed(resources.services, service()); f.seed(resources.pods, ...many); });
    t.strictSame(slices().map((s) => s.endpoints.length).sort(), [100, 100, 50]);
    t.equal(new Set(endpointsOf(slices()).map((e) => e.targetRef.name)).size, 250, 'every pod once');
    t.equal(writes().filter((a) => a.verb === 'create').length, 3);
  });
  t.test('configured 40', async (t) => {
    const { slices } = await setup(t, (f) => { f.seed(resources.services, service()); f.seed(resources.pods, ...many.slice(0, 90)); }, 40);
    t.strictSame(slices().map((s) => s.endpoints.length).sort(), [10, 40, 40]);
  });
});

t.test('minimal churn', async (t) => {
  const many = Array.from({ length: 150 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`));
  const { slices, writes, drain, pods, fake } = await setup(t, (f) => {
    f.seed(resources.services, service());
    f.seed(resources.pods, ...many, pod('unrelated', { labels: { app: 'db' } }));
  });
  const before = slices().map((s) => `${s.metadata.name}@${s.metadata.resourceVersion}`).sort();
  const n = writes().length;

  t.test('an unrelated pod change, or a change that does not show in endpoints, writes nothing', async (t) => {
    await pods.patch('default', 'unrelated', 'merge', { metadata: { labels: { app: 'db', v: '2' } } });
    await pods.patch('default', 'unrelated', 'merge', { status: { podIP: '10.9.9.9' } }, 'status');
    await pods.patch('default', 'p000', 'merge', { metadata: { annotations: { note: 'x' } } });
    await drain();
    t.equal(writes().length, n, 'no endpointslice writes');
    t.strictSame(slices().map((s) => `${s.metadata.name}@${s.metadata.resourceVersion}`).sort(), before);
  });

  t.test('one pod turning not ready rewrites only its slice', async (t) => {
    const m = writes().length;
    await pods.patch('default', 'p120', 'merge', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, 'status');
    await drain();
    const w = writes().slice(m);
    t.equal(w.length, 1);
    t.equal(w[0].verb, 'update');
    t.equal(byPod(slices()).p120.conditions.ready, false);
  });

  t.test('a new pod joins a slice with room instead of a new slice', async (t) => {
    const m = writes().length;
    await fake.resource(resources.pods).create('default', pod('new'));
    await drain();
    const w = writes().slice(m);
    t.strictSame(w.map((a) => a.verb), ['update']);
    t.equal(slices().length, 2);
    t.ok(byPod(slices()).new);
  });

  t.test('a removed pod leaves its slice, the others stay', async (t) => {
    const m = writes().length;
    await pods.delete('default', 'p001');
    await drain();
    t.strictSame(writes().slice(m).map((a) => a.verb), ['update']);
    t.notOk(byPod(slices()).p001);
  });
});

t.test('a Service with no ready endpoints keeps one empty placeholder slice', async (t) => {
  const { slices, drain, pods, writes } = await setup(t, (f) => { f.seed(resources.services, service()); });
  t.equal(slices().length, 1);
  t.strictSame(slices()[0].endpoints, []);
  t.strictSame(slices()[0].ports, []);
  await pods.create('default', pod('a'));
  await drain();
  t.equal(slices().length, 1, 'the placeholder is reused');
  t.equal(endpointsOf(slices()).length, 1);
  t.notOk(writes().some((a) => a.verb === 'delete'), 'no delete and recreate');
  await pods.delete('default', 'a');
  await drain();
  t.equal(slices().length, 1);
  t.strictSame(slices()[0].endpoints, []);
});

t.test('slices of a deleted Service are removed, with or without the garbage collector', async (t) => {
  const { slices, drain, services, fake } = await setup(t, (f) => {
    f.seed(resources.services, service(), service('api', { selector: { app: 'web' } }));
    f.seed(resources.pods, pod('a'), pod('b'));
  });
  t.equal(slices().length, 1);
  t.equal(slices('api').length, 1);
  await services.delete('default', 'web');
  await drain();
  t.equal(slices().length, 0);
  t.equal(slices('api').length, 1, 'other services keep theirs');
  t.equal(fake.list(resources.endpointslices, 'default').length, 1);
});

t.test('slices it does not manage are left alone', async (t) => {
  const userSlice = {
    metadata: { name: 'manual-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'manual' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['192.0.2.1'] }], ports: [{ name: '', port: 80, protocol: 'TCP' }],
  };
  const apiServerSlice = {
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes', 'endpointslice.kubernetes.io/managed-by': 'capstan-apiserver' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'] }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  };
  const { fake, writes } = await setup(t, (f) => {
    f.seed(resources.services, service('manual', { selector: undefined }), { metadata: { name: 'kubernetes', namespace: 'default', uid: 'k' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443 }] } });
    f.seed(resources.endpointslices, userSlice, apiServerSlice);
    f.seed(resources.pods, pod('a', { labels: { app: 'manual' } }));
  });
  t.equal(writes().length, 0);
  t.equal(fake.list(resources.endpointslices, 'default').length, 2);
});

t.test('a slice left behind by an earlier Service of the same name is replaced', async (t) => {
  const stale = {
    metadata: {
      name: 'web-old', namespace: 'default',
      labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'previous', controller: true }],
    },
    addressType: 'IPv4', endpoints: [{ addresses: ['10.9.9.9'] }], ports: [],
  };
  const { slices } = await setup(t, (f) => {
    f.seed(resources.endpointslices, stale);
    f.seed(resources.services, service());
    f.seed(resources.pods, pod('a', { ip: '10.1.1.1' }));
  });
  const s = slices();
  t.equal(s.length, 1);
  t.equal(s[0].metadata.ownerReferences?.[0].uid, 'svc-uid-web');
  t.strictSame(endpointsOf(s).map((e) => e.addresses[0]), ['10.1.1.1']);
});

t.test('the same events in different orders give the same slices', async (t) => {
  type Step = (x: Awaited<ReturnType<typeof setup>>) => Promise<unknown>;
  const steps: Record<string, Step> = {
    service: (x) => x.services.create('default', service()),
    a: (x) => x.pods.create('default', pod('a', { ip: '10.2.0.1' })),
    b: (x) => x.pods.create('default', pod('b', { ip: '10.2.0.2', ready: false })),
    c: (x) => x.pods.create('default', pod('c', { ip: '10.2.0.3', ports: [{ name: 'http', containerPort: 9090 }] })),
    dReady: (x) => x.pods.create('default', pod('d', { ip: '10.2.0.4' })).then(() => x.pods.patch('default', 'd', 'merge', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, 'status')),
    eGone: (x) => x.pods.create('default', pod('e', { ip: '10.2.0.5' })).then(() => x.pods.delete('default', 'e')),
  };
  const orders = [
    ['service', 'a', 'b', 'c', 'dReady', 'eGone'],
    ['eGone', 'dReady', 'c', 'b', 'a', 'service'],
    ['a', 'service', 'c', 'eGone', 'b', 'dReady'],
    ['c', 'b', 'service', 'dReady', 'a', 'eGone'],
  ];
  const results: string[][] = [];
  for (const order of orders) {
    const x = await setup(t);
    for (const s of order) { await steps[s](x); await x.drain(); }
    results.push(normalized(x.slices()));
  }
  t.equal(results[0].length, 2, 'two port sets, two slices');
  for (let i = 1; i < results.length; i++) t.strictSame(results[i], results[0], `order ${orders[i].join(',')}`);
  const all = Object.fromEntries(results[0].flatMap((s) => JSON.parse(s).endpoints).map((e: KubeObject) => [e.targetRef.name, e.conditions.ready]));
  t.strictSame(all, { a: true, b: false, c: true, d: false });
});

t.test('a cache that has not seen our own create does not make a second slice', async (t) => {
  const x = await setup(t, (f) => { f.seed(resources.services, service()); f.seed(resources.pods, pod('a')); }, undefined, false);
  // Freeze the informers' view before the controller writes anything.
  await x.informers.stop();
  await x.c.reconcile('default/web');
  t.equal(x.slices().length, 1);
  const again = await x.c.reconcile('default/web');
  t.ok(again && again.requeueAfterMs! > 0, 'asks to look again later');
  t.equal(x.slices().length, 1, 'no duplicate slice');
});

t.test('a dual-stack Service gets slices per address family', async (t) => {
  const { slices } = await setup(t, (f) => {
    f.seed(resources.services, service('web', { ipFamilies: ['IPv4', 'IPv6'] }));
    f.seed(resources.pods, pod('a', { ip: '10.3.0.1', ips: ['10.3.0.1', 'fd00::1'] }), pod('b', { ip: '10.3.0.2' }));
  });
  const byType = Object.fromEntries(slices().map((s) => [s.addressType, s.endpoints.map((e: KubeObject) => e.addresses[0]).sort()]));
  t.strictSame(byType, { IPv4: ['10.3.0.1', '10.3.0.2'], IPv6: ['fd00::1'] });
});
