// restartPolicy and CrashLoopBackOff timing, probes driving Ready and restarts, graceful
// deletion order, and a restarted kubelet adopting what runs.
import t from 'tap';
import { CRIStatus } from '../../cri/index.js';
import { resources } from '../../src/client/index.js';
import { calls, cond, cs, podSpec, startHarness, IMAGE } from './harness.js';

const mainId = async (h: Awaited<ReturnType<typeof startHarness>>, state = 'CONTAINER_RUNNING') =>
  (await h.runtime.listContainers()).find((c) => c.metadata?.name === 'main' && c.state === state)?.id;

t.test('Always: immediate first restart, then back-off 10s, 20s, 40s; reset after 10 min running', async (t) => {
  const h = await startHarness(t);
  const created = await h.createPod(podSpec('crash'));
  const uid = created.metadata.uid as string;
  const crash = async () => {
    h.runtime.exitContainer((await mainId(h))!, 1);
    h.kubelet.workers.enqueue(uid);
    await h.settle();
  };
  await crash();
  t.equal(cs(h.pod('crash'))?.restartCount, 1, 'first restart is immediate');
  t.ok(await mainId(h));
  await crash();
  let st = cs(h.pod('crash'));
  t.equal(st?.state.waiting?.reason, 'CrashLoopBackOff');
  t.equal(st?.state.waiting?.message, `back-off 10s restarting failed container=main pod=crash_default(${uid})`);
  t.equal(st?.lastState.terminated.exitCode, 1);
  t.equal(st?.lastState.terminated.reason, 'Error');
  t.equal(h.pod('crash')?.status.phase, 'Running');
  t.equal(h.events('BackOff')[0]?.message, `Back-off restarting failed container main in pod crash_default(${uid})`);
  await h.advance(9_000);
  t.notOk(await mainId(h), 'still backing off at 9 s');
  await h.advance(1_000);
  t.ok(await mainId(h), 'restarted at 10 s');
  t.equal(cs(h.pod('crash'))?.restartCount, 2);
  await crash();
  t.equal(cs(h.pod('crash'))?.state.waiting?.message, `back-off 20s restarting failed container=main pod=crash_default(${uid})`);
  await h.advance(20_000);
  t.equal(cs(h.pod('crash'))?.restartCount, 3);
  await crash();
  t.match(cs(h.pod('crash'))?.state.waiting?.message, /^back-off 40s /);
  await h.advance(40_000, 5_000);
  t.ok(await mainId(h));
  await h.advance(11 * 60_000, 60_000);
  await crash();
  st = cs(h.pod('crash'));
  t.ok(st?.state.running, 'after 10 min of running the backoff starts over: immediate restart');
  t.equal(st?.restartCount, 5);
  t.ok(calls(h.runtime, 'RemoveContainer').length > 0, 'dead containers beyond the limit are removed');
  t.ok((await h.runtime.listContainers()).length <= 2);
});

t.test('Never: a failed container fails the pod; OnFailure: exit 0 succeeds it, with the sandbox stopped', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('never', { restartPolicy: 'Never' }));
  await h.createPod(podSpec('onfail', { restartPolicy: 'OnFailure' }));
  const byPod = async (pod: string) => (await h.runtime.listContainers()).find((c) => c.labels['io.kubernetes.pod.name'] === pod && c.state === 'CONTAINER_RUNNING')!.id;
  h.runtime.exitContainer(await byPod('never'), 2);
  h.runtime.exitContainer(await byPod('onfail'), 1);
  for (const p of ['never', 'onfail']) h.kubelet.workers.enqueue(h.pod(p)!.metadata.uid as string);
  await h.settle();
  t.equal(h.pod('never')?.status.phase, 'Failed');
  t.equal(cs(h.pod('never'))?.state.terminated.exitCode, 2);
  t.equal(cond(h.pod('never'), 'Ready')?.reason, 'PodCompleted');
  t.equal(h.pod('onfail')?.status.phase, 'Running', 'OnFailure restarts a failure');
  t.equal(cs(h.pod('onfail'))?.restartCount, 1);
  h.runtime.exitContainer(await byPod('onfail'), 0);
  h.kubelet.workers.enqueue(h.pod('onfail')!.metadata.uid as string);
  await h.settle();
  t.equal(h.pod('onfail')?.status.phase, 'Succeeded');
  t.equal(cs(h.pod('onfail'))?.state.terminated.reason, 'Completed');
  const sandboxes = await h.runtime.listPodSandbox();
  t.same(sandboxes.map((s) => s.state), ['SANDBOX_NOTREADY', 'SANDBOX_NOTREADY'], 'finished pods keep no running sandbox');
  await h.advance(30_000);
  t.equal(calls(h.runtime, 'CreateContainer').length, 3, 'nothing restarted later');
});

