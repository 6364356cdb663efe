// Runtime behaviour the kubelet relies on, as one scenario run against both the real
// containerd (containerd.test.ts) and FakeRuntime (fake.test.ts): if containerd changes
// or the fake drifts, one of the two fails.
import type { Test } from 'tap';
import type { CRIRuntime, ContainerConfig, PodSandboxConfig } from '../../cri/index.js';

export interface ConformanceOptions {
  /** An image the runtime has, whose `command` keeps running. */
  image: string;
  command: string[];
  /** Directory for container logs. */
  logDirectory: string;
  /** cgroupfs parent for the sandboxes (real runtimes). */
  cgroupParent?: string;
}

const err = (codeName: string, details?: RegExp) => ({ name: 'CRIError', codeName, ...(details ? { details } : {}) });

export async function runtimeConformance(t: Test, cri: CRIRuntime, o: ConformanceOptions): Promise<void> {
  const uid = `conf-${Date.now()}`;
  const sandbox = (attempt: number): PodSandboxConfig => ({
    metadata: { name: 'conf', uid, namespace: 'default', attempt },
    log_directory: `${o.logDirectory}/default_conf_${uid}`,
    dns_config: {},
    labels: { app: 'conf' },
    linux: { cgroup_parent: o.cgroupParent ? `${o.cgroupParent}/pod${uid}` : '' },
  });
  const container: ContainerConfig = {
    metadata: { name: 'main' }, image: { image: o.image }, command: o.command, log_path: 'main/0.log', labels: { role: 'main' },
  };
  const sc = sandbox(0);
  const sb = await cri.runPodSandbox(sc);

  await t.test('names are reserved', async (t) => {
    await t.rejects(cri.runPodSandbox(sc), err('UNKNOWN', /is reserved for/), 'same sandbox name and attempt');
    const id = await cri.createContainer(sb, container, sc);
    await t.rejects(cri.createContainer(sb, container, sc), err('UNKNOWN', /is reserved for/), 'same container name and attempt');
    await cri.removeContainer(id);
    await cri.removeContainer(await cri.createContainer(sb, container, sc)); // the name is free again
  });

  await t.test('NOT_FOUND and idempotence', async (t) => {
    await t.rejects(cri.createContainer('nosuch', container, sc), err('NOT_FOUND'), 'CreateContainer in a missing sandbox');
    await t.rejects(cri.createContainer(sb, { ...container, metadata: { name: 'x' }, image: { image: 'localhost/capstan/absent:1' } }, sc),
      err('NOT_FOUND'), 'CreateContainer with a missing image');
    await t.rejects(cri.containerStatus('nosuch'), err('NOT_FOUND'));
    await t.rejects(cri.stopContainer('nosuch', 0), err('NOT_FOUND'), 'StopContainer of a missing container is NOT_FOUND');
    await cri.removeContainer('nosuch');
    await t.rejects(cri.podSandboxStatus('nosuch'), err('NOT_FOUND'));
    await t.rejects(cri.stopPodSandbox('nosuch'), err('NOT_FOUND'), 'StopPodSandbox of a missing sandbox is NOT_FOUND');
    await cri.removePodSandbox('nosuch');
    t.equal((await cri.imageStatus('localhost/capstan/absent:1')).image, null);
    await cri.removeImage('localhost/capstan/absent:1');
  });

  const id = await cri.createContainer(sb, container, sc);
  await t.test('state transitions', async (t) => {
    t.equal((await cri.containerStatus(id)).status?.state, 'CONTAINER_CREATED');
    await t.rejects(cri.execSync(id, ['true']), err('UNKNOWN', /CONTAINER_CREATED/), 'no exec before start');
    await cri.startContainer(id);
    await t.rejects(cri.startContainer(id), err('UNKNOWN', /CONTAINER_RUNNING/), 'no second start');
    const running = await cri.listContainers({ state: { state: 'CONTAINER_RUNNING' }, label_selector: { role: 'main' } });
    t.same(running.map((c) => c.id), [id]);
    t.same((await cri.listPodSandbox({ label_selector: { app: 'conf' } })).map((s) => s.id), [sb]);
    t.same(await cri.listContainers({ label_selector: { role: 'other' } }), []);
  });

  await t.test('StopPodSandbox kills its containers', async (t) => {
    await cri.stopPodSandbox(sb);
    await cri.stopPodSandbox(sb);
    t.equal((await cri.podSandboxStatus(sb)).status?.state, 'SANDBOX_NOTREADY');
    const st = (await cri.containerStatus(id)).status!;
    t.match(st, { state: 'CONTAINER_EXITED', exit_code: 137, reason: 'Error' });
    t.ok(BigInt(st.finished_at) >= BigInt(st.started_at), 'finished after it started');
    await t.rejects(cri.execSync(id, ['true']), err('UNKNOWN', /CONTAINER_EXITED/));
    await t.rejects(cri.startContainer(id), err('UNKNOWN', /CONTAINER_EXITED/), 'an exited container is not restarted');
    await t.rejects(cri.createContainer(sb, { ...container, metadata: { name: 'late' } }, sc), err('NOT_FOUND'), 'no new containers in a stopped sandbox');
    await cri.stopContainer(id, 0); // idempotent for an exited container
  });

  await t.test('RemovePodSandbox removes its containers', async (t) => {
    await cri.removePodSandbox(sb);
    await t.rejects(cri.containerStatus(id), err('NOT_FOUND'));
    t.same((await cri.listPodSandbox()).filter((s) => s.metadata?.uid === uid), []);
    const again = await cri.runPodSandbox(sc); // the name is free again
    await cri.stopPodSandbox(again);
    await cri.removePodSandbox(again);
  });
}
