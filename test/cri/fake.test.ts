// FakeRuntime passes the same conformance scenario as containerd, plus its test hooks.
import t from 'tap';
import { CRIStatus, FakeRuntime } from '../../cri/index.js';
import { runtimeConformance } from './conformance.js';

const IMAGE = 'localhost/capstan/busybox:1';

t.test('FakeRuntime behaves like containerd 1.6', async (t) => {
  await runtimeConformance(t, new FakeRuntime({ images: [IMAGE] }), { image: IMAGE, command: ['sleep', '3600'], logDirectory: '/var/log/pods' });
});

t.test('FakeRuntime hooks', async (t) => {
  let now = 1_700_000_000_000;
  const cri = new FakeRuntime({ images: [IMAGE], pullable: ['registry.example/app:1'], now: () => now });
  const sc = { metadata: { name: 'p', uid: 'u', namespace: 'n' }, log_directory: '/logs/p' };
  const sb = await cri.runPodSandbox(sc);
  t.match((await cri.podSandboxStatus(sb)).status?.network?.ip, /^10\.88\./, 'pods get an IP');
  const id = await cri.createContainer(sb, { metadata: { name: 'c' }, image: { image: IMAGE }, log_path: 'c/0.log' }, sc);
  t.equal((await cri.containerStatus(id)).status?.log_path, '/logs/p/c/0.log');
  await cri.startContainer(id);
  now += 5000;
  cri.exitContainer(id, 1);
  t.match((await cri.containerStatus(id)).status, { state: 'CONTAINER_EXITED', exit_code: 1, reason: 'Error', finished_at: '1700000005000000000' });

  cri.execHandler = (_id, cmd) => ({ stdout: Buffer.from(cmd.join(' ')), stderr: Buffer.alloc(0), exit_code: 0 });
  const id2 = await cri.createContainer(sb, { metadata: { name: 'c', attempt: 1 }, image: { image: IMAGE } }, sc);
  await cri.startContainer(id2);
  t.equal((await cri.execSync(id2, ['echo', 'hi'])).stdout.toString(), 'echo hi');

  cri.failNext('ListContainers', CRIStatus.UNAVAILABLE);
  await t.rejects(cri.listContainers(), { name: 'CRIError', codeName: 'UNAVAILABLE' });
  t.equal((await cri.listContainers()).length, 2, 'one injected failure only');

  await t.rejects(cri.pullImage('registry.example/other:1'), { name: 'CRIError', codeName: 'UNKNOWN' });
  const ref = await cri.pullImage('registry.example/app:1');
  t.equal((await cri.imageStatus('registry.example/app:1')).image?.id, ref);
  t.same(cri.calls.slice(0, 3).map((c) => c.method), ['RunPodSandbox', 'PodSandboxStatus', 'CreateContainer']);
});
