// POST pods/NAME/eviction against a real API server (no controllers: the tests write the
// budget's status as the disruption controller would): 201 and a spent disruption, 429 with
// upstream's message and cause, dry runs, pods that need no budget, and concurrent evictions
// that never spend one disruption twice.
import t from 'tap';
import { startAPIServer, fixtures } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const ns = '/api/v1/namespaces/default';
const pdbPath = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

async function runningPod(name: string, labels = { app: 'web' }, phase = 'Running'): Promise<void> {
  const created = await c.post(`${ns}/pods`, fixtures.pod(name, { metadata: { labels }, spec: { nodeName: 'n1' } }));
  if (created.status !== 201) throw new Error(created.text);
  const pod = created.body;
  const r = await c.put(`${ns}/pods/${name}/status`, { ...pod, status: { phase, conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }] } });
  if (r.status !== 200) throw new Error(r.text);
}

async function budget(name: string, status: Record<string, unknown>, spec: Record<string, unknown> = { minAvailable: 2, selector: { matchLabels: { app: 'web' } } }) {
  let pdb = (await c.get(`${pdbPath}/${name}`)).body;
  if (pdb.kind !== 'PodDisruptionBudget') pdb = (await c.post(pdbPath, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec })).body;
  const r = await c.put(`${pdbPath}/${name}/status`, { ...pdb, status: { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, observedGeneration: pdb.metadata.generation, ...status } });
  if (r.status !== 200) throw new Error(r.text);
  return r.body;
}

const evict = (name: string, deleteOptions?: object) =>
  c.post(`${ns}/pods/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...(deleteOptions ? { deleteOptions } : {}) });

await runningPod('a');
await runningPod('b');
await runningPod('c');

t.test('an allowed eviction spends a disruption, marks the pod and deletes it', async (t) => {
  await budget('pdb', { disruptionsAllowed: 1 });
  const r = await evict('a');
  t.equal(r.status, 201, r.text);
  t.match(r.body, { kind: 'Status', status: 'Success' });
  const pod = (await c.get(`${ns}/pods/a`)).body;
  t.ok(pod.metadata.deletionTimestamp, 'the pod is terminating');
  t.match(pod.status.conditions, [{ type: 'Ready' }, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }]);
  const pdb = (await c.get(`${pdbPath}/pdb`)).body;
  t.equal(pdb.status.disruptionsAllowed, 0);
  t.ok(pdb.status.disruptedPods.a, 'the pod is recorded as going');
  t.match(pdb.status.conditions, [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }]);
});

t.test('an eviction the budget does not allow is 429 with upstream\'s message and cause', async (t) => {
  const r = await evict('b');
  t.equal(r.status, 429);
  t.match(r.body, {
    kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429,
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb needs 2 healthy pods and has 3 currently' }] },
  });
  t.notOk((await c.get(`${ns}/pods/b`)).body.metadata.deletionTimestamp, 'the pod stays');
});

t.test('a dry run checks the budget and changes nothing', async (t) => {
  const before = await budget('pdb', { disruptionsAllowed: 1, disruptedPods: null });
  const r = await evict('b', { dryRun: ['All'] });
  t.equal(r.status, 201, r.text);
  const pod = (await c.get(`${ns}/pods/b`)).body;
  t.notOk(pod.metadata.deletionTimestamp);
  t.notOk(pod.status.conditions.some((x: { type: string }) => x.type === 'DisruptionTarget'));
  t.equal((await c.get(`${pdbPath}/pdb`)).body.metadata.resourceVersion, before.metadata.resourceVersion, 'the budget is not written');
  const mismatch = await c.post(`${ns}/pods/b/eviction?dryRun=All`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'b' }, deleteOptions: { dryRun: [] } });
  t.equal(mismatch.status, 201, 'the query alone makes a dry run');
  t.notOk((await c.get(`${ns}/pods/b`)).body.metadata.deletionTimestamp);
});

t.test('a budget not yet observed for its generation is 429 with Retry-After', async (t) => {
  const pdb = (await c.get(`${pdbPath}/pdb`)).body;
  await c.put(`${pdbPath}/pdb`, { ...pdb, spec: { ...pdb.spec, minAvailable: 1 } });
  const r = await evict('b');
  t.equal(r.status, 429);
  t.equal(r.headers['retry-after'], '10');
  t.match(r.body.details, { retryAfterSeconds: 10, causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb is still being processed by the server.' }] });
});

t.test('two evictions at once spend one disruption', async (t) => {
  await budget('pdb', { disruptionsAllowed: 1, disruptedPods: null });
  const [x, y] = await Promise.all([evict('b'), evict('c')]);
  t.same([x.status, y.status].sort(), [201, 429]);
  t.equal((await c.get(`${pdbPath}/pdb`)).body.status.disruptionsAllowed, 0);
});

t.test('pods a budget need not protect, and the errors', async (t) => {
  await runningPod('pending', { app: 'web' }, 'Pending');
  const r = await evict('pending');
  t.equal(r.status, 201, 'a Pending pod goes without a disruption');
  t.equal((await c.get(`${pdbPath}/pdb`)).body.status.disruptionsAllowed, 0);

  const wrong = await c.post(`${ns}/pods/b/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } });
  t.equal(wrong.status, 400);
  t.match(wrong.body.message, 'name in URL does not match name in Eviction object');
  t.equal((await evict('missing')).status, 404);

  await runningPod('lone', { app: 'lone' });
  t.equal((await evict('lone')).status, 201, 'no budget covers it');

  await runningPod('twice', { app: 'twice' });
  await budget('t1', { disruptionsAllowed: 1 }, { minAvailable: 1, selector: { matchLabels: { app: 'twice' } } });
  await budget('t2', { disruptionsAllowed: 1 }, { maxUnavailable: 1, selector: { matchLabels: { app: 'twice' } } });
  const both = await evict('twice');
  t.equal(both.status, 500);
  t.match(both.body.message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
});

