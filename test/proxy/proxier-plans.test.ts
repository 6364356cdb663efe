// The Proxier rebuilds a service's plans only when its Service or EndpointSlices changed,
// also on a periodic full sync: unchanged services reach the backend as the same plan
// objects, and what it syncs always equals the plans built from every object afresh.
import t from 'tap';
import { FakeClientset, resources, SharedInformerFactory } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { Proxier } from '../../src/proxy/proxier.js';
import { buildPlans, type ProxyConfig, type ServicePortPlan } from '../../src/proxy/model.js';
import type { ProxyBackend, SyncOptions } from '../../src/proxy/backend.js';
import type { EndpointSlice, Service } from '../../src/api/kinds.js';
import type { KubeObject } from '../../src/api/object.js';

const cfg: ProxyConfig = { nodeName: 'node-a', clusterCIDR: '10.244.0.0/16' };
const svc = (name: string, ip: string) => ({ metadata: { namespace: 'default', name }, spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } });
const slice = (svcName: string, ips: string[]) => ({
  metadata: { namespace: 'default', name: `${svcName}-abc`, labels: { 'kubernetes.io/service-name': svcName } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-b' })),
});

/** Records what each sync was given. */
class RecordingBackend implements ProxyBackend {
  readonly mode = 'recording';
  readonly syncs: { plans: readonly ServicePortPlan[]; opts: SyncOptions }[] = [];
  async sync(plans: readonly ServicePortPlan[], opts: SyncOptions) {
    this.syncs.push({ plans, opts });
    return { operations: 0, rebuilt: false, rules: 0, elements: 0, chains: 0 };
  }
  async cleanup(): Promise<void> {}
}

t.test('a periodic full sync rebuilds only the services whose objects changed', async (t) => {
  const clients = new FakeClientset();
  clients.seed(resources.services, svc('a', '10.96.0.10'), svc('b', '10.96.0.11'));
  clients.seed(resources.endpointslices, slice('a', ['10.244.1.2']), slice('b', ['10.244.2.2']));
  const log = logger('test', {}, () => {});
  const informers = new SharedInformerFactory(clients, { log, resyncMs: 0 });
  const backend = new RecordingBackend();
  const proxier = new Proxier({
    services: informers.informerFor(resources.services), slices: informers.informerFor(resources.endpointslices),
    backend, config: cfg, log, minSyncPeriodMs: 5, syncPeriodMs: 60,
  });
  informers.start();
  const alive = setInterval(() => {}, 1000); // the Proxier's timers do not hold the process
  t.teardown(async () => { clearInterval(alive); await proxier.stop(); await informers.stop(); clients.close(); });
  await informers.waitForCacheSync();

  const fromScratch = () => buildPlans(clients.list(resources.services) as unknown as Service[], clients.list(resources.endpointslices) as unknown as EndpointSlice[], cfg);
  const byId = (plans: readonly ServicePortPlan[]) => new Map(plans.map((p) => [p.id, p]));
  const sorted = (plans: readonly ServicePortPlan[]) => [...plans].sort((x, y) => x.id.localeCompare(y.id));
  /** Waits for the next sync that satisfies `want`, checking every sync against plans built afresh. */
  const syncUntil = async (want: (s: RecordingBackend['syncs'][number]) => boolean) => {
    for (;;) {
      const next = proxier.nextSync();
      await next;
      const s = backend.syncs.at(-1)!;
      t.same(sorted(s.plans), sorted(fromScratch()), `sync ${backend.syncs.length} has the plans of the current objects`);
      if (want(s)) return s;
    }
  };

  const first = proxier.nextSync();
  proxier.start();
  await first;
  const initial = backend.syncs[0]!;
  t.ok(initial.opts.full, 'the first sync is full');
  t.same(sorted(initial.plans), sorted(fromScratch()));

  const full = await syncUntil((s) => s.opts.full && s !== initial);
  for (const [id, p] of byId(full.plans)) t.equal(p, byId(initial.plans).get(id), `${id}: the same plan object after a full sync with nothing changed`);

  const slices = clients.resource(resources.endpointslices);
  const current = await slices.get('default', 'b-abc');
  await slices.update({ ...slice('b', ['10.244.2.2', '10.244.2.3']), metadata: current.metadata } as unknown as EndpointSlice);
  const partial = await syncUntil((s) => s.plans.some((p) => p.clusterEndpoints.length === 2));
  const before = byId(full.plans), after = byId(partial.plans);
  for (const [id, p] of after) {
    if (id.includes('/a:')) t.equal(p, before.get(id), `${id}: unchanged, the same object`);
    else t.not(p, before.get(id), `${id}: rebuilt`);
  }
  if (!partial.opts.full) t.same(partial.opts.changed?.plans.map((p) => p.id), [...after.keys()].filter((id) => !id.includes('/a:')), 'a partial sync names what changed');

  const nextFull = await syncUntil((s) => s.opts.full && backend.syncs.indexOf(s) > backend.syncs.indexOf(partial));
  for (const [id, p] of byId(nextFull.plans)) t.equal(p, after.get(id), `${id}: the same object after the next full sync`);

  await clients.resource(resources.services).delete('default', 'a');
  const gone = await syncUntil((s) => !s.plans.some((p) => p.id.includes('/a:')));
  t.equal(gone.plans.length, 1, 'only b is left');
  await syncUntil((s) => s.opts.full && backend.syncs.indexOf(s) > backend.syncs.indexOf(gone));
  t.same((clients.list(resources.services) as KubeObject[]).map((s) => s.metadata.name), ['b']);
});
