// Graceful node shutdown on a real node (containerd, the kubelet as a process): without
// --shutdown-grace-period a SIGTERM'd kubelet leaves its pods running for the next one to
// adopt; with it, the SIGTERM is the node's shutdown: Ready=False "node is shutting down",
// new pods rejected (NodeShutdown), regular pods stopped first (preStop and their own grace
// period, capped by the group's time), critical ones after, each Failed / Terminated with a
// DisruptionTarget condition, as upstream's nodeshutdown manager does.
import t from 'tap';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();
const SHUTDOWN = ['--shutdown-grace-period', '12s', '--shutdown-grace-period-critical-pods', '4s'];

t.test('graceful node shutdown', { skip: why ?? false, timeout: 300_000 }, async (t) => {
  const n = await startRealNode(t);
  const pod = (name: string, ns: string, script: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns },
    spec: {
      nodeName: n.nodeName, terminationGracePeriodSeconds: 5,
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script], ...container }],
      ...spec,
    },
  });
  const apply = (...pods: object[]) => n.k.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
  const running = (name: string, ns = 'default') => until(async () => {
    if ((await n.podJSON(name, ns)).status?.phase !== 'Running') throw new Error('not running');
  }, 60_000, `${name} Running`);
  const ready = async () => JSON.parse(await n.k.ok(['get', 'node', n.nodeName, '-o', 'json'])).status.conditions.find((c: { type: string }) => c.type === 'Ready');

  await t.test('without a shutdown grace period a SIGTERM leaves pods running', async (t) => {
    await apply(pod('survivor', 'default', 'while true; do sleep 1; done'));
    await running('survivor');
    const before = (await n.podJSON('survivor')).status.containerStatuses[0].containerID;
    await n.stopKubelet('SIGTERM');
    n.startKubelet(SHUTDOWN);
    await until(async () => { if ((await ready())?.status !== 'True') throw new Error('not Ready'); }, 60_000, 'node Ready again');
    await until(async () => {
      const p = await n.podJSON('survivor');
      if (p.status?.containerStatuses?.[0]?.ready !== true) throw new Error('not ready');
    }, 30_000, 'survivor adopted');
    const after = (await n.podJSON('survivor')).status;
    t.equal(after.phase, 'Running');
    t.equal(after.containerStatuses[0].containerID, before, 'the same container, never stopped');
    t.equal(after.containerStatuses[0].restartCount, 0);
  });

  await t.test('with one, SIGTERM stops regular pods, then critical ones, and marks them Terminated', async (t) => {
    // Regular: one honours SIGTERM after its preStop, one ignores it with a long grace period
    // (capped at the group's 8 s), one takes 3 s to exit so the critical group visibly waits.
    await apply(
      pod('graceful', 'default', 'trap "echo got-term >> /dev/termination-log; exit 0" TERM; while true; do sleep 0.1; done', {},
        { lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /dev/termination-log'] } } } }),
      pod('stubborn', 'default', 'exec sleep 3600', { terminationGracePeriodSeconds: 300 }),
      pod('slow', 'default', 'trap "sleep 3; exit 0" TERM; while true; do sleep 0.1; done'),
      pod('critical', 'kube-system', 'trap "date +%s > /dev/termination-log; exit 0" TERM; while true; do sleep 0.1; done', { priorityClassName: 'system-cluster-critical' }),
    );
    for (const [name, ns] of [['graceful', 'default'], ['stubborn', 'default'], ['slow', 'default'], ['critical', 'kube-system']] as const) await running(name, ns);
    t.equal((await n.podJSON('critical', 'kube-system')).spec.priority, 2_000_000_000);

    const start = Date.now();
    const exited = n.stopKubelet('SIGTERM');
    await until(async () => {
      const r = await ready();
      if (r?.status !== 'False') throw new Error(`Ready ${r?.status}`);
    }, 10_000, 'node not Ready while shutting down');
    const r = await ready();
    t.match(r, { status: 'False', reason: 'KubeletNotReady', message: 'node is shutting down' });
    const notReadyAfter = Date.now() - start;
    // A pod bound now is refused.
    await apply(pod('late', 'default', 'sleep 3600'));
    await until(async () => {
      if ((await n.podJSON('late')).status?.phase !== 'Failed') throw new Error('not Failed');
    }, 10_000, 'late rejected');
    t.match((await n.podJSON('late')).status, { phase: 'Failed', reason: 'NodeShutdown', message: 'Pod was rejected: Pod was rejected as the node is shutting down.' });
    await exited;
    const total = Date.now() - start;
    t.comment(`shutdown: Ready=False after ${notReadyAfter} ms, kubelet exited after ${total} ms (budget 12 s)`);

    const statuses = Object.fromEntries(await Promise.all(([['graceful', 'default'], ['stubborn', 'default'], ['slow', 'default'], ['critical', 'kube-system']] as const)
      .map(async ([name, ns]) => [name, (await n.podJSON(name, ns)).status] as const)));
    for (const [name, st] of Object.entries(statuses)) {
      t.match(st, { phase: 'Failed', reason: 'Terminated', message: 'Pod was terminated in response to imminent node shutdown.' }, `${name} Failed / Terminated`);
      t.match(st.conditions.find((c: { type: string }) => c.type === 'DisruptionTarget'),
        { status: 'True', reason: 'TerminationByKubelet', message: 'Pod was terminated in response to imminent node shutdown.' }, `${name} DisruptionTarget`);
    }
    const term = (name: string) => statuses[name]!.containerStatuses[0].state.terminated;
    t.match(term('graceful'), { exitCode: 0, message: 'prestop\ngot-term\n' }, 'preStop ran, then SIGTERM was honoured');
    t.equal(term('stubborn').exitCode, 137, 'a pod ignoring SIGTERM is killed when its group\'s time is up');
    t.equal(term('slow').exitCode, 0, 'slow exited on its own');
    t.equal(term('critical').exitCode, 0);
    const slowDone = Math.floor(Date.parse(term('slow').finishedAt) / 1000);
    const criticalTerm = Number(term('critical').message.trim());
    t.ok(criticalTerm >= slowDone, `the critical pod got SIGTERM (${criticalTerm}) only after the regular pods were down (${slowDone})`);
    const stubbornDone = Date.parse(term('stubborn').finishedAt);
    t.comment(`stubborn killed ${stubbornDone - start} ms after SIGTERM (its group has 8 s; its own grace 300 s)`);
    const events = JSON.parse(await n.k.ok(['get', 'events', '--field-selector', `involvedObject.kind=Node,involvedObject.name=${n.nodeName},reason=NodeShutdown`, '-o', 'json'])).items;
    t.match(events, [{ type: 'Normal', message: 'Shutdown manager detected shutdown event' }]);
  });

  n.startKubelet([]);
  await n.k.ok(['delete', 'pods', '--all', '--wait=true', '--timeout=60s']);
  await n.k.ok(['delete', 'pods', '--all', '-n', 'kube-system', '--wait=true', '--timeout=60s']);
});
