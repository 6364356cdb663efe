// A pod's life through the CRI client against a real, private containerd: sandbox with
// pod networking, containers, exec, logs, stop timeouts, a containerd restart mid-way,
// removal, and that teardown leaves no shims, mounts or cgroups behind.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CRIClient, isNotFound, type ContainerConfig, type PodSandboxConfig } from '../../cri/index.js';
import { BUSYBOX_IMAGE, NODE_IMAGE, PAUSE_IMAGE } from '../../src/kubelet/images/index.js';
import { cgroupHierarchies } from '../../src/kubelet/containerd/index.js';
import { formatStats, runtimeUnavailable, startRuntimeEnv } from './runtime-env.js';
import { runtimeConformance } from './conformance.js';

const run = promisify(execFile);
const why = runtimeUnavailable();

async function eventually<T>(fn: () => Promise<T | undefined> | T | undefined, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const v = await fn();
  return [v, Date.now() - start];
}

/** PIDs of processes whose command line mentions `needle`. */
function processesMentioning(needle: string): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  }).map(Number);
}

t.test('pod lifecycle on a private containerd', { skip: why ?? false, timeout: 120_000 }, async (t) => {
  const env = await startRuntimeEnv(t);
  const cri = env.client;

  t.test('built-in images are imported once', async (t) => {
    t.same(env.images.map((i) => [i.name, i.imported]), [[PAUSE_IMAGE, true], [BUSYBOX_IMAGE, true], [NODE_IMAGE, true]]);
    const { ensureBuiltinImages } = await import('../../src/kubelet/images/index.js');
    const again = await ensureBuiltinImages(env.containerd.socket);
    t.same(again.map((i) => i.imported), [false, false, false], 'same digest: nothing re-imported');
    const pause = await cri.imageStatus(PAUSE_IMAGE);
    t.equal(pause.image?.id, env.images[0].id);
    t.ok(pause.image?.repo_tags.includes(PAUSE_IMAGE));
    t.equal((await cri.imageStatus('localhost/capstan/absent:1')).image, null, 'absent image is null, not an error');
    const listed = (await cri.listImages()).flatMap((i) => i.repo_tags);
    t.ok(listed.includes(BUSYBOX_IMAGE));
  });

  const uid = `uid-${Date.now()}`;
  const logDir = join(env.dir, 'logs', `default_web_${uid}`);
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name: 'web', uid, namespace: 'default', attempt: 0 },
    hostname: 'web-pod',
    log_directory: logDir,
    dns_config: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
    labels: { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': uid },
    annotations: { 'capstan.io/test': 'yes' },
    linux: {
      cgroup_parent: `${env.cgroupParent}/pod${uid}`,
      security_context: { namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } },
    },
  };
  const [sandboxId, runMs] = await timed(() => cri.runPodSandbox(sandboxConfig));
  t.comment(`RunPodSandbox ${runMs} ms`);

  const status = (await cri.podSandboxStatus(sandboxId)).status!;
  t.equal(status.state, 'SANDBOX_READY');
  t.equal(status.metadata?.name, 'web');
  t.same(status.annotations, { 'capstan.io/test': 'yes' });
  const podIP = status.network?.ip ?? '';
  t.match(podIP, new RegExp(`^${env.subnet.split('.').slice(0, 3).join('\\.')}\\.`), 'pod IP from the CNI range');

  const shell: ContainerConfig = {
    metadata: { name: 'shell', attempt: 0 },
    image: { image: BUSYBOX_IMAGE },
    command: ['sh', '-c', 'echo hello; sleep 3600'],
    log_path: 'shell/0.log',
    labels: { 'io.kubernetes.container.name': 'shell' },
    envs: [{ key: 'GREETING', value: 'hi there' }],
    // A container's namespaces come from its own config (CRI default POD: the pause
    // process's PID namespace); the kubelet asks for CONTAINER unless shareProcessNamespace.
    linux: { security_context: { namespace_options: { pid: 'CONTAINER' } } },
  };
  const [shellId, createMs] = await timed(() => cri.createContainer(sandboxId, shell, sandboxConfig));
  const [, startMs] = await timed(() => cri.startContainer(shellId));
  t.comment(`CreateContainer ${createMs} ms, StartContainer ${startMs} ms`);
  // The pause program as a workload: PID 1 that must exit on SIGTERM at once.
  const pauseId = await cri.createContainer(sandboxId, {
    metadata: { name: 'pause-workload' }, image: { image: PAUSE_IMAGE }, log_path: 'pause-workload/0.log',
    linux: { security_context: { namespace_options: { pid: 'CONTAINER' } } },
  }, sandboxConfig);
  await cri.startContainer(pauseId);

  t.test('running containers, exec and logs', async (t) => {
    const st = (await cri.containerStatus(shellId)).status!;
    t.equal(st.state, 'CONTAINER_RUNNING');
    t.not(st.started_at, '0');
    t.equal(st.log_path, join(logDir, 'shell/0.log'));
    t.equal((await cri.containerStatus(pauseId)).status?.state, 'CONTAINER_RUNNING');

    const hi = await cri.execSync(shellId, ['echo', 'hi'], 10);
    t.equal(hi.stdout.toString(), 'hi\n');
    t.equal(hi.exit_code, 0);
    const env2 = await cri.execSync(shellId, ['sh', '-c', 'echo "$GREETING" >&2; exit 3'], 10);
    t.equal(env2.stderr.toString(), 'hi there\n');
    t.equal(env2.exit_code, 3, 'non-zero exit is a result, not an error');
    t.equal((await cri.execSync(shellId, ['cat', '/etc/resolv.conf'])).stdout.toString().includes('nameserver 10.96.0.10'), true, 'dns_config applied');
    t.equal((await cri.execSync(shellId, ['hostname'])).stdout.toString(), 'web-pod\n');

    const line = await eventually(() => {
      const text = existsSync(st.log_path) ? readFileSync(st.log_path, 'utf8') : '';
      return text.split('\n').find((l) => l.endsWith(' stdout F hello'));
    }, 5000, 'the log line');
    t.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d) stdout F hello$/, 'CRI log format');
  });

  t.test('pod network answers from the node', async (t) => {
    // httpd daemonizes (stdio to /dev/null), so ExecSync returns at once.
    await cri.execSync(shellId, ['httpd', '-p', '8080', '-h', '/etc'], 10);
    const { stdout } = await eventually(async () => run('nsenter', [`--net=/run/netns/${env.netns}`, 'busybox', 'wget', '-q', '-O-', `http://${podIP}:8080/hostname`]).catch(() => undefined), 5000, 'httpd in the pod');
    t.equal(stdout, 'web-pod\n');
    const inPod = await cri.execSync(shellId, ['wget', '-q', '-O-', 'http://127.0.0.1:8080/hostname'], 10);
    t.equal(inPod.stdout.toString(), 'web-pod\n', `busybox wget inside the pod (exit ${inPod.exit_code}, ${inPod.stderr})`);
  });

  t.test('containerd restart: the client reconnects and finds the same containers', async (t) => {
    const oldPid = env.containerd.pid;
    const before = (await cri.listContainers({ pod_sandbox_id: sandboxId })).map((c) => c.id).sort();
    const restarting = env.containerd.restart();
    // Issued while containerd is going down: waits for the new one within its deadline.
    await new Promise((r) => setTimeout(r, 20));
    const [during, ms] = await timed(() => cri.listContainers({ pod_sandbox_id: sandboxId }));
    await restarting;
    t.comment(`ListContainers across the restart: ${ms} ms`);
    t.not(env.containerd.pid, oldPid, 'a new containerd process');
    t.same(during.map((c) => c.id).sort(), before);
    const after = await cri.listContainers({ pod_sandbox_id: sandboxId });
    t.same(after.map((c) => [c.id, c.state]).sort(), before.map((id) => [id, 'CONTAINER_RUNNING']).sort());
    t.equal((await cri.execSync(shellId, ['echo', 'still'], 10)).stdout.toString(), 'still\n', 'shim reached after restart');
  });

  t.test('a crashed containerd is reported, and restart() brings back its pods', async (t) => {
    const exits: (string | null)[] = [];
    const off = env.containerd.onExit((_code, signal) => exits.push(signal));
    process.kill(env.containerd.pid, 'SIGKILL');
    await eventually(() => (exits.length ? true : undefined), 5000, 'the exit report');
    t.same(exits, ['SIGKILL']);
    const probe = new CRIClient({ socket: env.containerd.socket, timeouts: { short: 300 } });
    // Calls wait for the runtime, so a dead one shows as a deadline, not UNAVAILABLE.
    await t.rejects(probe.version(), { name: 'CRIError', codeName: 'DEADLINE_EXCEEDED' }, 'no runtime answering');
    probe.close();
    await env.containerd.restart();
    off();
    t.same(exits, ['SIGKILL'], 'a restart is not reported as a crash');
    t.equal((await cri.containerStatus(shellId)).status?.state, 'CONTAINER_RUNNING');
    t.equal((await cri.execSync(shellId, ['echo', 'back'], 10)).stdout.toString(), 'back\n');
  });

  t.test('a new start on the same root replaces a daemon an earlier process left', async (t) => {
    const { startContainerd } = await import('../../src/kubelet/containerd/index.js');
    const abandoned = env.containerd.pid;
    const successor = await startContainerd(env.options);
    t.not(successor.pid, abandoned);
    t.equal(existsSync(`/proc/${abandoned}/cmdline`) && readFileSync(`/proc/${abandoned}/cmdline`, 'utf8') !== '', false, 'the old daemon was stopped');
    t.equal((await cri.containerStatus(shellId)).status?.state, 'CONTAINER_RUNNING', 'its pods were adopted');
    // Hand the root back to the environment's handle (which tears everything down).
    await successor.stop();
    await env.containerd.restart();
    t.equal((await cri.execSync(shellId, ['echo', 'ok'], 10)).stdout.toString(), 'ok\n');
  });

  t.test('StopContainer honours the grace period', async (t) => {
    // The pause program exits on SIGTERM: well under its 10 s grace period.
    const [, pauseStopMs] = await timed(() => cri.stopContainer(pauseId, 10));
    t.ok(pauseStopMs < 2000, `pause stopped in ${pauseStopMs} ms`);
    const ps = (await cri.containerStatus(pauseId)).status!;
    t.equal(ps.state, 'CONTAINER_EXITED');
    t.equal(ps.exit_code, 0);
    t.equal(ps.reason, 'Completed');
    // sh as PID 1 has no SIGTERM handler: the runtime waits the timeout, then SIGKILLs.
    const [, shStopMs] = await timed(() => cri.stopContainer(shellId, 2));
    t.ok(shStopMs >= 1900 && shStopMs < 6000, `sh stopped after ${shStopMs} ms (timeout 2 s)`);
    const ss = (await cri.containerStatus(shellId)).status!;
    t.equal(ss.state, 'CONTAINER_EXITED');
    t.equal(ss.exit_code, 137);
    t.equal(ss.reason, 'Error');
    t.not(ss.finished_at, '0');
    await cri.stopContainer(shellId, 2); // idempotent
  });

  t.test('remove containers and the sandbox', async (t) => {
    await cri.removeContainer(shellId);
    await cri.removeContainer(pauseId);
    await cri.removeContainer(pauseId); // idempotent
    t.same(await cri.listContainers({ pod_sandbox_id: sandboxId }), []);
    await t.rejects(cri.containerStatus(shellId), { name: 'CRIError', codeName: 'NOT_FOUND' });

    const [, stopMs] = await timed(() => cri.stopPodSandbox(sandboxId));
    t.comment(`StopPodSandbox ${stopMs} ms`);
    t.equal((await cri.podSandboxStatus(sandboxId)).status?.state, 'SANDBOX_NOTREADY');
    await cri.stopPodSandbox(sandboxId); // idempotent
    await cri.removePodSandbox(sandboxId);
    t.same(await cri.listPodSandbox(), []);
    const gone = await cri.podSandboxStatus(sandboxId).then(() => undefined, (e: unknown) => e);
    t.ok(isNotFound(gone), 'PodSandboxStatus of a removed sandbox is NOT_FOUND');
  });

  t.test('conformance: what the kubelet relies on (FakeRuntime passes the same)', async (t) => {
    await runtimeConformance(t, cri, { image: BUSYBOX_IMAGE, command: ['sleep', '3600'], logDirectory: join(env.dir, 'logs'), cgroupParent: env.cgroupParent });
  });

  t.test('teardown leaves nothing behind', async (t) => {
    // A second sandbox still running when the instance is destroyed.
    const leftover = await cri.runPodSandbox({ ...sandboxConfig, metadata: { ...sandboxConfig.metadata, name: 'left', uid: `${uid}-2` } });
    t.ok(leftover);
    // containerd's command line names its config, a shim's its socket: both under base.
    const base = env.containerd.paths.base;
    t.ok(processesMentioning(base).length >= 2, 'containerd and a shim run');
    t.comment(formatStats(env.stats));
    await env.destroy();
    t.same(processesMentioning(base), [], 'no containerd or shim of this instance left');
    t.notOk(existsSync(env.dir), 'files removed');
    t.notOk(existsSync(`/run/netns/${env.netns}`), 'netns removed');
    const cgroups = cgroupHierarchies().filter((h) => existsSync(join(h, env.cgroupParent)));
    t.same(cgroups, [], 'pod cgroups removed');
  });
});

t.test('without a private mount namespace, teardown unmounts what containerd mounted', { skip: why ?? false, timeout: 60_000 }, async (t) => {
  const env = await startRuntimeEnv(t, { isolateMounts: false });
  const cri = env.client;
  const sc: PodSandboxConfig = {
    metadata: { name: 'shared', uid: `u-${Date.now()}`, namespace: 'default' },
    log_directory: join(env.dir, 'logs'), dns_config: {}, linux: { cgroup_parent: `${env.cgroupParent}/pod` },
  };
  const sb = await cri.runPodSandbox(sc);
  const id = await cri.createContainer(sb, { metadata: { name: 'c' }, image: { image: BUSYBOX_IMAGE }, command: ['sleep', '3600'], log_path: 'c.log' }, sc);
  await cri.startContainer(id);
  const base = env.containerd.paths.base;
  const mounts = () => readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.split(' ')[4]?.startsWith(`${base}/`));
  t.ok(mounts().length > 0, 'rootfs, shm and netns mounts live in the host namespace');
  await env.destroy();
  t.same(mounts(), [], 'all unmounted');
  t.same(processesMentioning(base), []);
  t.notOk(existsSync(env.dir));
});
