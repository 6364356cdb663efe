// The built-in admission plugins through the real API server (SQLite): LimitRanger,
// DefaultTolerationSeconds, Priority, ResourceQuota and PodSecurity on every write path
// that reaches them (create, dry run, server-side apply, subresources), in upstream's words.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
let n = 0;

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  const name = `adm-${++n}`;
  const res = await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  if (res.status !== 201) throw new Error(res.text);
  return name;
}

t.test('LimitRanger: defaults, the annotation, and min/max refused in upstream\'s words', async (t) => {
  const ns = await namespace();
  const lr = await c.post(`/api/v1/namespaces/${ns}/limitranges`, {
    apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' },
    spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '250m' }, max: { cpu: '1' }, min: { cpu: '100m' } }] },
  });
  t.equal(lr.status, 201, lr.text);
  t.strictSame(lr.body.spec.limits[0].defaultRequest, { cpu: '250m', memory: '128Mi' }, 'defaultRequest defaults to the default limit, as upstream');

  const pod = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('web'));
  t.equal(pod.status, 201, pod.text);
  t.strictSame(pod.body.spec.containers[0].resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '128Mi' } });
  t.equal(pod.body.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container main; cpu, memory limit for container main');

  const own = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('own', { spec: { containers: [{ name: 'main', image: 'busybox', resources: { limits: { cpu: '800m' } } }] } }));
  t.equal(own.status, 201, own.text);
  t.strictSame(own.body.spec.containers[0].resources, { limits: { cpu: '800m', memory: '128Mi' }, requests: { cpu: '800m', memory: '128Mi' } }, 'a limit alone is also the request (pod defaulting, before admission)');

  const big = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('big', { spec: { containers: [{ name: 'main', image: 'busybox', resources: { limits: { cpu: '2' } } }] } }));
  t.equal(big.status, 403);
  t.equal(big.body.reason, 'Forbidden');
  t.equal(big.body.message, 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');

  const small = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('small', { spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '50m' } } }] } }));
  t.equal(small.body.message, 'pods "small" is forbidden: minimum cpu usage per Container is 100m, but request is 50m');

  const bad = await c.post(`/api/v1/namespaces/${ns}/limitranges`, {
    apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'bad' }, spec: { limits: [{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' }, default: { cpu: '1' } }] },
  });
  t.equal(bad.status, 422);
  t.match(bad.body.message, /spec\.limits\[0\]\.default: Forbidden: may not be specified when `type` is 'Pod'/);
  t.match(bad.body.message, /spec\.limits\[0\]\.min\[cpu\]: Invalid value: "2": min value 2 is greater than max value 1/);
});

t.test('DefaultTolerationSeconds and Priority on a new pod', async (t) => {
  const ns = await namespace();
  const pod = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('p', { spec: { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }] } }));
  t.equal(pod.status, 201, pod.text);
  t.strictSame(pod.body.spec.tolerations, [
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ], 'only the one it does not tolerate yet');
  t.equal(pod.body.spec.priority, 0);
  t.equal(pod.body.spec.preemptionPolicy, 'PreemptLowerPriority');

  const system = await c.get('/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical');
  t.equal(system.body.value, 2000001000, 'the system classes exist from the start');

  const pc = await c.post('/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' });
  t.equal(pc.status, 201, pc.text);
  const high = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('high', { spec: { priorityClassName: 'high' } }));
  t.equal(high.body.spec.priority, 1000);
  t.equal(high.body.spec.preemptionPolicy, 'Never');

  const missing = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('nope', { spec: { priorityClassName: 'nope' } }));
  t.equal(missing.status, 403);
  t.equal(missing.body.message, 'pods "nope" is forbidden: no PriorityClass with name nope was found');
  const own = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('own', { spec: { priority: 7 } }));
  t.equal(own.body.message, 'pods "own" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name');

  const def = await c.post('/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'default' }, value: 50, globalDefault: true });
  t.equal(def.status, 201, def.text);
  const second = await c.post('/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'default2' }, value: 60, globalDefault: true });
  t.equal(second.status, 403);
  t.equal(second.body.message, 'priorityclasses.scheduling.k8s.io "default2" is forbidden: PriorityClass default is already marked as default. Only one default can exist');
  const defaulted = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('defaulted'));
  t.equal(defaulted.body.spec.priorityClassName, 'default');
  t.equal(defaulted.body.spec.priority, 50);
  const tooHigh = await c.post('/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'huge' }, value: 2000000000 });
  t.equal(tooHigh.status, 422);
  await c.delete('/apis/scheduling.k8s.io/v1/priorityclasses/default');
});