t.test('readiness probe drives Ready; liveness failures past the threshold kill and restart', async (t) => {
  const h = await startHarness(t);
  h.probeAnswers.set('main/httpGet', false);
  await h.createPod(podSpec('probed', {
    containers: [{
      name: 'main', image: IMAGE,
      readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 2, failureThreshold: 1 },
      livenessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5, periodSeconds: 3, failureThreshold: 2 },
    }],
  }));
  t.equal(cs(h.pod('probed'))?.ready, false, 'not ready before a readiness success');
  t.equal(cond(h.pod('probed'), 'Ready')?.reason, 'ContainersNotReady');
  await h.advance(2_000);
  t.equal(cs(h.pod('probed'))?.ready, false);
  t.ok(h.events('Unhealthy').some((e) => e.message === 'Readiness probe failed: HTTP probe failed with statuscode: 500'));
  h.probeAnswers.set('main/httpGet', true);
  await h.advance(2_000);
  t.equal(cs(h.pod('probed'))?.ready, true);
  t.equal(cond(h.pod('probed'), 'Ready')?.status, 'True');
  t.notOk(h.probeCalls.some((c) => c.action.exec && h.clock.now() < 0), 'liveness waits for initialDelaySeconds');
  const firstId = await mainId(h);
  h.probeAnswers.set('main/exec', false);
  await h.advance(12_000);
  t.ok(h.events('Killing').some((e) => e.message === 'Container main failed liveness probe, will be restarted'));
  t.ok(h.events('Unhealthy').some((e) => e.message === 'Liveness probe failed: probe says no'));
  t.equal(cs(h.pod('probed'))?.restartCount, 1);
  t.not(await mainId(h), firstId);
  t.equal(cs(h.pod('probed'))?.ready, false, 'the new container starts unready');
});

t.test('deletion: preStop, StopContainer within the grace period, sandbox removed, then the pod deleted with grace 0', async (t) => {
  const h = await startHarness(t);
  const pod = await h.createPod(podSpec('gone', {
    terminationGracePeriodSeconds: 7,
    containers: [{ name: 'main', image: IMAGE, lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 1'] } } } }],
  }, { finalizers: ['test/keep'] })); // the fake API deletes a terminating pod on any write; real pods wait for the kubelet
  h.runtime.calls.length = 0;
  h.api.write(resources.pods, { ...h.pod('gone')!, metadata: { ...h.pod('gone')!.metadata, deletionTimestamp: '2023-11-14T22:13:20Z', deletionGracePeriodSeconds: 7 } }, 'MODIFIED');
  await h.settle();
  const order = h.runtime.calls.map((c) => c.method).filter((m) => ['StopContainer', 'StopPodSandbox', 'RemovePodSandbox'].includes(m));
  t.same(order.slice(0, 3), ['StopContainer', 'StopPodSandbox', 'RemovePodSandbox']);
  t.ok(h.probeCalls.some((c) => c.action.exec?.command?.[2] === 'sleep 1'), 'preStop ran');
  t.equal((calls(h.runtime, 'StopContainer')[0].request as any).timeout, 7);
  t.same(await h.runtime.listPodSandbox(), []);
  t.ok(h.api.actions.some((a) => a.verb === 'delete' && a.resource === 'pods'), `deleted through the API: ${JSON.stringify(h.api.actions.map((a) => a.verb + ' ' + a.resource))}`);
  t.ok(h.cgroupsRemoved.some((p) => p.endsWith(`/kubepods/besteffort/pod${pod.metadata.uid}`)), 'pod cgroup parent removed');
  t.ok(h.events('Killing').some((e) => e.message === 'Stopping container main'));
});

t.test('a restarted kubelet adopts running pods: same containers, nothing created or stopped', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('keep', { containers: [{ name: 'main', image: IMAGE }, { name: 'side', image: IMAGE }] }));
  const before = (await h.runtime.listContainers()).map((c) => c.id).sort();
  const status = h.pod('keep')?.status;
  h.runtime.calls.length = 0;
  await h.restartKubelet();
  await h.advance(20_000);
  const mutating = h.runtime.calls.filter((c) => /^(Run|Create|Start|Stop|Remove)/.test(c.method)).map((c) => c.method);
  t.same(mutating, []);
  t.same((await h.runtime.listContainers()).map((c) => c.id).sort(), before);
  t.same(cs(h.pod('keep'))?.containerID, cs({ status } as any)?.containerID);
  t.equal(cs(h.pod('keep'))?.restartCount, 0);
});

t.test('a pod deleted while the kubelet was down is removed from the runtime at start', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('orphan'));
  await h.kubelet.stop();
  await h.api.resource(resources.pods).delete('default', 'orphan');
  t.equal((await h.runtime.listPodSandbox()).length, 1);
  await h.restartKubelet();
  t.same(await h.runtime.listPodSandbox(), []);
  t.same(await h.runtime.listContainers(), []);
});

t.test('start waits for a container runtime that is not answering yet, and gives up after 5 minutes', async (t) => {
  const h = await startHarness(t, { start: false });
  h.runtime.failNext('Version', CRIStatus.UNAVAILABLE, 'connection refused');
  h.runtime.failNext('Version', CRIStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
  let started = false;
  const starting = h.kubelet.start().then(() => { started = true; });
  await h.advance(500, 100);
  t.notOk(started, 'still waiting after the first failure');
  await h.advance(3_000, 100);
  await starting;
  t.equal(calls(h.runtime, 'Version').length, 3, 'asked again until it answered');
  t.ok(h.api.get(resources.nodes, '', 'node-a'), 'then registered the node');

  const late = await startHarness(t, { start: false });
  for (let i = 0; i < 100; i++) late.runtime.failNext('Version', CRIStatus.UNAVAILABLE, 'connection refused');
  const failing = late.kubelet.start().then(() => 'started', (e: Error) => e.message);
  await late.advance(6 * 60_000, 1_000);
  t.equal(await failing, 'CRI Version: UNAVAILABLE: connection refused', 'the runtime\'s error once the wait is over');
});

t.test('start does not wait on a runtime error that is not about reaching it', async (t) => {
  const h = await startHarness(t, { start: false });
  h.runtime.failNext('Version', CRIStatus.UNIMPLEMENTED, 'unknown service runtime.v1.RuntimeService');
  await t.rejects(h.kubelet.start(), /unknown service/);
  t.equal(calls(h.runtime, 'Version').length, 1);
});

