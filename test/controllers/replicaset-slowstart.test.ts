// The ReplicaSet controller's slow start, after Kubernetes' (slowStartBatch with
// burstReplicas = 500): a sync creates pods in batches of 1, 2, 4, … and no more than 500
// in all; the first batch with a failed create is the last. A ReplicaSet asking for
// millions of pods therefore costs at most 500 creates a sync, and each sync waits for its
// pods to be observed.
import t, { type Test } from 'tap';
import { resources, type ClientsetAPI } from '../../src/client/index.js';
import { ReplicaSetController } from '../../src/controllers/replicaset/index.js';
import { harness, rsObject } from './replicaset-harness.js';

/** Pod creates as the controller issues them: which ran side by side, and which failed. */
interface CreateLog {
  batches: number[];
  failed: number;
}

/** The clients the controller uses, watching pod creates; the `failAt`-th create (1-based) fails. */
function watchedCreates(clients: ClientsetAPI, log: CreateLog, failAt?: number): ClientsetAPI {
  let started = 0, inFlight = 0, batch = 0;
  return {
    close: () => clients.close(),
    resource(type) {
      const api = clients.resource(type);
      if (type !== resources.pods) return api;
      return new Proxy(api, {
        get(target, prop, receiver) {
          if (prop !== 'create') return Reflect.get(target, prop, receiver);
          return async (namespace: string | undefined, pod: Parameters<typeof target.create>[1]) => {
            // Creates started while others are in flight belong to the same batch.
            if (inFlight === 0) batch = log.batches.push(0) - 1;
            log.batches[batch]!++;
            inFlight++;
            const n = ++started;
            try {
              await new Promise((r) => setImmediate(r));
              if (n === failAt) {
                log.failed++;
                throw new Error('pods "x" is forbidden: exceeded quota');
              }
              return await target.create(namespace, pod);
            } finally {
              inFlight--;
            }
          };
        },
      }) as typeof api;
    },
  };
}

function setup(t: Test, replicas: number, failAt?: number) {
  const log: CreateLog = { batches: [], failed: 0 };
  let ctrl!: ReplicaSetController;
  const h = harness(t, (ctx) => [(ctrl = new ReplicaSetController({ ...ctx, clients: watchedCreates(ctx.clients, log, failAt) }))]);
  h.fake.seed(resources.replicasets, rsObject('web', replicas));
  return { ...h, log, ctrl: () => ctrl };
}

t.test('one sync creates at most 500 pods, in batches of 1, 2, 4, …', async (t) => {
  const h = setup(t, 2 ** 31 - 1);
  await h.start();
  // Keep the pod cache from showing the creates: only this one sync acts.
  await h.informers.informerFor(resources.pods).stop();
  await h.ctrl().reconcile('default/web');
  t.same(h.log.batches, [1, 2, 4, 8, 16, 32, 64, 128, 245]);
  t.equal(h.pods().length, 500);
  t.same(h.ctrl().expectations.pending('default/web'), { adds: 500, deletes: 0 });
  await h.ctrl().reconcile('default/web');
  t.equal(h.pods().length, 500, 'no more until those 500 are observed');
});

t.test('the next sync comes only once the cache has seen the last burst', async (t) => {
  const h = setup(t, 1200);
  await h.start();
  await h.settle(50);
  t.equal(h.pods().length, 1200);
  t.same(h.log.batches.slice(0, 9), [1, 2, 4, 8, 16, 32, 64, 128, 245], 'first sync');
  t.same(h.log.batches.slice(9, 18), [1, 2, 4, 8, 16, 32, 64, 128, 245], 'second sync starts slow again');
  t.equal(h.log.batches.reduce((a, b) => a + b, 0), 1200, 'no extra creates');
});

t.test('a failing create ends the sync after its batch', async (t) => {
  const h = setup(t, 100, 5);
  await h.start();
  await h.informers.informerFor(resources.pods).stop();
  await h.ctrl().reconcile('default/web').catch(() => undefined);
  // batches 1 and 2 succeed; the batch of 4 holds the 5th create, which fails.
  t.same(h.log.batches, [1, 2, 4], 'no batch after the failing one');
  t.equal(h.log.failed, 1);
  t.equal(h.pods().length, 6);
  t.same(h.ctrl().expectations.pending('default/web'), { adds: 6, deletes: 0 }, 'only the creates that succeeded are expected');
  t.match(h.events('FailedCreate'), [{ message: /exceeded quota/ }]);
});