t.test('ResourceQuota: status unknown, charged on admission, exceeded in upstream\'s words; dry runs are checked but not charged', async (t) => {
  const ns = await namespace();
  const q = await c.post(`/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '1', configmaps: '5' } } });
  t.equal(q.status, 201, q.text);
  t.equal(q.body.status, undefined, 'status is the controller\'s');
  const early = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('early'));
  t.equal(early.status, 403);
  t.equal(early.body.message, 'pods "early" is forbidden: status unknown for quota: q, resource: pods');

  // What the quota controller would write (no controller-manager runs here).
  const st = await c.put(`/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...q.body, status: { hard: { pods: '1', configmaps: '5' }, used: { pods: '0', configmaps: '0' } } });
  t.equal(st.status, 200, st.text);

  const dry = await c.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, fixtures.pod('dry'));
  t.equal(dry.status, 201, dry.text);
  t.equal((await c.get(`/api/v1/namespaces/${ns}/resourcequotas/q`)).body.status.used.pods, '0', 'a dry run is not charged');

  t.equal((await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('one'))).status, 201);
  t.equal((await c.get(`/api/v1/namespaces/${ns}/resourcequotas/q`)).body.status.used.pods, '1', 'charged at admission');
  const two = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('two'));
  t.equal(two.status, 403);
  t.equal(two.body.message, 'pods "two" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
  const dryTwo = await c.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, fixtures.pod('two'));
  t.equal(dryTwo.status, 403, 'a dry run is refused the same way');
  const applied = await c.patch(`/api/v1/namespaces/${ns}/pods/three?fieldManager=test`, fixtures.pod('three'), { contentType: 'application/apply-patch+yaml' });
  t.equal(applied.status, 403, 'server-side apply that creates is admitted as a create');
  t.equal((await c.post(`/api/v1/namespaces/${ns}/configmaps`, fixtures.configMap('cm'))).status, 201, 'other resources have room');

  const compute = await c.post(`/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute' }, spec: { hard: { 'limits.cpu': '1' } } });
  await c.put(`/api/v1/namespaces/${ns}/resourcequotas/compute/status`, { ...compute.body, status: { hard: { 'limits.cpu': '1' }, used: { 'limits.cpu': '0' } } });
  await c.put(`/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...(await c.get(`/api/v1/namespaces/${ns}/resourcequotas/q`)).body, status: { hard: { pods: '1', configmaps: '5' }, used: { pods: '0', configmaps: '1' } } });
  const noLimit = await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('nolimit'));
  t.equal(noLimit.body.message, 'pods "nolimit" is forbidden: failed quota: compute: must specify limits.cpu for: main');
});

t.test('PodSecurity: enforce refuses in upstream\'s words, warn warns, workloads are only warned', async (t) => {
  const enforced = await namespace({ 'pod-security.kubernetes.io/enforce': 'restricted' });
  const privileged = fixtures.pod('priv', { spec: { containers: [{ name: 'main', image: 'busybox', securityContext: { privileged: true } }] } });
  const res = await c.post(`/api/v1/namespaces/${enforced}/pods`, privileged);
  t.equal(res.status, 403);
  t.equal(res.body.reason, 'Forbidden');
  t.equal(res.body.message, 'pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged (container "main" must not set securityContext.privileged=true), '
    + 'allowPrivilegeEscalation != false (container "main" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "main" must set securityContext.capabilities.drop=["ALL"]), '
    + 'runAsNonRoot != true (pod or container "main" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "main" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
  const okPod = fixtures.pod('ok', { spec: { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'main', image: 'busybox', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }] } });
  t.equal((await c.post(`/api/v1/namespaces/${enforced}/pods`, okPod)).status, 201);
  const deploy = await c.post(`/apis/apps/v1/namespaces/${enforced}/deployments`, fixtures.deployment('web'));
  t.equal(deploy.status, 201, 'a workload is not refused');
  t.match(String(deploy.headers.warning), /299 - "would violate PodSecurity \\"restricted:latest\\": allowPrivilegeEscalation != false/);

  const warned = await namespace({ 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/warn-version': 'v1.30' });
  const w = await c.post(`/api/v1/namespaces/${warned}/pods`, privileged);
  t.equal(w.status, 201);
  t.equal(w.headers.warning, '299 - "would violate PodSecurity \\"baseline:v1.30\\": privileged (container \\"main\\" must not set securityContext.privileged=true)"');

  const label = await c.patch(`/api/v1/namespaces/${warned}/pods/priv`, { metadata: { labels: { a: 'b' } } }, { contentType: 'application/merge-patch+json' });
  t.equal(label.status, 200);
  t.equal(label.headers.warning, undefined, 'an update that leaves the spec alone is not checked');
});

t.test('subresources go through the chain: binding and scale', async (t) => {
  const ns = await namespace({ 'pod-security.kubernetes.io/enforce': 'baseline' });
  const q = await c.post(`/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'count/deployments.apps': '1' } } });
  await c.put(`/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...q.body, status: { hard: q.body.spec.hard, used: { 'count/deployments.apps': '0' } } });
  t.equal((await c.post(`/apis/apps/v1/namespaces/${ns}/deployments`, fixtures.deployment('one'))).status, 201);
  const two = await c.post(`/apis/apps/v1/namespaces/${ns}/deployments`, fixtures.deployment('two'));
  t.equal(two.body.message, 'deployments.apps "two" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');
  const scaled = await c.patch(`/apis/apps/v1/namespaces/${ns}/deployments/one/scale`, { spec: { replicas: 3 } }, { contentType: 'application/merge-patch+json' });
  t.equal(scaled.status, 200, scaled.text);

  const gone = `adm-gone-${n}`;
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: gone } });
  await c.post(`/api/v1/namespaces/${gone}/pods`, fixtures.pod('p'));
  await c.delete(`/api/v1/namespaces/${gone}`);
  const bind = await c.post(`/api/v1/namespaces/${gone}/pods/p/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
  t.equal(bind.status, 201, 'a binding in a terminating namespace is allowed (subresources are, as upstream)');
});
