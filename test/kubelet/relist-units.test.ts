// The relist period follows the event stream, on FakeRuntime and a FakeClock: while containerd's
// task events flow, pod reads share one node-wide List kept up to 300 s (an exit event updates
// its one container; the kubelet's own stops and removals drop it, its own starts are written into it);
// when the stream breaks every read lists again (and the 1 s relist runs), until it is back.
import t from 'tap';
import { FakeRuntime } from '../../cri/index.js';
import { FakeClock } from '../../src/client/index.js';
import { ContainerEvents } from '../../src/kubelet/container-events.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../../src/kubelet/labels.js';
import { RuntimeStateReader, SLOW_RELIST_MS, trackingRuntime } from '../../src/kubelet/runtime-state.js';
import { logger } from '../../src/log/index.js';
import type { ContainerConfig, PodSandboxConfig } from '../../cri/index.js';

t.test('slow relist while the events flow, per-read lists when the stream is down', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeRuntime({ images: ['img'], now: () => clock.now() });
  const reader = new RuntimeStateReader(fake, () => clock.now());
  const runtime = trackingRuntime(fake, reader);
  const sandboxConfig = { metadata: { name: 'a', uid: 'pod-a', namespace: 'default', attempt: 0 }, labels: { [POD_UID_LABEL]: 'pod-a' } } as unknown as PodSandboxConfig;
  const sandbox = await runtime.runPodSandbox(sandboxConfig);
  const container = await runtime.createContainer(sandbox, {
    metadata: { name: 'main', attempt: 0 }, image: { image: 'img' }, labels: { [POD_UID_LABEL]: 'pod-a', [CONTAINER_NAME_LABEL]: 'main' },
  } as unknown as ContainerConfig, sandboxConfig);
  await runtime.startContainer(container);
  const lists = () => fake.calls.filter((c) => c.method === 'ListContainers' || c.method === 'ListPodSandbox').length;
  const settle = () => new Promise((r) => setImmediate(r));

  const streams: { event: (id: string) => void; end: (e?: Error) => void }[] = [];
  const woken: string[] = [];
  const events = new ContainerEvents({
    socket: 'x', reader, clock, log: logger('t', {}, () => undefined), wake: (u) => woken.push(u), wakeAll: () => undefined,
    subscribe: (_s, _f, onEvent, onEnd) => {
      streams.push({ event: (id) => onEvent({ topic: '/tasks/exit', namespace: 'k8s.io', containerId: id }), end: onEnd });
      return { close: () => undefined };
    },
  });
  t.equal(reader.relistPeriodMs, 0, 'before the events: every read lists');
  events.start();
  t.teardown(() => events.stop());
  t.equal(reader.relistPeriodMs, SLOW_RELIST_MS, 'the stream is up: the slow relist');

  let before = lists();
  await Promise.all([reader.read('pod-a'), reader.read('pod-a'), reader.read('pod-b')]);
  for (let i = 0; i < 10; i++) {
    clock.step(10_000);
    t.equal((await reader.read('pod-a')).containers[0]?.state, 'CONTAINER_RUNNING');
  }
  t.equal(lists() - before, 2, 'three pods\' reads and ten resyncs over 100 s: one node-wide List');

  // The container exits: one ContainerStatus updates it in the kept List, and the worker
  // woken for it sees the exit without another List.
  const statuses = () => fake.calls.filter((c) => c.method === 'ContainerStatus').length;
  const asked = statuses();
  before = lists();
  fake.exitContainer(container, 1);
  streams[0]!.event(container);
  await settle();
  t.same(woken, ['pod-a']);
  const exited = (await reader.read('pod-a')).containers[0];
  t.equal(exited?.state, 'CONTAINER_EXITED', 'read after the event: the exit');
  t.equal(exited?.exitCode, 1);
  t.equal(lists() - before, 0, 'no List for the exit');
  t.equal(statuses() - asked, 1, 'one ContainerStatus');
  before = lists();
  await runtime.removeContainer(container);
  t.same((await reader.read('pod-a')).containers, [], 'the kubelet\'s own removal drops the List too');
  t.equal(lists() - before, 2);
  clock.step(SLOW_RELIST_MS);
  before = lists();
  await reader.read('pod-a');
  t.equal(lists() - before, 2, 'and it is listed again after 300 s at the latest');

  // The stream breaks: fallback to the 1 s relist and to listing on every read.
  const unfiltered = () => fake.calls.filter((c) => c.method === 'ListContainers' && !(c.request as { filter?: object }).filter).length;
  const relists = unfiltered();
  streams[0]!.end(new Error('containerd restarted'));
  await settle();
  t.equal(reader.relistPeriodMs, 0, 'the stream is down: the fast relist');
  t.equal(unfiltered() - relists, 1, 'the relist runs at once');
  before = lists();
  await reader.read('pod-a');
  await reader.read('pod-a');
  t.equal(lists() - before, 4, 'each read lists');
  t.ok(fake.calls.slice(-4).every((c) => (c.request as { filter?: { label_selector?: Record<string, string> } }).filter?.label_selector?.[POD_UID_LABEL] === 'pod-a'), 'per-pod Lists');
  clock.step(500); // the backoff: resubscribed
  t.equal(streams.length, 2, 'resubscribed');
  t.equal(reader.relistPeriodMs, SLOW_RELIST_MS, 'back to the slow relist');
  before = lists();
  await reader.read('pod-a');
  await reader.read('pod-a');
  t.equal(lists() - before, 2, 'one node-wide List again');
});

