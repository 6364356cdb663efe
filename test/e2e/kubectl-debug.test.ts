// `kubectl debug` against a real pod on a real node (`capstan up` in a network namespace of
// its own): the pods/ephemeralcontainers subresource takes the debugging container, the
// kubelet starts it in the pod's sandbox sharing the target container's PID namespace, and
// kubectl attaches to its shell on a terminal. Also upstream's validation of the subresource.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { KUBECTL, eventually, kubectlFor } from '../helpers/kubectl.js';
import { runOnPty } from '../helpers/pty.js';

const root = process.getuid?.() === 0;

t.test('kubectl debug with an ephemeral container', { skip: root ? false : 'needs root', timeout: 300_000 }, async (t) => {
  const netns = `capstan-debug-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ } });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  addNodeUplink(netns);
  const up = await startCapstanUp(t, ['--node-name', 'node-d'], { netns });
  const k = kubectlFor(t, up.kubeconfig, { netns });
  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-d', '--no-headers'])), 60_000, 'node Ready');
  await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: localhost/capstan/busybox:1
    command: [sleep, '4242']
`);
  await k.ok(['wait', '--for=condition=Ready', 'pod/app', '--timeout=90s']);
  const pod = async () => JSON.parse(await k.ok(['get', 'pod', 'app', '-o', 'json']));

  await t.test('debug -it attaches to a shell that sees the target\'s processes', async (t) => {
    const r = await runOnPty(['nsenter', `--net=/run/netns/${netns}`, KUBECTL, '--kubeconfig', up.kubeconfig,
      'debug', '-it', 'app', '--image=localhost/capstan/busybox:1', '--target=main', '-c', 'debugger', '--', 'sh'], [
      { expect: 'try pressing enter', timeoutMs: 90_000 },
      { send: 'echo debug-$((6*7))\r' },
      { expect: 'debug-42' },
      { send: 'ps -o pid,args | grep -c "[s]leep 4242"\r' },
      { expect: '\\r\\n1\\r\\n' },
      { send: 'exit\r' },
    ], { rows: 30, cols: 100 });
    if (r.failed) t.fail(`waited in vain for ${JSON.stringify(r.failed)}; the terminal showed: ${JSON.stringify(r.output)}`);
    const p = await pod();
    t.same(p.spec.ephemeralContainers.map((c: { name: string; targetContainerName: string }) => [c.name, c.targetContainerName]), [['debugger', 'main']]);
    await eventually(async () => (await pod()).status.ephemeralContainerStatuses?.[0]?.state?.terminated?.exitCode === 0, 30_000, 'the debugger exited 0');
    const st = (await pod()).status.ephemeralContainerStatuses[0];
    t.equal(st.name, 'debugger');
    t.equal(st.restartCount, 0);
    t.equal((await pod()).status.containerStatuses[0].restartCount, 0, 'the pod\'s own container was left alone');
    t.equal((await pod()).status.phase, 'Running');
  });

  await t.test('the subresource only adds, and refuses what upstream refuses', async (t) => {
    // A strategic merge patch puts a list element the live list lacks first (as upstream's does).
    const patch = (body: object) => k(['patch', 'pod', 'app', '--subresource', 'ephemeralcontainers', '--type', 'strategic', '-p', JSON.stringify(body)]);
    const ports = await patch({ spec: { ephemeralContainers: [{ name: 'p', image: 'localhost/capstan/busybox:1', ports: [{ containerPort: 80 }] }] } });
    t.not(ports.code, 0);
    t.match(ports.stderr, 'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container');
    const probe = await patch({ spec: { ephemeralContainers: [{ name: 'q', image: 'localhost/capstan/busybox:1', readinessProbe: { exec: { command: ['true'] } }, targetContainerName: 'nope' }] } });
    t.match(probe.stderr, 'spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container');
    t.match(probe.stderr, 'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"');
    const dup = await patch({ spec: { ephemeralContainers: [{ name: 'main', image: 'localhost/capstan/busybox:1' }] } });
    t.match(dup.stderr, 'spec.ephemeralContainers[0].name: Duplicate value: "main"');
    const change = await k(['patch', 'pod', 'app', '--subresource', 'ephemeralcontainers', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/ephemeralContainers/0/image","value":"other:1"}]']);
    t.match(change.stderr, 'spec.ephemeralContainers[0]: Forbidden: existing ephemeral containers "debugger" may not be changed');
    const remove = await k(['patch', 'pod', 'app', '--subresource', 'ephemeralcontainers', '--type', 'json', '-p', '[{"op":"remove","path":"/spec/ephemeralContainers/0"}]']);
    t.match(remove.stderr, 'spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed');
    const viaPod = await k(['patch', 'pod', 'app', '--type', 'strategic', '-p', JSON.stringify({ spec: { ephemeralContainers: [{ name: 'x', image: 'localhost/capstan/busybox:1' }] } })]);
    t.not(viaPod.code, 0, 'the pod itself does not take ephemeral containers');
    t.same((await pod()).spec.ephemeralContainers.map((c: { name: string }) => c.name), ['debugger']);
    const create = await k(['create', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'born-debugged' },
      spec: { containers: [{ name: 'main', image: 'localhost/capstan/busybox:1' }], ephemeralContainers: [{ name: 'd', image: 'localhost/capstan/busybox:1' }] },
    }));
    t.match(create.stderr, 'spec.ephemeralContainers: Forbidden: cannot be set on create');
  });

  // Upstream keeps pods/ephemeralcontainers out of admin and edit on purpose (admission policies
  // written before the subresource existed would be bypassed; kubernetes#109332, #121217): an
  // administrator grants it with a ClusterRole aggregated into them.
  await t.test('a namespace admin may debug once a ClusterRole aggregates the permission into admin', async (t) => {
    await k.ok(['create', 'rolebinding', 'alice-admin', '--clusterrole=admin', '--user=alice']);
    const debug = ['debug', 'app', '--image=localhost/capstan/busybox:1', '--target=main', '-c', 'alice-dbg', '--as=alice', '--', 'sleep', '600'];
    // (`can-i VERB pods/NAME` names a pod: a subresource goes in --subresource.)
    const canDebug = async () => (await k(['auth', 'can-i', 'patch', 'pods', '--subresource=ephemeralcontainers', '--as=alice'])).stdout.trim();
    await eventually(async () => (await k(['auth', 'can-i', 'create', 'pods', '--subresource=exec', '--as=alice'])).stdout.trim() === 'yes', 30_000, 'alice is admin of default');
    t.equal(await canDebug(), 'no', 'not in the default admin role');
    const denied = await k(debug);
    t.not(denied.code, 0);
    t.match(denied.stderr, 'pods "app" is forbidden: User "alice" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "default"');
    await k.ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
      metadata: { name: 'debug-ephemeral-containers', labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
      rules: [{ apiGroups: [''], resources: ['pods/ephemeralcontainers'], verbs: ['patch', 'update'] }],
    }));
    await eventually(async () => await canDebug() === 'yes', 30_000, 'aggregated into edit, and so admin');
    await k.ok(debug);
    await eventually(async () => (await pod()).status.ephemeralContainerStatuses?.some((s: { name: string; state: { running?: object } }) => s.name === 'alice-dbg' && s.state.running), 90_000, 'alice\'s debug container runs');
    t.pass('kubectl debug as the namespace admin started its container');
  });
});
