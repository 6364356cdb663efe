// Inter-pod anti-affinity, topology spread and preemption end to end: `capstan up` with three
// hollow nodes (hollow kubelets run the pods' lifecycle), driven by real kubectl.
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const lines = (s: string) => s.trim().split('\n').filter(Boolean);

function deployment(name: string, replicas: number, podSpecExtra: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
${podSpecExtra}
      containers:
      - {name: main, image: localhost/capstan/busybox:1, resources: {requests: {cpu: 10m}}}
`;
}

t.test('anti-affinity, topology spread and preemption on hollow nodes', async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '3']);
  const k = kubectlFor(t, up.kubeconfig);
  await eventually(async () => lines(await k.ok(['get', 'nodes', '--no-headers'])).filter((l) => /\sReady\s/.test(l)).length === 3, 60_000, 'three Ready nodes');
  const nodes = lines(await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'])).sort();
  const pods = async (app: string) => lines(await k.ok(['get', 'pods', '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase}{"\\n"}{end}']))
    .map((l) => { const [name, node, phase] = l.split(' '); return { name, node: phase ? node : '', phase: phase ?? node }; });

  await t.test('required anti-affinity puts one replica per node and leaves the fourth Pending with the reason', async (t) => {
    await k.ok(['apply', '-f', '-'], deployment('solo', 4, `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: solo}}
            topologyKey: kubernetes.io/hostname`));
    await eventually(async () => (await pods('solo')).filter((p) => p.phase === 'Running').length === 3, 120_000, 'three Running');
    const all = await pods('solo');
    t.same(all.filter((p) => p.node).map((p) => p.node).sort(), nodes, 'one on each node');
    const pending = all.find((p) => !p.node)!;
    t.equal(pending.phase, 'Pending');
    const message = '0/3 nodes are available: 3 node(s) didn\'t match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    await eventually(async () => (await k.ok(['get', 'pod', pending.name, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])) === message, 30_000, 'PodScheduled message');
    t.match(await k.ok(['get', 'pod', pending.name, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].reason}']), 'Unschedulable');
    t.match(await k.ok(['describe', 'pod', pending.name]), /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 3 node\(s\) didn't match pod anti-affinity rules/);
    await k.ok(['delete', 'deployment', 'solo', '--wait=false']);
  });

  await t.test('topologySpreadConstraints spread a Deployment over zone-labelled nodes', async (t) => {
    await k.ok(['label', 'node', nodes[0], nodes[1], 'topology.kubernetes.io/zone=zone-a']);
    await k.ok(['label', 'node', nodes[2], 'topology.kubernetes.io/zone=zone-b']);
    await k.ok(['apply', '-f', '-'], deployment('spread', 6, `      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: spread}}`));
    await k.ok(['rollout', 'status', 'deploy/spread', '--timeout=120s']);
    const placed = await pods('spread');
    const inB = placed.filter((p) => p.node === nodes[2]).length;
    t.equal(placed.length, 6);
    t.equal(inB, 3, `three in zone-b's one node, three over zone-a's two: ${JSON.stringify(placed)}`);
    await k.ok(['delete', 'deployment', 'spread', '--wait=false']);
  });

  await t.test('a high-priority pod preempts a low-priority one', async (t) => {
    await k.ok(['create', 'priorityclass', 'low', '--value=100']);
    await k.ok(['create', 'priorityclass', 'high', '--value=1000', '--description=preempts low']);
    const big = (name: string, priorityClass: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {test: preemption}}
spec:
  priorityClassName: ${priorityClass}
  nodeSelector: {kubernetes.io/hostname: ${nodes[0]}}
  terminationGracePeriodSeconds: 1
  containers:
  - {name: main, image: localhost/capstan/busybox:1, resources: {requests: {cpu: '3'}}}
`;
    await k.ok(['apply', '-f', '-'], big('victim', 'low'));
    await eventually(async () => (await k.ok(['get', 'pod', 'victim', '-o', 'jsonpath={.status.phase}'])) === 'Running', 60_000, 'victim Running');
    t.equal(await k.ok(['get', 'pod', 'victim', '-o', 'jsonpath={.spec.priority}']), '100');
    await k.ok(['apply', '-f', '-'], big('preemptor', 'high'));
    await eventually(async () => (await k(['get', 'pod', 'victim'])).code !== 0, 60_000, 'victim gone');
    await eventually(async () => (await k.ok(['get', 'pod', 'preemptor', '-o', 'jsonpath={.spec.nodeName} {.status.phase}'])) === `${nodes[0]} Running`, 60_000, 'preemptor Running where the victim was');
    const events = await k.ok(['get', 'events', '--field-selector', 'reason=Preempted', '-o', 'jsonpath={range .items[*]}{.involvedObject.name} {.type} {.message}{"\\n"}{end}']);
    const uid = await k.ok(['get', 'pod', 'preemptor', '-o', 'jsonpath={.metadata.uid}']);
    t.equal(events.trim(), `victim Normal Preempted by pod ${uid} on node ${nodes[0]}`);
  });
});
