// Drives workload controllers in unit tests: an in-memory FakeClientset, a FakeClock, real
// shared informers over it, and a loop that waits until every watch event has reached the
// informers and processes queued keys until nothing is left to do. Time only moves when the
// test steps the clock.
import type { Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { rfc3339 } from '../../src/api/time.js';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { type ControllerContext, type QueueController } from '../../src/controllers/framework.js';
import { controllerContext } from '../helpers/controller-context.js';

export interface Harness {
  clock: FakeClock;
  fake: FakeClientset;
  ctx: ControllerContext;
  informers: SharedInformerFactory;
  /** Starts informers and waits for the first list. */
  start(): Promise<void>;
  /** Lets watch events arrive and reconciles until every queue is empty. */
  settle(maxSteps?: number, onStep?: () => void): Promise<void>;
  /** Steps the clock and settles. */
  advance(ms: number): Promise<void>;
  pods(namespace?: string): KubeObject[];
  replicaSets(namespace?: string): KubeObject[];
  events(reason?: string): { reason: string; message: string; type: string }[];
  /** Marks pods Running and Ready now (as a kubelet would report). */
  markReady(pods?: KubeObject[]): Promise<void>;
}

export function harness(t: Test, controllers: (ctx: ControllerContext) => QueueController[]): Harness & { controllers: QueueController[] } {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock });
  const list = controllers(ctx);
  t.teardown(async () => { await informers.stop(); fake.close(); });
  const h = {
    clock, fake, ctx, informers, controllers: list,
    async start() {
      informers.start();
      await informers.waitForCacheSync();
    },
    async settle(maxSteps = 500, onStep?: () => void) {
      for (let i = 0; i < maxSteps; i++) {
        await fake.delivered();
        onStep?.();
        const c = list.find((x) => x.queue.length > 0);
        if (!c) return;
        await c.processNext();
      }
      throw new Error('controllers did not settle');
    },
    async advance(ms: number) {
      clock.step(ms);
      await h.settle();
    },
    pods: (ns = 'default') => fake.list(resources.pods, ns).sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name))),
    replicaSets: (ns = 'default') => fake.list(resources.replicasets, ns).sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name))),
    events: (reason?: string) => fake.list(resources.events, 'default').filter((e) => !reason || e.reason === reason)
      .map((e) => ({ reason: e.reason, message: e.message, type: e.type })),
    async markReady(pods?: KubeObject[]) {
      const api = fake.resource(resources.pods);
      for (const p of pods ?? fake.list(resources.pods)) {
        if (p.metadata.deletionTimestamp) continue;
        const now = rfc3339(new Date(clock.now()));
        await api.updateStatus({ ...p, status: { ...p.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } });
      }
    },
  };
  return h;
}

export function rsObject(name: string, replicas: number, labels: Record<string, string> = { app: name }, extra: Partial<KubeObject['spec']> = {}): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, generation: 1, creationTimestamp: '2023-11-14T22:00:00Z' },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } }, ...extra },
  };
}

export function podObject(name: string, labels: Record<string, string>, opts: { owner?: KubeObject; ownerKind?: string; created?: string; nodeName?: string; phase?: string; ready?: string } = {}): KubeObject {
  return {
    metadata: {
      name, namespace: 'default', uid: `uid-${name}`, labels, creationTimestamp: opts.created ?? '2023-11-14T22:00:00Z',
      ...(opts.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: opts.ownerKind ?? 'ReplicaSet', name: opts.owner.metadata.name as string, uid: opts.owner.metadata.uid as string, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx:1' }], ...(opts.nodeName ? { nodeName: opts.nodeName } : {}) },
    status: { phase: opts.phase ?? 'Pending', ...(opts.ready ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: opts.ready }] } : {}) },
  };
}

/** Every ordering of `items` (for small arrays). */
export function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}
