// Leader election through an outage of the API server's store: renewals that hang count as
// failures once the renew deadline passes, leadership is given up, and the elector keeps
// campaigning so it leads again when the API answers. Driven by a FakeClock.
import t from 'tap';
import { FakeClientset, FakeClock, LeaderElector, resources, type ResourceAPI } from '../../src/client/index.js';

/** The Lease API, with every call hanging (a stalled store) while `stalled` is set. */
function stallable(api: ResourceAPI) {
  const state = { stalled: false };
  const gate = <T>(call: () => Promise<T>): Promise<T> => (state.stalled ? new Promise<T>(() => undefined) : call());
  const wrapped: ResourceAPI = Object.create(api);
  wrapped.get = (ns, name) => gate(() => api.get(ns, name));
  wrapped.create = (ns, obj) => gate(() => api.create(ns, obj));
  wrapped.update = (obj, sub) => gate(() => api.update(obj, sub));
  return { api: wrapped, state };
}

const flush = async () => { for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); };

t.test('a leader whose renewals hang steps down after the renew deadline and leads again after the outage', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  const { api, state } = stallable(fake.resource(resources.leases));
  const events: string[] = [];
  const elector = new LeaderElector(api, {
    namespace: 'kube-system', name: 'lock', identity: 'me', clock,
    leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000,
    onStartedLeading: () => events.push('started'), onStoppedLeading: () => events.push('stopped'),
  });
  t.teardown(() => elector.stop());
  elector.start();
  await flush();
  t.ok(elector.isLeader, 'leads');

  state.stalled = true;
  for (let i = 0; i < 12; i++) { clock.step(1_000); await flush(); }
  t.notOk(elector.isLeader, 'gave up leadership while renewals hang');
  t.same(events, ['started', 'stopped']);

  for (let i = 0; i < 20; i++) { clock.step(1_000); await flush(); }
  t.notOk(elector.isLeader, 'still not leading during the outage');

  state.stalled = false;
  for (let i = 0; i < 30 && !elector.isLeader; i++) { clock.step(1_000); await flush(); }
  t.ok(elector.isLeader, 'leads again after the outage, without a restart');
  t.same(events, ['started', 'stopped', 'started']);
});
