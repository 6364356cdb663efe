// The scheduling queue: priority order, backoff doubling to a cap, unschedulable pods moved
// by cluster changes and by the periodic flush, and the in-flight move race.
import t from 'tap';
import { FakeClock } from '../../src/client/index.js';
import { SchedulingQueue } from '../../src/scheduler/queue.js';
import { newPodInfo } from '../../src/scheduler/podinfo.js';
import { pod } from './fixtures.js';

const info = (name: string, priority?: number) => newPodInfo(pod(name, { priority }));
const names = (q: SchedulingQueue) => { const out: string[] = []; for (let p = q.tryPop(); p; p = q.tryPop()) { out.push(p.info.pod.metadata.name as string); q.done(p.info.uid); } return out; };

t.test('activeQ pops by priority, then arrival', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  q.add(info('low-1', 0)); clock.step(1);
  q.add(info('high', 100)); clock.step(1);
  q.add(info('low-2', 0)); clock.step(1);
  q.add(info('mid', 50));
  q.add(info('high', 100));
  t.same(names(q), ['high', 'mid', 'low-1', 'low-2'], 'a duplicate add changes nothing');
});

t.test('backoff doubles from 1 s to 10 s per pod', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  q.run();
  t.teardown(() => q.close());
  q.add(info('p'));
  const waits: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) {
    const p = q.tryPop()!;
    t.ok(p, `attempt ${attempt + 1} popped`);
    q.addBackoff(p);
    const start = clock.now();
    while (!q.stats().active) clock.step(100);
    waits.push(Math.round((clock.now() - start) / 1000));
  }
  t.same(waits, [1, 2, 4, 8, 10, 10]);
});

t.test('unschedulable pods wait for a cluster change, honouring backoff', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  q.add(info('a'));
  q.add(info('b'));
  const a = q.tryPop()!, b = q.tryPop()!;
  q.addUnschedulable(a);
  q.addUnschedulable(b);
  t.same(q.stats(), { active: 0, backoff: 0, unschedulable: 2, inFlight: 0 });
  clock.step(5_000);
  q.moveAll();
  t.same(q.stats(), { active: 2, backoff: 0, unschedulable: 0, inFlight: 0 }, 'node added → active (backoff of 1 s long over)');
  const a2 = q.tryPop()!;
  q.addUnschedulable(a2);
  q.moveAll();
  t.same(q.stats().backoff, 1, 'moved right after failing → backoffQ, not activeQ');
});

t.test('a move during an attempt sends the failed pod to backoff, not unschedulable', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  q.add(info('a'));
  const a = q.tryPop()!;
  q.moveAll(); // e.g. a node was added while the pod was being scheduled
  q.addUnschedulable(a);
  t.same(q.stats(), { active: 0, backoff: 1, unschedulable: 0, inFlight: 0 });
});

t.test('the periodic flush retries unschedulable pods after 60 s', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  q.run();
  t.teardown(() => q.close());
  q.add(info('a'));
  q.addUnschedulable(q.tryPop()!);
  clock.step(45_000);
  t.equal(q.stats().unschedulable, 1);
  clock.step(30_000);
  t.same(q.stats(), { active: 1, backoff: 0, unschedulable: 0, inFlight: 0 });
});

t.test('updates and deletes', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  q.add(info('a'));
  q.addUnschedulable(q.tryPop()!);
  q.update(info('a'), false);
  t.equal(q.stats().unschedulable, 1, 'a status-only update leaves an unschedulable pod there');
  clock.step(2_000);
  q.update(newPodInfo(pod('a', { cpu: '1' })), true);
  t.equal(q.stats().active, 1, 'a spec change makes it active');
  q.delete('uid-a');
  t.equal(q.stats().active, 0);
  q.add(info('b'));
  const b = q.tryPop()!;
  q.update(info('b'), true);
  t.equal(q.stats().active, 0, 'an update to an in-flight pod does not queue a second copy');
  q.addUnschedulable(b);
  t.equal(q.stats().unschedulable, 1);
});

t.test('pop waits for a pod and resolves undefined on close', async (t) => {
  const clock = new FakeClock();
  const q = new SchedulingQueue(clock);
  const waiting = q.pop();
  q.add(info('a'));
  t.equal((await waiting)?.info.pod.metadata.name, 'a');
  const never = q.pop();
  q.close();
  t.equal(await never, undefined);
});
