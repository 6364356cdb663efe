// The kubelet end to end: a real containerd in a fresh network namespace, the kubelet as a
// process inside that namespace (so probes reach pod IPs), an in-process API server bridged
// into it, real kubectl. Pods are bound with spec.nodeName (no scheduler needed).
import t from 'tap';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startRuntimeEnv, runtimeUnavailable } from '../cri/runtime-env.js';
import { startAPIServer } from '../helpers/api.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { POD_UID_LABEL, POD_NAME_LABEL } from '../../src/kubelet/index.js';
import { until } from './real-node.js';

const why = runtimeUnavailable();

const NODE = 'node-e2e';
/** The kubelet's /healthz and /metrics, on loopback inside the test's own network namespace. */
const HEALTHZ_PORT = 10248;

t.test('kubelet on a private containerd', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const env = await startRuntimeEnv(t);
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(env.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const { bridgeIntoNetns } = await import('./netns-bridge.js');
  await bridgeIntoNetns(t, env.netns, api.port, env.dir);
  const k = kubectlFor(t, kubeconfig);
  const cri = env.client;

  let kubelet: ChildProcess | undefined;
  let logs = '';
  const startKubelet = () => {
    kubelet = spawn('nsenter', [`--net=/run/netns/${env.netns}`, '--', process.execPath, capstanBin, 'kubelet',
      '--kubeconfig', kubeconfig, '--hostname-override', NODE, '--container-runtime-endpoint', env.containerd.socket,
      '--root-dir', join(env.dir, 'kubelet'), '--cgroup-root', env.cgroupParent, '--node-ip', '127.0.0.1',
      '--sync-frequency', '2s', '--resolv-conf', '/dev/null', '--healthz-port', String(HEALTHZ_PORT)], { stdio: ['ignore', 'pipe', 'pipe'] });
    kubelet.stdout!.on('data', (d: Buffer) => { logs = (logs + d.toString()).slice(-20_000); });
    kubelet.stderr!.on('data', (d: Buffer) => { logs = (logs + d.toString()).slice(-20_000); });
  };
  const killKubelet = async () => {
    const p = kubelet;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await gone;
  };
  t.teardown(killKubelet);
  startKubelet();
  t.teardown(() => { if (t.passing() === false) console.error(logs); });

  /** Pod syncs of the running kubelet so far, by operation_type (kubelet_pod_worker_duration_seconds). */
  const podSyncs = async (): Promise<Record<string, number>> => {
    const fetchMetrics = `fetch('http://127.0.0.1:${HEALTHZ_PORT}/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))`;
    const text = await new Promise<string>((resolve, reject) => {
      execFile('nsenter', [`--net=/run/netns/${env.netns}`, '--', process.execPath, '-e', fetchMetrics], (err, out) => (err ? reject(err) : resolve(out)));
    });
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^kubelet_pod_worker_duration_seconds_count\{operation_type="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
    return out;
  };
  const podJSON = async (name: string) => JSON.parse(await k.ok(['get', 'pod', name, '-o', 'json']));
  const execIn = async (pod: string, cmd: string[]) => {
    const uid = (await podJSON(pod)).metadata.uid;
    const c = (await cri.listContainers({ label_selector: { [POD_UID_LABEL]: uid }, state: { state: 'CONTAINER_RUNNING' } }))[0];
    const r = await cri.execSync(c.id, cmd, 10);
    return { code: r.exit_code, out: r.stdout.toString().trim() };
  };

  await until(async () => {
    const node = JSON.parse(await k.ok(['get', 'node', NODE, '-o', 'json']));
    const ready = node.status.conditions.find((c: any) => c.type === 'Ready');
    if (ready?.status !== 'True') throw new Error(`node not ready: ${JSON.stringify(ready)}`);
    t.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
    t.ok(Number(node.status.capacity.cpu) >= 1);
  }, 30_000, 'node Ready');

  await k.ok(['create', 'configmap', 'cfg', '--from-literal=greeting=hello']);
  const web = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      nodeName: NODE, terminationGracePeriodSeconds: 3,
      volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }],
      containers: [{
        name: 'httpd', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c', 'mkdir -p /www && echo ok > /www/index.html && echo ok > /www/ready.html && exec httpd -f -p 8080 -h /www'],
        env: [
          { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'greeting' } } },
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        ],
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }],
        ports: [{ containerPort: 8080 }],
        readinessProbe: { httpGet: { path: '/ready.html', port: 8080 }, periodSeconds: 1, failureThreshold: 1 },
      }],
    },
  };
  const created = Date.now();
  await k.ok(['apply', '-f', '-'], JSON.stringify(web));

  await t.test('a busybox httpd pod becomes Running and Ready with IPs', async (t) => {
    await until(async () => {
      const pod = await podJSON('web');
      if (pod.status.phase !== 'Running' || !pod.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')) {
        throw new Error(`not ready: ${JSON.stringify(pod.status)}`);
      }
    }, 30_000, 'web Running and Ready');
    t.comment(`create → Ready in ${Date.now() - created} ms`);
    const pod = await podJSON('web');
    t.match(pod.status.podIP, /^10\.88\.\d+\.\d+$/);
    t.same(pod.status.podIPs, [{ ip: pod.status.podIP }]);
    t.equal(pod.status.hostIP, '127.0.0.1');
    const st = pod.status.containerStatuses[0];
    t.match(st.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    t.match(st.imageID, /^sha256:/);
    t.equal(st.restartCount, 0);
    t.equal(st.ready, true);
    t.equal(pod.status.qosClass, 'BestEffort');
    const table = await k.ok(['get', 'pod', 'web']);
    t.match(table, /web\s+1\/1\s+Running\s+0/);
  });

  await t.test('ConfigMap volume and env are visible in the container; updates reach the volume', async (t) => {
    t.same(await execIn('web', ['cat', '/etc/cfg/greeting']), { code: 0, out: 'hello' });
    t.same(await execIn('web', ['sh', '-c', 'echo $GREETING']), { code: 0, out: 'hello' });
    const podIP = (await podJSON('web')).status.podIP;
    t.same(await execIn('web', ['sh', '-c', 'echo $POD_IP']), { code: 0, out: podIP });
    t.match((await execIn('web', ['cat', '/etc/hosts'])).out, new RegExp(`${podIP.replace(/\./g, '\\.')}\\s+web`));
    await k.ok(['create', 'configmap', 'cfg', '--from-literal=greeting=bonjour', '--dry-run=client', '-o', 'yaml']).then((y) => k.ok(['apply', '-f', '-'], y));
    await until(async () => {
      const r = await execIn('web', ['cat', '/etc/cfg/greeting']);
      if (r.out !== 'bonjour') throw new Error(r.out);
    }, 20_000, 'volume updated');
  });

  await t.test('readiness flips Ready with the probe', async (t) => {
    await execIn('web', ['rm', '/www/ready.html']);
    await until(async () => {
      const pod = await podJSON('web');
      if (pod.status.containerStatuses[0].ready !== false) throw new Error('still ready');
      t.equal(pod.status.conditions.find((c: any) => c.type === 'Ready').reason, 'ContainersNotReady');
    }, 15_000, 'not ready');
    await execIn('web', ['sh', '-c', 'echo ok > /www/ready.html']);
    await until(async () => {
      if ((await podJSON('web')).status.containerStatuses[0].ready !== true) throw new Error('not ready again');
    }, 15_000, 'ready again');
    const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=web', '-o', 'json']);
    t.ok(JSON.parse(events).items.some((e: any) => e.reason === 'Unhealthy' && /^Readiness probe failed: HTTP probe failed with statuscode: 404/.test(e.message)));
  });

  await t.test('a failing liveness probe restarts the container, with backoff', async (t) => {
    await k.ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'flaky' },
      spec: {
        nodeName: NODE, terminationGracePeriodSeconds: 1,
        containers: [{
          name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'],
          livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 },
        }],
      },
    }));
    await until(async () => {
      const row = await k.ok(['get', 'pod', 'flaky', '--no-headers']);
      const [, , status, restarts] = row.trim().split(/\s+/);
      if (status !== 'CrashLoopBackOff' || Number(restarts) < 1) throw new Error(row);
    }, 40_000, 'CrashLoopBackOff with restarts');
    const pod = await podJSON('flaky');
    t.match(pod.status.containerStatuses[0].state.waiting.message, /^back-off \d+s restarting failed container=main pod=flaky_default\(/);
    const events = JSON.parse(await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=flaky', '-o', 'json'])).items;
    t.ok(events.some((e: any) => e.reason === 'Killing' && e.message === 'Container main failed liveness probe, will be restarted'));
    t.ok(events.some((e: any) => e.reason === 'BackOff'));
    await k.ok(['delete', 'pod', 'flaky', '--wait=false']);
  });

  await t.test('kubelet SIGKILL + restart: same containers, nothing restarted', async (t) => {
    // web is then the only pod on the node and in the runtime, so the new kubelet's pod syncs are all web's.
    await k.ok(['wait', '--for=delete', 'pod/flaky', '--timeout=60s']);
    await until(async () => {
      if ((await cri.listPodSandbox({ label_selector: { [POD_NAME_LABEL]: 'flaky' } })).length) throw new Error('flaky sandbox still there');
    }, 20_000, 'flaky sandbox gone');
    const uid = (await podJSON('web')).metadata.uid;
    const before = (await cri.listContainers({ label_selector: { [POD_UID_LABEL]: uid } })).map((c) => `${c.id}/${c.state}`).sort();
    const sandboxes = (await cri.listPodSandbox({ label_selector: { [POD_UID_LABEL]: uid } })).map((s) => s.id);
    await killKubelet();
    startKubelet();
    // The new kubelet's first sync of web (a create: it adopts or replaces what runs), then two
    // periodic resyncs that start after it: whatever a restarted kubelet does to a pod, it did.
    await until(async () => {
      const syncs = await podSyncs();
      if (syncs.create !== 1 || !(syncs.sync >= 2)) throw new Error(`pod syncs so far: ${JSON.stringify(syncs)}`);
    }, 30_000, 'web synced by the new kubelet');
    await until(async () => {
      const pod = await podJSON('web');
      if (pod.status.containerStatuses[0].ready !== true) throw new Error('not ready after restart');
    }, 15_000, 'ready after restart');
    t.same((await cri.listContainers({ label_selector: { [POD_UID_LABEL]: uid } })).map((c) => `${c.id}/${c.state}`).sort(), before);
    t.same((await cri.listPodSandbox({ label_selector: { [POD_UID_LABEL]: uid } })).map((s) => s.id), sandboxes);
    t.equal((await podJSON('web')).status.containerStatuses[0].restartCount, 0);
  });

  await t.test('kubectl delete: containers stop within the grace period, sandboxes are gone', async (t) => {
    const { metadata: { uid, resourceVersion } } = await podJSON('web');
    // Every state the pod passes through on its way out, as the API server records it.
    const w = await api.client.watch(`/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name%3Dweb&resourceVersion=${resourceVersion}`);
    t.teardown(() => w.close());
    await k.ok(['delete', 'pod', 'web', '--timeout=30s']);
    const states: any[] = [];
    for await (const ev of w) {
      states.push(ev.object);
      if (ev.type === 'DELETED') break;
    }
    t.equal(states.find((p) => p.metadata.deletionTimestamp)?.metadata.deletionGracePeriodSeconds, 3, 'deleted with the pod\'s 3 s grace');
    const terminated = states.at(-1)?.status?.containerStatuses?.[0]?.state?.terminated;
    t.ok(terminated?.finishedAt, `the kubelet reported the container terminated before the pod went: ${JSON.stringify(states.at(-1)?.status?.containerStatuses)}`);
    // The kubelet's Killing event and the runtime's finishedAt, not the test's stopwatch: a
    // kubelet that stopped with the 30 s default instead of the pod's grace shows ~30 s here.
    // Both times have whole seconds, hence the second of slack either way (and one for the SIGKILL).
    const events = JSON.parse(await k.ok(['get', 'events', '--field-selector', `involvedObject.uid=${uid}`, '-o', 'json'])).items;
    const killing = events.find((e: any) => e.reason === 'Killing' && e.message === 'Stopping container httpd');
    t.ok(killing, 'a Killing event for the container');
    const stopSeconds = (Date.parse(terminated?.finishedAt) - Date.parse(killing?.firstTimestamp)) / 1000;
    t.ok(stopSeconds <= 3 + 2, `stopped ${stopSeconds} s after Killing (grace 3 s; exit code ${terminated?.exitCode})`);
    // httpd as PID 1 ignores SIGTERM: the runtime's SIGKILL at the end of the grace ends it.
    t.ok(stopSeconds >= 3 - 1 && terminated?.exitCode === 137, 'killed when the grace ran out, not before');
    t.same(await cri.listPodSandbox({ label_selector: { [POD_UID_LABEL]: uid } }), []);
    t.same(await cri.listContainers({ label_selector: { [POD_UID_LABEL]: uid } }), []);
    await until(async () => {
      const left = await cri.listPodSandbox({ label_selector: { [POD_NAME_LABEL]: 'flaky' } });
      if (left.length) throw new Error('flaky sandbox still there');
    }, 20_000, 'flaky gone');
  });
});
