// The control plane end to end: `capstan up` with hollow nodes, driven by real kubectl.
import t from 'tap';
import { spawn } from 'node:child_process';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 10
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2, maxSurge: 3}}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: ${image}}
`;

t.test('capstan up with hollow nodes runs Deployments end to end', async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '3']);
  const k = kubectlFor(t, up.kubeconfig);

  await t.test('a Deployment of 10 spreads over the nodes and runs', async (t) => {
    await eventually(async () => (await k.ok(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => /\sReady\s/.test(l)).length === 3, 60_000, 'three Ready nodes');
    await k.ok(['apply', '-f', '-'], deployment('localhost/capstan/busybox:1'));
    await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    const pods = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\\n"}{end}'])).trim().split('\n');
    t.equal(pods.length, 10);
    t.ok(pods.every((p) => p.endsWith(' Running')), 'all Running');
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.split(' ')[0], (perNode.get(p.split(' ')[0]) ?? 0) + 1);
    t.equal(perNode.size, 3, `spread over every node: ${JSON.stringify([...perNode])}`);
    t.ok([...perNode.values()].every((n) => n >= 2 && n <= 5), 'roughly even');
  });

  await t.test('a rolling update keeps availability above replicas - maxUnavailable, and undo restores', async (t) => {
    let minAvailable = Infinity;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const r = await k(['get', 'deploy', 'web', '-o', 'jsonpath={.status.availableReplicas}']);
        if (r.code === 0 && r.stdout) minAvailable = Math.min(minAvailable, Number(r.stdout));
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    await k.ok(['set', 'image', 'deploy/web', 'web=localhost/capstan/busybox:2']);
    await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    sampling = false;
    await sampler;
    t.ok(minAvailable >= 8, `available never below 10 - 2 (min seen ${minAvailable})`);
    const history = await k.ok(['rollout', 'history', 'deploy/web']);
    t.match(history, /^1\s/m);
    t.match(history, /^2\s/m);
    await k.ok(['rollout', 'undo', 'deploy/web']);
    await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    t.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'localhost/capstan/busybox:1');
    // Pods of the replaced ReplicaSet may still be terminating for a moment.
    await eventually(async () => {
      const images = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{"\\n"}{end}'])).trim().split('\n');
      return images.length === 10 && images.every((i) => i === 'localhost/capstan/busybox:1');
    }, 30_000, 'every pod back on the old image');
    const rs = (await k.ok(['get', 'rs', '-l', 'app=web', '--no-headers'])).trim().split('\n');
    t.equal(rs.length, 2, `undo reuses the first ReplicaSet instead of making a third: ${rs.join(' | ')}`);
  });

  await t.test('deleting the Deployment removes its ReplicaSets and Pods', async (t) => {
    await k.ok(['delete', 'deploy', 'web']);
    await eventually(async () => (await k.ok(['get', 'rs,pods', '-l', 'app=web', '-o', 'name'])).trim() === '', 60_000, 'ReplicaSets and Pods gone');
    t.pass('nothing left');
  });

  await t.test('a Service gets EndpointSlices of the ready pods', async (t) => {
    await k.ok(['apply', '-f', '-'], deployment('localhost/capstan/busybox:1').replace('replicas: 10', 'replicas: 3'));
    await k.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n');
    await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    await eventually(async () => {
      const addrs = (await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={range .items[*].endpoints[*]}{.addresses[0]} {.conditions.ready}{"\\n"}{end}'])).trim().split('\n').filter(Boolean);
      return addrs.length === 3 && addrs.every((a) => a.endsWith(' true'));
    }, 30_000, 'three ready endpoints');
    const podIPs = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.podIP}'])).split(' ').sort();
    const sliceIPs = (await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}'])).split(' ').sort();
    t.same(sliceIPs, podIPs);
  });
});

t.test('a node whose kubelet goes silent is tainted and its pods are recreated elsewhere', async (t) => {
  const up = await startCapstanUp(t, ['--node-monitor-grace-period', '4s', '--pod-eviction-timeout', '3s', '--default-not-ready-toleration-seconds', '3', '--default-unreachable-toleration-seconds', '3']);
  const k = kubectlFor(t, up.kubeconfig);
  // Hollow nodes as their own process, with a control port to silence one node.
  const hollow = spawn(process.execPath, [capstanBin, 'hollow-nodes', '--kubeconfig', up.kubeconfig, '--count', '3', '--heartbeat-interval', '1s', '--control-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => hollow.once('exit', () => r()));
  t.teardown(async () => { if (hollow.exitCode === null) { hollow.kill('SIGTERM'); await exited; } });
  hollow.stderr!.resume();
  const controlPort = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`hollow nodes did not start: ${out}`)), 60_000);
    hollow.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /control on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
  });
  await eventually(async () => (await k.ok(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => /\sReady\s/.test(l)).length === 3, 60_000, 'three Ready nodes');
  await k.ok(['apply', '-f', '-'], deployment('localhost/capstan/busybox:1').replace('replicas: 10', 'replicas: 6'));
  await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
  const onNode = async (node: string) => (await k.ok(['get', 'pods', '-l', 'app=web', '--field-selector', `spec.nodeName=${node}`, '-o', 'name'])).trim().split('\n').filter(Boolean);
  const victims = await onNode('hollow-1');
  t.ok(victims.length > 0, `hollow-1 runs ${victims.length} pods`);

  const r = await fetch(`http://127.0.0.1:${controlPort}/nodes/hollow-1/stop-heartbeat`, { method: 'POST' });
  t.equal(r.status, 200);
  await eventually(async () => /NotReady/.test(await k.ok(['get', 'node', 'hollow-1', '--no-headers'])), 30_000, 'hollow-1 NotReady');
  t.match(await k.ok(['get', 'node', 'hollow-1', '-o', 'jsonpath={.spec.taints[*].key}']), /node\.kubernetes\.io\/unreachable/);
  await eventually(async () => {
    const pods = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.metadata.deletionTimestamp}{"\\n"}{end}'])).trim().split('\n');
    const live = pods.filter((p) => p.split(' ')[2] === 'Running' && !p.split(' ')[3] && p.split(' ')[1] !== 'hollow-1');
    return live.length === 6;
  }, 60_000, 'six Running pods on the remaining nodes');
  // Evicted: gone, or terminating until the grace period passes (no kubelet will confirm).
  for (const v of victims) {
    const r = await k(['get', v, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
    t.ok(r.code !== 0 || r.stdout.trim() !== '', `${v} evicted`);
  }
});
