// The kubelet's /stats/summary and /metrics/resource with a real containerd, and
// `kubectl top` through the API server's metrics.k8s.io: a pod running a busy loop
// (busybox sh) shows CPU that moves between reads, node figures come from the kernel, and
// kubectl top pods/nodes print them. No kubelet core: the test makes the sandbox and
// container through CRI with the labels the kubelet sets, and the Pod and Node through the API.
import t from 'tap';
import { request } from 'node:https';
import { join } from 'node:path';
import type { PodSandboxConfig } from '../../cri/index.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { LABELS, startKubeletServer } from '../../src/kubelet/server/index.js';
import { summaryProvider } from '../../src/kubelet/stats/index.js';
import type { Summary } from '../../src/api/stats/summary.js';
import { parseSamples } from '../../src/api/stats/resource-metrics.js';
import { issueCert } from '../../src/pki/index.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { runtimeUnavailable, startRuntimeEnv } from '../cri/runtime-env.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const why = runtimeUnavailable();

t.test('stats of a busy pod, and kubectl top', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const [env, api] = await Promise.all([startRuntimeEnv(t), startAPIServer(t, { metricResolutionMs: 2_000 })]);
  const cri = env.client;
  const node = `stats-${Math.random().toString(36).slice(2, 7)}`;
  const serving = issueCert(api.pki.ca, { commonName: `system:node:${node}`, ipAddresses: ['127.0.0.1'], usage: 'server' });
  const kubelet = await startKubeletServer({
    cri, address: '127.0.0.1', port: 0, tls: serving, clientCA: api.pki.ca.certPem, nodeName: node,
    stats: summaryProvider({ cri, nodeName: node, rootDir: env.dir }),
  });
  t.teardown(() => kubelet.stop());
  const get = (path: string) => new Promise<{ code: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: kubelet.port, path, ca: api.pki.ca.certPem, cert: api.pki.kubeletClient.certPem, key: api.pki.kubeletClient.keyPem, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
  const k = kubectlFor(t, writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`));

  await k.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }));
  await k.ok(['patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({
    status: {
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } },
      capacity: { cpu: '2', memory: '8Gi', pods: '110' }, allocatable: { cpu: '2', memory: '8Gi', pods: '110' },
    },
  })]);
  await k.ok(['create', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'busy' },
    spec: { nodeName: node, containers: [{ name: 'spin', image: BUSYBOX_IMAGE, resources: { requests: { cpu: '100m' } } }] },
  }));
  const uid = (await k.ok(['get', 'pod', 'busy', '-o', 'jsonpath={.metadata.uid}'])).trim();
  const podLabels = { [LABELS.podNamespace]: 'default', [LABELS.podName]: 'busy', [LABELS.podUID]: uid };
  const sandbox: PodSandboxConfig = {
    metadata: { name: 'busy', uid, namespace: 'default', attempt: 0 },
    log_directory: join(env.dir, 'pods', `default_busy_${uid}`), dns_config: {}, labels: podLabels,
    linux: { cgroup_parent: `${env.cgroupParent}/pod${uid}` },
  };
  const sandboxId = await cri.runPodSandbox(sandbox);
  const id = await cri.createContainer(sandboxId, {
    metadata: { name: 'spin', attempt: 0 }, image: { image: BUSYBOX_IMAGE }, command: ['sh', '-c', 'while :; do :; done'],
    log_path: 'spin/0.log', labels: { ...podLabels, [LABELS.containerName]: 'spin' },
  }, sandbox);
  await cri.startContainer(id);
  // What the kubelet core would report: the API server only shows Running pods' metrics.
  await k.ok(['patch', 'pod', 'busy', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Running' } })]);

  const summary = async (): Promise<Summary> => {
    const r = await get('/stats/summary');
    t.equal(r.code, 200);
    return JSON.parse(r.body) as Summary;
  };
  const spin = (s: Summary) => s.pods.find((p) => p.podRef.name === 'busy')?.containers.find((c) => c.name === 'spin');
  await eventually(async () => (spin(await summary())?.cpu?.usageCoreNanoSeconds ?? 0) > 0, 30_000, 'the busy container has used CPU');
  const first = await summary();
  await eventually(async () => (spin(await summary())?.cpu?.usageCoreNanoSeconds ?? 0) > spin(first)!.cpu!.usageCoreNanoSeconds + 100e6, 30_000, 'its CPU grows by 100 ms more');
  const s = await summary();
  t.match(s.node, { nodeName: node, cpu: { usageCoreNanoSeconds: Number }, memory: { workingSetBytes: Number }, fs: { capacityBytes: Number, availableBytes: Number } });
  t.ok(s.node.memory!.workingSetBytes > 0 && s.node.fs!.capacityBytes! > 0, 'node memory and fs from the kernel');
  const pod = s.pods.find((p) => p.podRef.name === 'busy')!;
  t.match(pod, { podRef: { namespace: 'default', uid }, cpu: { usageCoreNanoSeconds: Number }, memory: { workingSetBytes: Number } });
  t.ok(spin(s)!.memory!.workingSetBytes > 0, 'the container has a working set');

  const metrics = await get('/metrics/resource');
  t.equal(metrics.code, 200);
  const samples = parseSamples(metrics.body);
  const cpu = samples.find((x) => x.name === 'container_cpu_usage_seconds_total' && x.labels.pod === 'busy');
  t.match(cpu, { labels: { container: 'spin', namespace: 'default', pod: 'busy' }, value: Number, timestamp: Number });
  t.ok(samples.some((x) => x.name === 'node_cpu_usage_seconds_total' && x.timestamp), 'node CPU with a timestamp');
  t.ok(samples.some((x) => x.name === 'pod_memory_working_set_bytes' && x.labels.pod === 'busy'));
  t.match(metrics.body, /# HELP container_cpu_usage_seconds_total \[STABLE\] Cumulative cpu time consumed by the container in core-seconds\n# TYPE container_cpu_usage_seconds_total counter\n/);

  // kubectl top: the busy loop uses most of a core (≥ 200m, on a loaded 2-core machine).
  let top = '';
  await eventually(async () => {
    const r = await k(['top', 'pods', '--containers']);
    top = r.stdout + r.stderr;
    const m = /\nbusy\s+spin\s+(\d+)m\s+(\d+)Mi/.exec(top);
    return !!m && Number(m[1]) >= 200;
  }, 60_000, 'kubectl top pods shows the busy container').catch((e: Error) => { throw new Error(`${e.message}; last: ${top}`); });
  t.match(top, /^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
  t.match(await k.ok(['top', 'pods', '-A']), /\ndefault\s+busy\s+\d+m\s+\d+Mi/);
  const nodes = await k.ok(['top', 'nodes']);
  t.match(nodes, new RegExp(`\\n${node}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%`), 'kubectl top nodes: usage and share of allocatable');
  const raw = JSON.parse(await k.ok(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/busy`]));
  t.match(raw, { kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'busy', namespace: 'default' }, timestamp: String, window: /^\d+(\.\d+)?s$/, containers: [{ name: 'spin', usage: { cpu: String, memory: String } }] });
  const missing = await k(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/absent']);
  t.match(missing.stderr, /NotFound|not found/);
});
