import t from 'tap';
import { FakeClock } from '../../src/util/clock.js';
import { SyncRunner } from '../../src/util/sync-runner.js';

const tick = () => new Promise((r) => setImmediate(r));

/** A runner whose passes wait until released, recording when each started. */
function harness(opts: { startNow?: boolean } = {}) {
  const clock = new FakeClock(0);
  const starts: number[] = [];
  let release: (() => void) | undefined;
  let inPass: ((r: SyncRunner) => void) | undefined;
  const runner: SyncRunner = new SyncRunner(async () => {
    starts.push(clock.now());
    await new Promise<void>((r) => { release = r; });
    inPass?.(runner);
  }, { clock, ...opts });
  const finish = async () => { const r = release; release = undefined; r?.(); for (let i = 0; i < 3; i++) await tick(); };
  return { clock, starts, runner, finish, onPass: (f: (r: SyncRunner) => void) => { inPass = f; } };
}

t.test('requests in one turn fold into one pass; the earliest pending request wins', async (t) => {
  const cases: { name: string; delays: number[]; want: number }[] = [
    { name: 'three immediate', delays: [0, 0, 0], want: 0 },
    { name: 'later then earlier', delays: [500, 100], want: 100 },
    { name: 'earlier then later', delays: [100, 500], want: 100 },
  ];
  for (const c of cases) {
    const h = harness();
    for (const d of c.delays) h.runner.request(d);
    h.clock.step(1000);
    await h.finish();
    h.clock.step(10_000);
    await h.finish();
    t.same(h.starts, [c.want], c.name);
  }
});

t.test('requests during a pass make exactly one more pass, after the smallest delay from its end', async (t) => {
  const h = harness();
  h.runner.request(0);
  h.clock.step(0);
  t.equal(h.runner.running, true);
  h.runner.request(300);
  h.runner.request(200);
  h.runner.request(() => 50 + h.clock.now()); // evaluated when the pass ends (at 100): 150
  h.clock.step(100);
  t.equal(h.starts.length, 1, 'never two passes at once');
  await h.finish();
  t.equal(h.runner.scheduled, true);
  h.clock.step(149);
  t.equal(h.starts.length, 1);
  h.clock.step(1);
  t.same(h.starts, [0, 250]);
  await h.finish();
  h.clock.step(10_000);
  t.equal(h.starts.length, 2, 'folded: no third pass');
});

t.test('retry from a failing pass: requests during it do not cut the backoff short', async (t) => {
  const h = harness();
  h.onPass((r) => r.retry(1000));
  h.runner.request(0);
  h.clock.step(0);
  h.runner.request(0);
  await h.finish();
  h.onPass(() => undefined);
  h.clock.step(999);
  t.equal(h.starts.length, 1);
  h.clock.step(1);
  t.same(h.starts, [0, 1000]);
  await h.finish();
  h.runner.request(5000);
  h.runner.request(0);
  h.clock.step(0);
  t.same(h.starts, [0, 1000, 1000], 'after the pass, a request is honoured as usual');
  await h.finish();
});

t.test('startNow: an immediate request runs in the caller\'s turn and replaces a pending timer', async (t) => {
  const h = harness({ startNow: true });
  h.runner.request(5000);
  h.runner.request(0);
  t.same(h.starts, [0]);
  t.equal(h.runner.scheduled, false);
  h.runner.request(0);
  await h.finish();
  t.equal(h.starts.length, 2, 'the request during the pass ran once more, at once');
  await h.finish();
  await h.runner.idle();
});

t.test('stop: nothing runs afterwards until resume; a thrown pass is reported and the runner goes on', async (t) => {
  const h = harness();
  h.runner.request(100);
  await h.runner.stop();
  h.runner.request(0);
  h.clock.step(1000);
  t.same(h.starts, []);
  h.runner.resume();
  h.runner.request(0);
  h.clock.step(0);
  t.same(h.starts, [1000]);
  await h.finish();

  const errors: unknown[] = [];
  const clock = new FakeClock(0);
  let n = 0;
  const r = new SyncRunner(async () => { if (n++ === 0) throw new Error('boom'); }, { clock, onError: (e) => errors.push(e) });
  r.request(0); clock.step(0); await r.idle();
  r.request(0); clock.step(0); await r.idle();
  t.equal(n, 2);
  t.match(errors, [{ message: 'boom' }]);
});