t.test('budgets are validated as upstream', async (t) => {
  const r = await c.post(pdbPath, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'bad' }, spec: { minAvailable: '5', maxUnavailable: -1, unhealthyPodEvictionPolicy: 'Sometimes' } });
  t.equal(r.status, 422);
  t.match(r.body.message, 'spec.minAvailable: Invalid value: "5": minAvailable and maxUnavailable cannot be both set');
  t.match(r.body.message, 'spec.minAvailable: Invalid value: "5": a valid percent string must be a numeric string followed by an ending \'%\'');
  t.match(r.body.message, 'spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0');
  t.match(r.body.message, 'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"');
  const created = await c.post(pdbPath, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'fresh' }, spec: { maxUnavailable: '25%', selector: { matchLabels: { app: 'none' } } } });
  t.equal(created.status, 201, created.text);
  t.same(created.body.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }, 'a new budget allows nothing until counted');
});

t.test('a not-ready pod: AlwaysAllow evicts it without spending; IfHealthyBudget only when the budget is healthy without it', async (t) => {
  await runningPod('sick', { app: 'sick' });
  const sick = (await c.get(`${ns}/pods/sick`)).body;
  await c.put(`${ns}/pods/sick/status`, { ...sick, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } });
  const spec = { minAvailable: 1, selector: { matchLabels: { app: 'sick' } } };
  await budget('sick', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 1 }, spec);
  t.equal((await evict('sick')).status, 429, 'IfHealthyBudget: the budget is not healthy, so the unready pod is protected');
  const pdb = (await c.get(`${pdbPath}/sick`)).body;
  await c.put(`${pdbPath}/sick`, { ...pdb, spec: { ...spec, unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
  await budget('sick', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 1 }, spec);
  const r = await evict('sick');
  t.equal(r.status, 201, r.text);
  t.ok((await c.get(`${ns}/pods/sick`)).body.metadata.deletionTimestamp, 'the unready pod is going');
  t.equal((await c.get(`${pdbPath}/sick`)).body.status.disruptionsAllowed, 0, 'nothing spent');
});
