// Horizontal pod autoscaling on real load: a one-node `capstan lab` (a real kubelet on
// containerd in network namespaces), a Deployment of busybox pods with a 20m CPU request
// behind a Service, `kubectl autoscale` with real kubectl, and a busy loop started in one pod
// with `kubectl exec`. The CPU it burns reaches the HPA the way it does on any cluster: CRI
// container stats → the kubelet's /stats/summary → metrics.k8s.io (`kubectl top`) → the HPA
// controller, which scales the Deployment up; when the loop is killed it scales back down.
// The lab's control plane runs with shorter (upstream) metric and HPA sync periods so the
// test does not wait a minute per step; nothing else differs from a default cluster.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const run = promisify(execFile);
const root = process.getuid?.() === 0;

const manifest = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: httpd
        image: localhost/capstan/busybox:1
        command: [httpd, -f, -p, '8080', -h, /etc]
        ports: [{containerPort: 8080}]
        resources: {requests: {cpu: 20m, memory: 16Mi}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;

interface Hpa {
  status?: {
    currentReplicas?: number; desiredReplicas: number; lastScaleTime?: string;
    currentMetrics?: { type: string; resource?: { name: string; current: { averageUtilization?: number } } }[];
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

t.test('an HPA scales a Deployment on real CPU load in a lab', { skip: root ? false : 'needs root', timeout: 900_000 }, async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'capstan-lab-hpa-'));
  const dir = join(parent, 'lab');
  t.teardown(async () => {
    await run(process.execPath, [capstanBin, 'lab', 'down', '--dir', dir], { timeout: 120_000 }).catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
  });
  const up = await run(process.execPath, [capstanBin, 'lab', 'up', '--nodes', '1', '--subnets', '1', '--dir', dir,
    '--metric-resolution', '5s', '--horizontal-pod-autoscaler-sync-period', '5s'], { timeout: 300_000 })
    .catch((e: Error & { stderr?: string }) => { throw new Error(`lab up failed: ${e.message}\n${e.stderr ?? ''}`); });
  const k = kubectlFor(t, /export KUBECONFIG=(\S+)/.exec(up.stdout)![1]!);
  const hpa = async () => JSON.parse(await k.ok(['get', 'hpa', 'web', '-o', 'json'])) as Hpa;
  const condition = (h: Hpa, type: string) => h.status?.conditions?.find((c) => c.type === type);
  const replicas = async () => JSON.parse(await k.ok(['get', 'deployment', 'web', '-o', 'json'])) as { spec: { replicas: number }; status: { readyReplicas?: number } };
  const diagnose = async () => (await k(['describe', 'hpa,deployment', 'web'])).stdout + (await k(['top', 'pods', '--no-headers'])).stdout + (await k(['get', 'pods', '-o', 'wide'])).stdout;
  const waitOr = async (check: () => Promise<boolean>, ms: number, what: string) =>
    eventually(check, ms, what).catch(async (e: Error) => { throw new Error(`${e.message}\n${await diagnose()}`); });

  await k.ok(['apply', '-f', '-'], manifest);
  const rollout = await k(['rollout', 'status', 'deployment/web', '--timeout=180s']);
  t.equal(rollout.code, 0, `web is available ${rollout.stderr}`);
  const pod = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();

  await k.ok(['autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=3']);
  // Scale-down without the default 5-minute stabilisation window, so the test ends in time.
  await k.ok(['patch', 'hpa', 'web', '--type=merge', '-p', JSON.stringify({ spec: { behavior: { scaleDown: { stabilizationWindowSeconds: 10 } } } })]);

  await t.test('idle: the HPA finds the metric and keeps one replica', async (t) => {
    await waitOr(async () => condition(await hpa(), 'ScalingActive')?.status === 'True', 180_000, 'the HPA reads the pods\' CPU');
    const h = await hpa();
    t.match(condition(h, 'ScalingActive'), { reason: 'ValidMetricFound' });
    t.ok((h.status?.currentMetrics?.[0]?.resource?.current.averageUtilization ?? 100) < 50, 'an idle httpd is below 50% of 20m');
    t.equal(h.status?.desiredReplicas, 1);
    t.equal((await replicas()).spec.replicas, 1);
  });

  await t.test('a busy loop in one pod: kubectl top shows it and the HPA scales up to 3', async (t) => {
    // Detached from the exec session (no open stdio), so it outlives `kubectl exec`.
    await k.ok(['exec', pod, '--', 'sh', '-c', 'sh -c "while :; do :; done" </dev/null >/dev/null 2>&1 & echo $! > /tmp/burn.pid']);
    let top = '';
    await waitOr(async () => {
      top = await k.ok(['top', 'pod', pod, '--no-headers']);
      const m = /\s(\d+)m\s/.exec(top);
      return !!m && Number(m[1]) >= 100;
    }, 120_000, 'kubectl top shows the busy pod above 100m');
    t.match(top, new RegExp(`^${pod}\\s+\\d+m\\s+\\d+Mi`), `kubectl top: ${top.trim()}`);

    await waitOr(async () => (await replicas()).spec.replicas === 3, 240_000, 'the HPA scales web to its maximum of 3');
    await waitOr(async () => (await replicas()).status.readyReplicas === 3, 180_000, 'three web pods Ready');
    await waitOr(async () => (await hpa()).status?.currentReplicas === 3, 60_000, 'the HPA sees 3 replicas');
    const h = await hpa();
    t.equal(h.status?.desiredReplicas, 3);
    t.ok(h.status?.lastScaleTime, 'lastScaleTime is set');
    t.ok((h.status?.currentMetrics?.[0]?.resource?.current.averageUtilization ?? 0) > 50, 'average utilisation over 3 pods is still above 50%');
    t.match(condition(h, 'AbleToScale'), { status: 'True' });
    t.match(condition(h, 'ScalingActive'), { status: 'True', reason: 'ValidMetricFound' });
    t.match(condition(h, 'ScalingLimited'), { status: 'True', reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' });
    t.match(await k.ok(['get', 'hpa', 'web']), /\nweb\s+Deployment\/web\s+cpu: \d+%\/50%\s+1\s+3\s+3\s/, 'kubectl get hpa');
    const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}']);
    t.match(events, /New size: 3; reason: cpu resource utilization \(percentage of request\) above target/);
  });

  await t.test('the loop is killed: the HPA scales back down to 1', async (t) => {
    await k.ok(['exec', pod, '--', 'sh', '-c', 'kill $(cat /tmp/burn.pid)']);
    await waitOr(async () => (await replicas()).spec.replicas === 1, 300_000, 'the HPA scales web back to 1');
    await waitOr(async () => (await k.ok(['get', 'pods', '-l', 'app=web', '--no-headers'])).trim().split('\n').length === 1, 120_000, 'one web pod left');
    const h = await hpa();
    t.equal(h.status?.desiredReplicas, 1);
    t.ok((h.status?.currentMetrics?.[0]?.resource?.current.averageUtilization ?? 100) < 50, 'utilisation below target');
    await waitOr(async () => /\nweb\s+Deployment\/web\s+cpu: \d+%\/50%\s+1\s+3\s+1\s/.test(await k.ok(['get', 'hpa', 'web'])), 60_000, 'kubectl get hpa shows 1 replica');
    const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}']);
    t.match(events, /New size: 1; reason: All metrics below target/);
  });
});
