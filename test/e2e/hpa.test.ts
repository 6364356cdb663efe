// Horizontal pod autoscaling end to end: `capstan up` with hollow nodes, whose synthetic
// usage is steered by the hollow-only test hook `hollow.capstan.io/cpu-usage` (src/hollow/
// usage.ts), metrics.k8s.io scraping their kubelet API, and the HPA controller scaling a
// Deployment up when its pods' CPU is above target and back down when it falls. Driven by
// real kubectl: autoscale, get hpa, top pods.
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const deployment = (usage: string) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: {
    replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { 'hollow.capstan.io/cpu-usage': usage } },
      spec: { containers: [{ name: 'main', image: 'busybox', command: ['httpd', '-f'], resources: { requests: { cpu: '100m', memory: '32Mi' } } }] },
    },
  },
});

t.test('an HPA scales a Deployment up and back down on hollow nodes', { timeout: 420_000 }, async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '2', '--metric-resolution', '3s', '--horizontal-pod-autoscaler-sync-period', '3s']);
  const k = kubectlFor(t, up.kubeconfig);
  await eventually(async () => (await k.ok(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => /\sReady\s/.test(l)).length === 2, 60_000, 'two Ready nodes');

  await k.ok(['apply', '-f', '-'], deployment('90m'));
  await k.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
  // 90m of a 100m request: 90%, above a 50% target.
  let top = '';
  await eventually(async () => {
    const r = await k(['top', 'pods', '-l', 'app=web']);
    top = r.stdout + r.stderr;
    return /\nweb-\S+\s+90m\s+16Mi/.test(top);
  }, 60_000, 'kubectl top shows the hollow usage').catch((e: Error) => { throw new Error(`${e.message}; last: ${top}`); });

  // metrics.k8s.io reads are part of view (aggregated, as metrics-server's manifest does it).
  await k.ok(['create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice']);
  await eventually(async () => (await k(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', '--as=alice'])).stdout.trim() === 'yes', 30_000, 'view may list PodMetrics');
  t.match(await k.ok(['top', 'pods', '-l', 'app=web', '--as=alice']), /\nweb-\S+\s+90m/);

  await k.ok(['autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=4']);
  // Scale-down without the default 5-minute stabilisation window, so the test ends in time.
  await k.ok(['patch', 'hpa', 'web', '--type=merge', '-p', JSON.stringify({ spec: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } })]);

  await eventually(async () => JSON.parse(await k.ok(['get', 'deployment', 'web', '-o', 'json'])).spec.replicas === 4, 180_000, 'the HPA scales web up to its maximum of 4');
  const hpa = JSON.parse(await k.ok(['get', 'hpa', 'web', '-o', 'json']));
  t.match(hpa.status, { desiredReplicas: 4, lastScaleTime: String, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: Number } } }] });
  const conditions = Object.fromEntries(hpa.status.conditions.map((c: { type: string }) => [c.type, c]));
  t.match(conditions.AbleToScale, { status: 'True' });
  t.match(conditions.ScalingActive, { status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
  await eventually(async () => /\nweb\s+Deployment\/web\s+cpu: 9\d%\/50%\s+1\s+4\s+4\s/.test(await k.ok(['get', 'hpa'])), 60_000, 'kubectl get hpa shows 90%/50% with 4 replicas');
  const described = await k.ok(['describe', 'hpa', 'web']);
  t.match(described, /ScalingActive\s+True\s+ValidMetricFound/);
  t.match(described, /Normal\s+SuccessfulRescale\s+.*New size: \d; reason: cpu resource utilization \(percentage of request\) above target/);
  const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}']);
  t.match(events, /New size: \d; reason: cpu resource utilization \(percentage of request\) above target/);

  // The load drops: new pods use 10m (10%); the HPA scales back to its minimum.
  await k.ok(['patch', 'deployment', 'web', '--type=merge', '-p', JSON.stringify({ spec: { template: { metadata: { annotations: { 'hollow.capstan.io/cpu-usage': '10m' } } } } })]);
  await eventually(async () => JSON.parse(await k.ok(['get', 'deployment', 'web', '-o', 'json'])).spec.replicas === 1, 240_000, 'the HPA scales web back down to 1');
  const after = JSON.parse(await k.ok(['get', 'hpa', 'web', '-o', 'json']));
  t.equal(after.status.desiredReplicas, 1);
  const downEvents = await k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}']);
  t.match(downEvents, /reason: All metrics below target/);
});
