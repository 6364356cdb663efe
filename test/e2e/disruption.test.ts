// PodDisruptionBudgets, evictions and `kubectl drain` end to end: `capstan up` with two hollow
// nodes (hollow kubelets run the pods' lifecycle), driven by real kubectl.
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: localhost/capstan/busybox:1}
      volumes:
      - {name: scratch, emptyDir: {}}
`;

const lines = (s: string) => s.trim().split('\n').filter(Boolean);

t.test('a PodDisruptionBudget holds while kubectl drain empties a node', async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '2']);
  const k = kubectlFor(t, up.kubeconfig);
  await eventually(async () => lines(await k.ok(['get', 'nodes', '--no-headers'])).filter((l) => /\sReady\s/.test(l)).length === 2, 60_000, 'two Ready nodes');
  const nodes = lines(await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'])).sort();
  const webPods = async () => lines(await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.metadata.deletionTimestamp}{"\\n"}{end}']))
    .map((l) => { const [name, node, phase, deleting] = l.split(' '); return { name, node, phase, deleting: !!deleting }; });
  const allowed = async () => k.ok(['get', 'pdb', 'web', '-o', 'jsonpath={.status.disruptionsAllowed}']);

  await t.test('kubectl create pdb; the controller computes its status', async (t) => {
    await k.ok(['apply', '-f', '-'], deployment);
    await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    t.match(await k.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=2']), /poddisruptionbudget.policy\/web created/);
    await eventually(async () => (await allowed()) === '1', 60_000, 'one disruption allowed');
    t.match(await k.ok(['get', 'pdb']), /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb\s+2\s+N\/A\s+1\s+\S+\n$/);
    const status = JSON.parse(await k.ok(['get', 'pdb', 'web', '-o', 'jsonpath={.status}']));
    t.match(status, { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1, observedGeneration: 1, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }] });
    t.match(await k.ok(['api-resources', '--api-group=policy']), /^poddisruptionbudgets\s+pdb\s+policy\/v1\s+true\s+PodDisruptionBudget$/m);
    const bad = await k(['create', 'pdb', 'both', '--selector=app=web', '--min-available=1', '--max-unavailable=1']);
    t.not(bad.code, 0, 'kubectl itself refuses both bounds');
    const invalid = await k(['apply', '-f', '-'], 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: both}\nspec: {minAvailable: 1, maxUnavailable: "150%", selector: {matchLabels: {app: web}}}\n');
    t.match(invalid.stderr, /spec.minAvailable: Invalid value: 1: minAvailable and maxUnavailable cannot be both set/);
    t.match(invalid.stderr, /spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%/);
  });

  await t.test('kubectl drain --dry-run=server evicts nothing and leaves the node schedulable', async (t) => {
    const before = (await webPods()).map((p) => p.name).sort();
    const out = await k.ok(['drain', nodes[1], '--ignore-daemonsets', '--delete-emptydir-data', '--dry-run=server']);
    t.match(out, new RegExp(`node/${nodes[1]} cordoned \\(server dry run\\)`));
    t.match(out, new RegExp(`node/${nodes[1]} drained \\(server dry run\\)`));
    t.equal(await k.ok(['get', 'node', nodes[1], '-o', 'jsonpath={.spec.unschedulable}']), '');
    t.same((await webPods()).map((p) => p.name).sort(), before, 'every pod still there');
    t.equal(await allowed(), '1', 'nothing spent from the budget');
  });

  await t.test('an eviction that would violate the budget is refused with 429', async (t) => {
    await k.ok(['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":3}}']);
    await eventually(async () => (await allowed()) === '0', 60_000, 'no disruption allowed');
    const [victim] = await webPods();
    const body = JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim.name, namespace: 'default' } });
    const refused = await k(['create', '--raw', `/api/v1/namespaces/default/pods/${victim.name}/eviction`, '-f', '-'], body);
    t.not(refused.code, 0);
    t.match(refused.stderr, /Error from server \(TooManyRequests\): Cannot evict pod as it would violate the pod's disruption budget\./);
    t.ok((await webPods()).some((p) => p.name === victim.name && !p.deleting), 'the pod stays');
    await k.ok(['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":2}}']);
    await eventually(async () => (await allowed()) === '1', 60_000, 'one disruption allowed again');
  });

  await t.test('kubectl drain evicts within the budget and finishes once replacements are Ready elsewhere', async (t) => {
    // Three pods on two nodes: one node holds at least two, more than the budget lets go at once.
    const pods = await webPods();
    const busiest = nodes.map((n) => ({ n, count: pods.filter((p) => p.node === n).length })).sort((a, b) => b.count - a.count)[0];
    t.ok(busiest.count >= 2);
    const other = nodes.find((n) => n !== busiest.n)!;
    const drain = await k(['drain', busiest.n, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=240s']);
    t.equal(drain.code, 0, 'kubectl drain succeeds', { stderr: drain.stderr });
    const out = drain.stdout + drain.stderr;
    t.match(out, new RegExp(`node/${busiest.n} cordoned`));
    t.match(out, /evicting pod default\/web-/);
    t.match(out, /error when evicting pods\/"web-[^"]+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./, 'an eviction was refused while it would violate');
    t.match(out, new RegExp(`node/${busiest.n} drained`));
    t.equal(await k.ok(['get', 'node', busiest.n, '-o', 'jsonpath={.spec.unschedulable}']), 'true');
    await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    const after = (await webPods()).filter((p) => !p.deleting);
    t.same(after.map((p) => p.node), [other, other, other], 'every pod runs on the other node');
    await eventually(async () => (await allowed()) === '1', 60_000, 'the budget recovers');
    t.match(await k.ok(['uncordon', busiest.n]), new RegExp(`node/${busiest.n} uncordoned`));
    t.equal(await k.ok(['get', 'node', busiest.n, '-o', 'jsonpath={.spec.unschedulable}']), '');
  });
});
