// Image GC's choices on FakeRuntime with an injected filesystem and clock: nothing younger
// than the minimum age, nothing in use, never the sandbox image; least recently used first,
// and only as much as the low threshold asks; upstream's events and threshold validation.
import t from 'tap';
import { FakeRuntime } from '../../cri/index.js';
import { FakeClientset, FakeClock, EventRecorder, resources } from '../../src/client/index.js';
import { ImageGCManager, validateImageGCPolicy } from '../../src/kubelet/image-gc.js';
import { logger } from '../../src/log/index.js';

const PAUSE = 'localhost/capstan/pause:1';

function setup(available: number) {
  const clock = new FakeClock();
  const runtime = new FakeRuntime({ now: () => clock.now(), images: [PAUSE, 'recently-used:1', 'never-used:1', 'in-use:1'] });
  const api = new FakeClientset(clock);
  const log = logger('kubelet', {}, () => undefined);
  const recorder = new EventRecorder(api.resource(resources.events), { component: 'kubelet', host: 'n1' }, clock, log);
  const gc = new ImageGCManager({ highThresholdPercent: 70, lowThresholdPercent: 70, minAgeMs: 120_000 }, {
    runtime, clock, log, recorder, nodeName: 'n1', sandboxImage: PAUSE,
    fsStats: () => ({ capacityBytes: 100_000, availableBytes: available }),
  });
  const container = async (image: string, name: string) => {
    const sandboxConfig = { metadata: { name, namespace: 'default', uid: `u-${name}`, attempt: 0 } };
    const sb = await runtime.runPodSandbox(sandboxConfig);
    const id = await runtime.createContainer(sb, { metadata: { name, attempt: 0 }, image: { image } } as never, sandboxConfig as never);
    await runtime.startContainer(id);
    return id;
  };
  const events = async () => { await new Promise((r) => setImmediate(r)); return api.list(resources.events, 'default').map((e) => `${e.reason}: ${e.message}`); };
  const names = async () => (await runtime.listImages()).flatMap((i) => i.repo_tags).sort();
  return { clock, runtime, gc, container, events, names };
}

t.test('least recently used first, only what the low threshold needs', async (t) => {
  // 71 % used, low threshold 70 %: 1,000 bytes to free; every fake image is 1,024 bytes.
  const s = setup(29_000);
  const recent = await s.container('recently-used:1', 'a');
  await s.container('in-use:1', 'b');
  await t.rejects(s.gc.garbageCollect(), /Attempted to free 1000 bytes, but only found 0 bytes eligible to free/, 'all too young at first sight');
  t.same(await s.events(), ['FreeDiskSpaceFailed: Failed to garbage collect required amount of images. Attempted to free 1000 bytes, but only found 0 bytes eligible to free.']);
  s.clock.step(60_000);
  await s.gc.garbageCollect().catch(() => undefined);
  await s.runtime.removeContainer(recent);
  s.clock.step(120_000);
  const r = await s.gc.garbageCollect();
  t.equal(r.freedBytes, 1024);
  t.same(await s.names(), ['in-use:1', 'localhost/capstan/pause:1', 'recently-used:1'], 'the never-used image went, the recently used stayed');
  s.clock.step(10_000);
  const again = await s.gc.garbageCollect();
  t.same(again.removed.length, 1);
  t.same(await s.names(), ['in-use:1', 'localhost/capstan/pause:1'], 'next: the other unused one; never the sandbox or an image in use');
});

t.test('below the high threshold nothing is removed', async (t) => {
  const s = setup(40_000);
  s.clock.step(600_000);
  await s.gc.garbageCollect();
  s.clock.step(600_000);
  t.same((await s.gc.garbageCollect()).removed, []);
  t.equal((await s.names()).length, 4);
});

t.test('repeated failures become ImageGCFailed', async (t) => {
  const s = setup(1_000);
  await s.gc.run();
  t.notOk((await s.events()).some((e) => e.startsWith('ImageGCFailed')), 'the first failure is only logged');
  await s.gc.run();
  t.ok((await s.events()).some((e) => e.startsWith('ImageGCFailed: Failed to garbage collect required amount of images.')));
});

t.test('threshold validation', async (t) => {
  t.equal(validateImageGCPolicy({ highThresholdPercent: 101, lowThresholdPercent: 80, minAgeMs: 0 }), 'invalid HighThresholdPercent 101, must be in range [0-100]');
  t.equal(validateImageGCPolicy({ highThresholdPercent: 70, lowThresholdPercent: 80, minAgeMs: 0 }), 'LowThresholdPercent 80 can not be higher than HighThresholdPercent 70');
  t.equal(validateImageGCPolicy({ highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0 }), undefined);
});
