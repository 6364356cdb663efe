import t from 'tap';
import { FakeClock } from '../../src/client/clock.js';
import { WorkQueue } from '../../src/client/workqueue.js';

t.test('a key added many times while waiting is handed out once', async (t) => {
  const q = new WorkQueue(new FakeClock());
  for (let i = 0; i < 5; i++) q.add('a');
  q.add('b');
  t.equal(q.length, 2);
  t.equal(await q.get(), 'a');
  t.equal(await q.get(), 'b');
});

t.test('a key being processed is not handed to a second worker; a re-add waits for done', async (t) => {
  const q = new WorkQueue(new FakeClock());
  q.add('a');
  const first = await q.get();
  q.add('a');
  t.equal(q.length, 0, 'not queued while processing');
  let second: string | undefined;
  void q.get().then((k) => { second = k; });
  await Promise.resolve();
  t.equal(second, undefined, 'second worker still waits');
  q.done(first!);
  await new Promise((r) => setImmediate(r));
  t.equal(second, 'a', 're-added key handed out after done');
});

t.test('rate-limited retries back off exponentially per key; forget resets', async (t) => {
  const clock = new FakeClock();
  const q = new WorkQueue(clock);
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const start = clock.now();
    q.addRateLimited('k');
    while (q.length === 0) clock.step(1);
    delays.push(clock.now() - start);
    q.done((await q.get())!);
  }
  t.same(delays, [5, 10, 20, 40]);
  q.forget('k');
  t.equal(q.rateLimiter.retries('k'), 0);
});

t.test('addAfter delivers after the delay; the earlier of two delayed adds wins', async (t) => {
  const clock = new FakeClock();
  const q = new WorkQueue(clock);
  q.addAfter('x', 1000);
  q.addAfter('x', 200);
  clock.step(199);
  t.equal(q.length, 0);
  clock.step(1);
  t.equal(q.length, 1);
  clock.step(2000);
  t.equal(q.length, 1, 'the later timer was replaced, not added twice');
});

t.test('shutdown wakes idle workers and waits for in-flight work to finish', async (t) => {
  const q = new WorkQueue(new FakeClock());
  q.add('busy');
  const key = await q.get();
  const idle = q.get();
  let drained = false;
  const shut = q.shutDown().then(() => { drained = true; });
  t.equal(await idle, undefined);
  await Promise.resolve();
  t.notOk(drained, 'still draining while a key is in flight');
  q.done(key!);
  await shut;
  t.ok(drained);
  q.add('late');
  t.equal(q.length, 0, 'no adds after shutdown');
});

t.test('idle: nothing waiting and nothing being processed', async (t) => {
  const q = new WorkQueue(new FakeClock());
  t.ok(q.idle, 'a new queue is idle');
  q.add('a');
  t.notOk(q.idle, 'a key waiting');
  const key = await q.get();
  t.notOk(q.idle, 'a key being processed');
  q.done(key!);
  t.ok(q.idle, 'idle again once done');
});
