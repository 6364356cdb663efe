// The built-in admission plugins end to end: real kubectl against `capstan up` (API server,
// controller-manager with the quota controller, scheduler). A LimitRange defaulting a pod's
// resources, a ResourceQuota refusing the pod over it with upstream's message while the
// controller keeps status.used, PodSecurity enforce and warn, a PriorityClass setting the
// priority, and --disable-admission-plugins / an unknown plugin name at start-up.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const up = await startCapstanUp(t);
const k = kubectlFor(t, up.kubeconfig);
const jsonpath = (args: string[], path: string) => k.ok([...args, '-o', `jsonpath=${path}`]);

/** A new namespace, once the controller-manager has given it its `default` ServiceAccount (pods need it). */
async function createNamespace(name: string): Promise<void> {
  await k.ok(['create', 'namespace', name]);
  await eventually(async () => (await k(['get', 'serviceaccount', 'default', '-n', name])).code === 0, 30_000, `the default ServiceAccount in ${name}`);
}

t.test('a LimitRange defaults a pod\'s resources', async (t) => {
  await createNamespace('limits');
  await k.ok(['apply', '-n', 'limits', '-f', '-'], `apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 128Mi}
    defaultRequest: {cpu: 250m, memory: 64Mi}
    max: {cpu: "1"}
`);
  t.match(await k.ok(['get', 'limitranges', '-n', 'limits']), /^NAME\s+CREATED AT\ndefaults\s+\d{4}-\d\d-\d\dT/);
  await k.ok(['run', 'web', '-n', 'limits', '--image=busybox', '--restart=Never']);
  t.equal(await jsonpath(['get', 'pod', 'web', '-n', 'limits'], '{.spec.containers[0].resources}'), '{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"250m","memory":"64Mi"}}');
  t.equal(await jsonpath(['get', 'pod', 'web', '-n', 'limits'], '{.metadata.annotations.kubernetes\\.io/limit-ranger}'), 'LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web');
  const big = await k(['run', 'big', '-n', 'limits', '--image=busybox', '--restart=Never', '--overrides', '{"spec":{"containers":[{"name":"big","image":"busybox","resources":{"limits":{"cpu":"2"}}}]}}']);
  t.not(big.code, 0);
  t.match(big.stderr, 'Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
});

t.test('a ResourceQuota refuses the pod over it; the controller keeps status.used', async (t) => {
  await createNamespace('quota');
  await k.ok(['create', 'quota', 'pods', '-n', 'quota', '--hard=pods=1,configmaps=10']);
  await eventually(async () => (await jsonpath(['get', 'quota', 'pods', '-n', 'quota'], '{.status.used.pods}')) === '0', 30_000, 'the quota controller to count');
  await k.ok(['run', 'one', '-n', 'quota', '--image=busybox', '--restart=Never']);
  const two = await k(['run', 'two', '-n', 'quota', '--image=busybox', '--restart=Never']);
  t.not(two.code, 0);
  t.match(two.stderr, 'Error from server (Forbidden): pods "two" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1');
  t.equal(await jsonpath(['get', 'quota', 'pods', '-n', 'quota'], '{.status.used.pods}'), '1');
  t.match(await k.ok(['get', 'quota', '-n', 'quota']), /pods\s+\S+\s+configmaps: 1\/10, pods: 1\/1/);
  await k.ok(['delete', 'pod', 'one', '-n', 'quota', '--wait=false']);
  await eventually(async () => (await jsonpath(['get', 'quota', 'pods', '-n', 'quota'], '{.status.used.pods}')) === '0', 30_000, 'the quota to be given back');
  await k.ok(['run', 'three', '-n', 'quota', '--image=busybox', '--restart=Never']);
  t.match(await k.ok(['describe', 'quota', 'pods', '-n', 'quota']), /pods\s+1\s+1/);
});

t.test('PodSecurity: restricted refuses a privileged pod with upstream\'s message; warn mode warns', async (t) => {
  await createNamespace('secure');
  await k.ok(['label', 'namespace', 'secure', 'pod-security.kubernetes.io/enforce=restricted']);
  const privileged = `apiVersion: v1
kind: Pod
metadata: {name: priv}
spec:
  containers:
  - name: main
    image: busybox
    securityContext: {privileged: true}
`;
  const refused = await k(['apply', '-n', 'secure', '-f', '-'], privileged);
  t.not(refused.code, 0);
  t.match(refused.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": '
    + 'privileged (container "main" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "main" must set securityContext.allowPrivilegeEscalation=false), '
    + 'unrestricted capabilities (container "main" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "main" must set securityContext.runAsNonRoot=true), '
    + 'seccompProfile (pod or container "main" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');

  await createNamespace('warned');
  await k.ok(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline']);
  const warned = await k(['apply', '-n', 'warned', '-f', '-'], privileged);
  t.equal(warned.code, 0, warned.stderr);
  t.match(warned.stdout, 'pod/priv created');
  t.match(warned.stderr, 'Warning: would violate PodSecurity "baseline:latest": privileged (container "main" must not set securityContext.privileged=true)');
});

t.test('a PriorityClass sets the pod\'s priority', async (t) => {
  t.match(await k.ok(['get', 'priorityclasses']), /system-cluster-critical\s+2000000000\s+false/);
  await k.ok(['create', 'priorityclass', 'high', '--value=1000', '--description=important']);
  await createNamespace('prio');
  await k.ok(['run', 'vip', '-n', 'prio', '--image=busybox', '--restart=Never', '--overrides', '{"spec":{"priorityClassName":"high"}}']);
  t.equal(await jsonpath(['get', 'pod', 'vip', '-n', 'prio'], '{.spec.priority}'), '1000');
  const missing = await k(['run', 'nobody', '-n', 'prio', '--image=busybox', '--restart=Never', '--overrides', '{"spec":{"priorityClassName":"nope"}}']);
  t.match(missing.stderr, 'pods "nobody" is forbidden: no PriorityClass with name nope was found');
});

t.test('--disable-admission-plugins takes a plugin out; an unknown name stops start-up', async (t) => {
  const plain = await startCapstanUp(t, ['--disable-admission-plugins=DefaultTolerationSeconds,Priority']);
  const kp = kubectlFor(t, plain.kubeconfig);
  // The default ServiceAccount comes from the controller-manager just after start.
  await eventually(async () => (await kp(['run', 'bare', '--image=busybox', '--restart=Never'])).code === 0, 30_000, 'a pod to be created');
  t.equal(await kp.ok(['get', 'pod', 'bare', '-o', 'jsonpath={.spec.tolerations}']), '', 'no default tolerations');
  t.equal(await k.ok(['get', 'pod', 'web', '-n', 'limits', '-o', 'jsonpath={.spec.tolerations[*].key}']), 'node.kubernetes.io/not-ready node.kubernetes.io/unreachable', 'which the default chain adds');

  const dir = mkdtempSync(join(tmpdir(), 'capstan-admission-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = spawnSync(process.execPath, [capstanBin, 'up', '--data-dir', dir, '--no-node', '--port', '0', '--enable-admission-plugins=NamespaceLifecycle,Bogus'], { encoding: 'utf8', timeout: 60_000 });
  t.not(bad.status, 0);
  t.match(bad.stderr, 'capstan up: enable-admission-plugins plugin "Bogus" is unknown');
});
