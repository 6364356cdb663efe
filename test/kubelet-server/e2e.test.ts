// kubectl logs and exec end to end: real kubectl → in-process API server → the kubelet
// server (HTTPS, client certificates of the cluster CA) → a real containerd in a test netns
// (logs from its CRI log files, exec over its stream server). No kubelet core: the test
// makes the pod's sandbox and containers through CRI with the labels the kubelet sets, and
// the Pod and Node objects through the API.
import t from 'tap';
import { join } from 'node:path';
import type { ContainerConfig, PodSandboxConfig } from '../../cri/index.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { LABELS, netnsDialer, startKubeletServer } from '../../src/kubelet/server/index.js';
import { issueCert } from '../../src/pki/index.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { runtimeUnavailable, startRuntimeEnv } from '../cri/runtime-env.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import WebSocket from 'ws';

const why = runtimeUnavailable();

t.test('kubectl logs and exec through the API server and the kubelet server', { skip: why ?? false, timeout: 300_000 }, async (t) => {
  const [env, api] = await Promise.all([startRuntimeEnv(t), startAPIServer(t, { trace: { slowRequestThresholdMs: 1 } })]);
  const cri = env.client;
  const serving = issueCert(api.pki.ca, { commonName: 'node-a', ipAddresses: ['127.0.0.1'], usage: 'server' });
  const kubelet = await startKubeletServer({
    cri, address: '127.0.0.1', port: 0, tls: serving, clientCA: api.pki.ca.certPem, nodeName: 'node-a',
    streamDialer: netnsDialer(`/run/netns/${env.netns}`), logPollMs: 50,
  });
  t.teardown(() => kubelet.stop());
  const k = kubectlFor(t, writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`));

  // The Node the API server routes by: InternalIP and the kubelet's port.
  await k.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } }));
  await k.ok(['patch', 'node', 'node-a', '--subresource=status', '--type=merge', '-p', JSON.stringify({
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
  })]);
  const pod = (name: string, containers: string[]) => JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { nodeName: 'node-a', containers: containers.map((c) => ({ name: c, image: BUSYBOX_IMAGE })) },
  });
  await k.ok(['create', '-f', '-'], pod('web', ['main']));
  await k.ok(['create', '-f', '-'], pod('multi', ['a', 'b']));
  const uid = (await k.ok(['get', 'pod', 'web', '-o', 'jsonpath={.metadata.uid}'])).trim();

  // The runtime side, labelled as the kubelet labels it.
  const podLabels = { [LABELS.podNamespace]: 'default', [LABELS.podName]: 'web', [LABELS.podUID]: uid };
  const sandbox: PodSandboxConfig = {
    metadata: { name: 'web', uid, namespace: 'default', attempt: 0 },
    log_directory: join(env.dir, 'pods', `default_web_${uid}`), dns_config: {}, labels: podLabels,
    linux: { cgroup_parent: `${env.cgroupParent}/pod${uid}` },
  };
  const sandboxId = await cri.runPodSandbox(sandbox);
  const container = (attempt: number, script: string): ContainerConfig => ({
    metadata: { name: 'main', attempt }, image: { image: BUSYBOX_IMAGE }, command: ['sh', '-c', script],
    log_path: `main/${attempt}.log`, labels: { ...podLabels, [LABELS.containerName]: 'main' },
  });
  // A first run that failed, then the current one, which waits for a file before printing more.
  const first = await cri.createContainer(sandboxId, container(0, 'echo first run; exit 1'), sandbox);
  await cri.startContainer(first);
  await eventually(async () => (await cri.containerStatus(first)).status?.state === 'CONTAINER_EXITED', 30_000, 'first run exits');
  // stdout and stderr are separate pipes: the pause keeps their order in the log fixed.
  const current = await cri.createContainer(sandboxId, container(1, 'echo hello; sleep 0.3; echo to stderr >&2; while [ ! -f /tmp/more ]; do sleep 0.1; done; echo more; sleep 3600'), sandbox);
  await cri.startContainer(current);
  let lastLogs = '';
  await eventually(async () => {
    const r = await k(['logs', 'web']);
    lastLogs = JSON.stringify(r);
    return r.stdout === 'hello\nto stderr\n';
  }, 30_000, 'first lines in kubectl logs').catch((e: Error) => { throw new Error(`${e.message}; last: ${lastLogs}`); });

  t.test('kubectl logs', async (t) => {
    t.equal(await k.ok(['logs', 'web', '--tail=1']), 'to stderr\n');
    t.match(await k.ok(['logs', 'web', '--timestamps']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d) hello\n\S+ to stderr\n$/);
    t.equal(await k.ok(['logs', 'web', '--previous']), 'first run\n', 'previous: the exited attempt');
    t.equal(await k.ok(['logs', 'web', '--limit-bytes=3']), 'hel');
    const multi = await k(['get', '--raw', '/api/v1/namespaces/default/pods/multi/log']);
    t.not(multi.code, 0);
    t.match(multi.stderr, 'a container name must be specified for pod multi, choose one of: [a b]');
    const bad = await k(['logs', 'web', '-c', 'nope']);
    t.match(bad.stderr, 'container nope is not valid for pod web');
    const missing = await k(['logs', 'absent']);
    t.match(missing.stderr, /NotFound.*pods "absent" not found/);
  });

  t.test('kubectl logs -f shows lines as the container prints them', async (t) => {
    const f = k.background(['logs', '-f', 'web']);
    await eventually(() => f.output() === 'hello\nto stderr\n', 30_000, 'existing lines');
    await cri.execSync(current, ['touch', '/tmp/more'], 10);
    await eventually(() => f.output() !== 'hello\nto stderr\n', 30_000, 'the new line');
    t.equal(f.output(), 'hello\nto stderr\nmore\n');
    await f.stop();
  });

  t.test('kubectl exec: stdout, stderr and the exit code', async (t) => {
    const r = await k(['exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 42']);
    t.equal(r.code, 42, r.stderr);
    t.equal(r.stdout, 'out\n');
    t.match(r.stderr, /^err\n/);
    t.match(r.stderr, 'command terminated with exit code 42');
    const ok = await k(['exec', 'web', '--', 'echo', 'fine']);
    t.same([ok.code, ok.stdout], [0, 'fine\n']);
  });

  t.test('kubectl exec -i: stdin reaches the process and closes', async (t) => {
    const r = await k(['exec', '-i', 'web', '--', 'cat'], 'hi\n');
    t.same([r.code, r.stdout], [0, 'hi\n'], r.stderr);
    const big = 'x'.repeat(200_000) + '\n';
    const wc = await k(['exec', '-i', 'web', '--', 'wc', '-c'], big);
    t.equal(wc.stdout.trim(), String(big.length), 'more than one flow-control window of stdin');
  });

  t.test('kubectl exec errors', async (t) => {
    const missing = await k(['exec', 'absent', '--', 'true']);
    t.not(missing.code, 0);
    t.match(missing.stderr, 'pods "absent" not found');
    const notFound = await k(['exec', 'web', '--', '/no/such/binary']);
    t.not(notFound.code, 0);
    t.match(notFound.stderr, /no such file or directory|not found/);
  });

  t.test('a terminal through the API server: tty, resize, v5 close', async (t) => {
    // kubectl -t needs a real terminal on its side; speak its protocol directly instead.
    const q = 'command=sh&command=-c&command=tty%3B%20sleep%200.5%3B%20stty%20size%3B%20cat&stdin=true&stdout=true&tty=true';
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/web/exec?${q}`, ['v5.channel.k8s.io'], {
      ca: api.pki.ca.certPem, cert: api.pki.admin.certPem, key: api.pki.admin.keyPem,
    });
    let out = '';
    let status = '';
    ws.on('message', (m: Buffer) => {
      if (m[0] === 1) out += m.subarray(1).toString();
      if (m[0] === 3) status = m.subarray(1).toString();
    });
    const closed = new Promise((r) => ws.on('close', r));
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    t.equal(ws.protocol, 'v5.channel.k8s.io');
    ws.send(Buffer.concat([Buffer.from([4]), Buffer.from('{"Width":123,"Height":45}')]));
    await eventually(() => out.includes('45 123'), 30_000, 'stty size');
    t.match(out, /^\/dev\/pts\/\d+\r\n45 123\r\n$/);
    ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('typed\r')]));
    await eventually(() => out.includes('typed\r\n'), 30_000, 'echo of typed input');
    ws.send(Buffer.from([0, 4])); // ^D ends cat
    await closed;
    t.same(JSON.parse(status), { metadata: {}, status: 'Success' });
  });

  t.test('an exec stream is traced: Server-Timing on its 101, the time to the first byte in the slow-request log', async (t) => {
    const q = 'command=sh&command=-c&command=sleep%200.3%3B%20echo%20late&stdout=true';
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/web/exec?${q}`, ['v5.channel.k8s.io'], {
      ca: api.pki.ca.certPem, cert: api.pki.admin.certPem, key: api.pki.admin.keyPem, headers: { 'X-Capstan-Trace': '1' },
    });
    let timing = '';
    ws.on('upgrade', (res) => { timing = String(res.headers['server-timing'] ?? ''); });
    let out = '';
    ws.on('message', (m: Buffer) => { if (m[0] === 1) out += m.subarray(1).toString(); });
    const closed = new Promise((r) => ws.on('close', r));
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    await closed;
    t.equal(out, 'late\n');
    const names = timing.split(', ').map((e) => e.split(';')[0]);
    for (const stage of ['authn', 'authz', 'admission.validating.NamespaceLifecycle', 'read', 'kubelet.dial', 'kubelet.upgrade', 'total']) t.ok(names.includes(stage), `the 101 names ${stage}: ${timing}`);
    const traced = () => api.logs.filter((l) => l.includes('Trace[') && l.includes('/pods/web/exec')).map((l) => JSON.parse(l)).find((l) => l.stages['kubelet.first-byte'] !== undefined);
    await eventually(() => !!traced(), 10_000, 'the stream\'s trace in the slow-request log');
    const line = traced();
    // The command may start before the 101 reaches the API server, so only the whole trace is
    // bounded by the command's sleep; the first-byte stage is whatever of it was left.
    t.ok(line.stages['kubelet.first-byte'] > 0, `the first byte came after the upgrade (${line.stages['kubelet.first-byte']} ms)`);
    t.ok(line.totalMs >= 300, `the trace lasted at least the command's sleep (${line.totalMs} ms)`);
    t.ok(line.totalMs >= line.stages['kubelet.upgrade'] + line.stages['kubelet.first-byte'], 'the trace ends at the first byte');
    t.match(line.msg, /"Create" url:\/api\/v1\/namespaces\/default\/pods\/web\/exec\?.*code:101 .*kubelet\.upgrade [\d.]+ms, kubelet\.first-byte [\d.]+ms/);
  });

  t.test('kubectl attach -i to a container that reads stdin once', async (t) => {
    await k.ok(['create', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'att' },
      spec: { nodeName: 'node-a', containers: [{ name: 'main', image: BUSYBOX_IMAGE, stdin: true, stdinOnce: true }] },
    }));
    const attUID = (await k.ok(['get', 'pod', 'att', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const l = { [LABELS.podNamespace]: 'default', [LABELS.podName]: 'att', [LABELS.podUID]: attUID };
    const sc: PodSandboxConfig = { ...sandbox, metadata: { name: 'att', uid: attUID, namespace: 'default', attempt: 0 }, labels: l, log_directory: join(env.dir, 'pods', `default_att_${attUID}`), linux: { cgroup_parent: `${env.cgroupParent}/pod${attUID}` } };
    const sb = await cri.runPodSandbox(sc);
    const id = await cri.createContainer(sb, { metadata: { name: 'main' }, image: { image: BUSYBOX_IMAGE }, command: ['cat'], stdin: true, stdin_once: true, log_path: 'main/0.log', labels: { ...l, [LABELS.containerName]: 'main' } }, sc);
    await cri.startContainer(id);
    const r = await k(['attach', '-i', 'att'], 'hello\n');
    t.same([r.code, r.stdout], [0, 'hello\n'], r.stderr);
    await eventually(async () => (await cri.containerStatus(id)).status?.state === 'CONTAINER_EXITED', 30_000, 'cat exits at stdin EOF');
    t.equal(await k.ok(['logs', 'att']), 'hello\n', 'what it printed is in its log too');
  });
});