t.test('the kubelet\'s own starts are written into the node-wide List instead of dropping it', async (t) => {
  const clock = new FakeClock();
  const fake = new FakeRuntime({ images: ['img'], now: () => clock.now() });
  const reader = new RuntimeStateReader(fake, () => clock.now());
  const runtime = trackingRuntime(fake, reader);
  reader.setRelistPeriod(SLOW_RELIST_MS);
  const lists = () => fake.calls.filter((c) => c.method === 'ListContainers' || c.method === 'ListPodSandbox').length;
  const config = (uid: string) => ({ metadata: { name: uid, uid, namespace: 'default', attempt: 0 }, labels: { [POD_UID_LABEL]: uid } }) as unknown as PodSandboxConfig;
  const containerConfig = (uid: string) => ({
    metadata: { name: 'main', attempt: 0 }, image: { image: 'img' }, labels: { [POD_UID_LABEL]: uid, [CONTAINER_NAME_LABEL]: 'main' },
  }) as unknown as ContainerConfig;

  t.same(await reader.read('pod-a'), { uid: 'pod-a', sandboxes: [], containers: [] });
  // A List whose answer is taken before the starts below and arrives after them.
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  for (const m of ['listContainers', 'listPodSandbox'] as const) {
    const list = fake[m].bind(fake) as (f?: object) => Promise<unknown>;
    (fake as unknown as Record<string, unknown>)[m] = async (f?: object) => {
      const answer = await list(f);
      await gate;
      return answer;
    };
  }
  reader.invalidate(); // an exit event
  let before = lists();
  const inFlight = reader.read('pod-z');
  await new Promise((r) => setImmediate(r));
  t.equal(lists() - before, 2, 'a node-wide List is in flight');
  const ids: string[] = [];
  for (const uid of ['pod-a', 'pod-b', 'pod-c']) {
    const sandbox = await runtime.runPodSandbox(config(uid));
    t.equal((await reader.sandboxStatus(sandbox))?.ready, true, `${uid}: the new sandbox's status without a List`);
    const id = await runtime.createContainer(sandbox, containerConfig(uid), config(uid));
    if (uid !== 'pod-c') await runtime.startContainer(id);
    ids.push(id);
  }
  open();
  await inFlight;
  before = lists();
  for (const [i, uid] of ['pod-a', 'pod-b', 'pod-c'].entries()) {
    const rs = await reader.read(uid);
    t.equal(rs.sandboxes.length, 1, `${uid}: its sandbox`);
    t.equal(rs.containers[0]?.id, ids[i]);
    t.equal(rs.containers[0]?.state, uid === 'pod-c' ? 'CONTAINER_CREATED' : 'CONTAINER_RUNNING', `${uid}: as the kubelet left it`);
    t.equal(reader.podOf(ids[i]!), uid, 'an exit event can name its pod before any List showed it');
  }
  await runtime.startContainer(ids[2]!);
  t.equal((await reader.read('pod-c')).containers[0]?.state, 'CONTAINER_RUNNING', 'pod-c: started');
  t.equal(lists() - before, 0, 'three pods started and read back without another List');

  const listed = lists();
  await runtime.stopContainer(ids[0]!, 0);
  await reader.read('pod-a');
  t.equal(lists() - listed, 2, 'a stop drops the List');
  t.equal((await reader.read('pod-a')).containers[0]?.state, 'CONTAINER_EXITED');

  // A failed start may leave something behind (a sandbox that is not ready): the List is dropped.
  fake.failNext('CreateContainer', 2);
  const sandbox = (await reader.read('pod-b')).sandboxes[0]!.id;
  await t.rejects(runtime.createContainer(sandbox, containerConfig('pod-b'), config('pod-b')));
  const failed = lists();
  await reader.read('pod-b');
  t.equal(lists() - failed, 2, 'a failed start drops the List');
});
