// Container exits reach the pod status through containerd's task events, not the resync:
// with --sync-frequency 1h, a container that exits is reported at once (init and regular
// containers, one of two containers with its exit code and reason while the other runs, a
// restart under OnFailure); with the events off, the same pod stays Running.
import t from 'tap';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();

t.test('container exits from task events', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const n = await startRealNode(t, { kubeletFlags: ['--sync-frequency', '1h'] });
  const pod = (name: string, script: string, restartPolicy: string, init?: string): { spec: { containers: object[] } & Record<string, unknown> } & Record<string, unknown> => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      nodeName: n.nodeName, terminationGracePeriodSeconds: 0, restartPolicy,
      ...(init ? { initContainers: [{ name: 'init', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', init] }] } : {}),
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script] }],
    },
  });
  const apply = (p: object) => n.k.ok(['apply', '-f', '-'], JSON.stringify(p));

  await t.test('an exit long after the last sync is reported', async (t) => {
    await apply(pod('late-exit', 'sleep 4; exit 4', 'Never', 'sleep 2'));
    await until(async () => {
      const p = await n.podJSON('late-exit');
      if (p.status?.phase !== 'Failed') throw new Error(JSON.stringify(p.status?.containerStatuses ?? p.status));
      t.equal(p.status.containerStatuses[0].state.terminated.exitCode, 4);
      t.equal(p.status.initContainerStatuses[0].state.terminated.reason, 'Completed');
    }, 40_000, 'late-exit Failed');
  });

  await t.test('one container of a running pod exits: the API shows it terminated, the other running', async (t) => {
    const p = pod('one-exits', 'sleep 3600', 'Never');
    p.spec.containers.push({ name: 'quitter', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'sleep 3; exit 3'] });
    await apply(p);
    await until(async () => {
      const got = await n.podJSON('one-exits');
      const quitter = got.status?.containerStatuses?.find((c: { name: string }) => c.name === 'quitter');
      if (!quitter?.state?.terminated) throw new Error(JSON.stringify(got.status?.containerStatuses ?? got.status));
      t.equal(quitter.state.terminated.exitCode, 3, 'exit code');
      t.equal(quitter.state.terminated.reason, 'Error', 'reason');
      t.match(quitter.state.terminated.containerID, /^containerd:\/\//);
      t.ok(Date.parse(quitter.state.terminated.finishedAt) >= Date.parse(quitter.state.terminated.startedAt), 'finishedAt after startedAt');
      t.equal(quitter.ready, false);
      const main = got.status.containerStatuses.find((c: { name: string }) => c.name === 'main');
      t.ok(main.state.running, 'the other container still runs');
      t.equal(got.status.phase, 'Running');
    }, 40_000, 'quitter terminated');
  });

  await t.test('OnFailure restarts a failed container without waiting for a resync', async (t) => {
    await apply(pod('again', 'sleep 2; exit 1', 'OnFailure'));
    await until(async () => {
      const p = await n.podJSON('again');
      if (!(p.status?.containerStatuses?.[0]?.restartCount >= 1)) throw new Error(JSON.stringify(p.status?.containerStatuses));
    }, 40_000, 'restarted');
    t.pass('restarted');
  });

  await t.test('without the events (--container-events=false) the exit waits for the resync', async (t) => {
    await n.stopKubelet();
    n.startKubelet(['--sync-frequency', '1h', '--container-events', 'false']);
    await apply(pod('unnoticed', 'sleep 3; exit 5', 'Never'));
    await until(async () => {
      const p = await n.podJSON('unnoticed');
      if (p.status?.phase !== 'Running') throw new Error(JSON.stringify(p.status));
    }, 30_000, 'unnoticed Running');
    // The container is gone in the runtime, and the API still says Running: what the events fix.
    await until(async () => {
      const [c] = await n.env.client.listContainers({ label_selector: { 'io.kubernetes.pod.name': 'unnoticed' } });
      if (c?.state !== 'CONTAINER_EXITED') throw new Error(`runtime: ${c?.state}`);
    }, 20_000, 'exited in the runtime');
    t.equal((await n.podJSON('unnoticed')).status.phase, 'Running');
  });

  await n.k.ok(['delete', 'pods', '--all', '--wait=true', '--timeout=60s']);
});
