// Ephemeral containers on the fakes: added to a running pod they start in its sandbox, in
// the target container's PID namespace, are reported in ephemeralContainerStatuses (never
// ready, no effect on the pod's readiness) and are not restarted when they exit.
import t from 'tap';
import { resources } from '../../src/client/index.js';
import { IMAGE, calls, cs, podSpec, startHarness } from './harness.js';
import type { Fields } from '../../src/api/object.js';

t.test('an ephemeral container joins a running pod once', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('app'));
  const main = cs(h.pod('app'));
  t.ok(main?.state.running, 'the pod runs');
  const pod = h.pod('app')!;
  pod.spec.ephemeralContainers = [{ name: 'debugger', image: IMAGE, targetContainerName: 'main', stdin: true, tty: true }];
  await h.api.resource(resources.pods).update(pod);
  await h.settle();

  const create = calls(h.runtime, 'CreateContainer').map((c) => c.request as Fields).find((r) => r.config.metadata.name === 'debugger');
  t.ok(create, 'created');
  t.same(create?.config.linux.security_context.namespace_options, { network: 'POD', pid: 'TARGET', ipc: 'POD', target_id: main!.containerID.replace('containerd://', '') });
  t.equal(create?.config.tty, true);
  const eph = () => (h.pod('app')?.status.ephemeralContainerStatuses ?? []) as Fields[];
  t.equal(eph()[0]?.name, 'debugger');
  t.ok(eph()[0]?.state.running);
  t.equal(eph()[0]?.ready, false);
  t.equal(cs(h.pod('app'))?.ready, true, 'the pod\'s own container is still ready');
  t.equal((h.pod('app')?.status.conditions as Fields[]).find((c) => c.type === 'Ready')?.status, 'True');

  const id = eph()[0].containerID.replace('containerd://', '');
  h.runtime.exitContainer(id, 0);
  await h.advance(30_000, 5_000);
  t.equal(eph()[0]?.state.terminated?.exitCode, 0, 'reported as terminated');
  t.equal(calls(h.runtime, 'CreateContainer').filter((c) => (c.request as Fields).config.metadata.name === 'debugger').length, 1, 'never restarted');
  t.equal(h.pod('app')?.status.phase, 'Running');
});
