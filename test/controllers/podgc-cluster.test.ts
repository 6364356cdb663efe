// Pod GC in a cluster, seen through kubectl: a real API server, the controller-manager with
// its flags (quarantine shortened), the scheduler and hollow nodes. A Node whose kubelet is
// gone is deleted: the Deployment's pods bound to it are removed (and replaced), the pods on
// the other node stay; a namespace whose pods sat on a deleted Node finishes deleting.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { startScheduler } from '../../src/cli/scheduler.js';
import { clientsetFromKubeconfig } from '../../src/client/index.js';
import { startHollowNodes } from '../../src/hollow/index.js';
import { logger } from '../../src/log/index.js';

const quiet = logger('test', {}, () => undefined);

const deployment = (name: string, node: string, replicas: number) => `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      nodeSelector: {kubernetes.io/hostname: ${node}}
      terminationGracePeriodSeconds: 2
      containers: [{name: c, image: busybox}]
`;

t.test('pods on a deleted Node are garbage collected; their namespace finishes deleting', async (t) => {
  const server = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(server.dir, server.pki, `https://127.0.0.1:${server.port}`);
  const cm = await startControllerManager(['--kubeconfig', kubeconfig, '--leader-elect', 'false', '--secure-port', '0',
    '--controllers', 'nodeipam,replicaset,deployment,garbagecollector,namespace,podgc', '--pod-gc-quarantine-period', '2s']);
  t.teardown(() => cm.stop());
  const sched = await startScheduler(['--kubeconfig', kubeconfig, '--secure-port', '0', '--leader-elect=false']);
  t.teardown(() => sched.stop());
  const clients = clientsetFromKubeconfig(kubeconfig, 'hollow-test');
  t.teardown(() => clients.close());
  const hollow = await startHollowNodes({ clients, count: 2, heartbeatIntervalMs: 1000, terminationDelayMs: 200, log: quiet });
  t.teardown(() => hollow.stop());
  const k = kubectlFor(t, kubeconfig);
  await eventually(async () => (await k.ok(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => / Ready /.test(l)).length === 2, 20_000, 'two Ready nodes');

  const podsIn = async (ns: string) => (await k.ok(['get', 'pods', '-n', ns, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase}{"\\n"}{end}']))
    .split('\n').filter(Boolean).map((l) => l.split(' ')).map(([name, node, phase]) => ({ name, node, phase }));

  await t.test('the pods of a deleted Node are removed and replaced; others stay', async (t) => {
    const ns = `gc-${randomBytes(3).toString('hex')}`;
    await k.ok(['create', 'namespace', ns]);
    await k.ok(['apply', '-n', ns, '-f', '-'], deployment('doomed', 'hollow-1', 2) + deployment('stays', 'hollow-0', 2));
    await eventually(async () => (await podsIn(ns)).filter((p) => p.phase === 'Running').length === 4, 30_000, 'four Running pods');
    const before = await podsIn(ns);
    t.equal(before.filter((p) => p.node === 'hollow-1').length, 2, 'two pods on hollow-1');

    hollow.stopHeartbeat('hollow-1'); // its kubelet is gone for good
    await k.ok(['delete', 'node', 'hollow-1']);
    await eventually(async () => !(await podsIn(ns)).some((p) => p.node === 'hollow-1'), 30_000, 'no pod bound to hollow-1');
    const after = await podsIn(ns);
    t.same(after.filter((p) => p.name.startsWith('stays-')).map((p) => `${p.name} ${p.node} ${p.phase}`).sort(),
      before.filter((p) => p.name.startsWith('stays-')).map((p) => `${p.name} ${p.node} ${p.phase}`).sort(), 'the pods on hollow-0 are untouched');
    await eventually(async () => (await podsIn(ns)).filter((p) => p.name.startsWith('doomed-')).length === 2, 20_000, 'the ReplicaSet replaced the doomed pods');
    t.ok((await podsIn(ns)).filter((p) => p.name.startsWith('doomed-')).every((p) => p.phase === 'Pending' && !p.node), 'the replacements wait for a node');
    t.notOk((await podsIn(ns)).some((p) => before.some((b) => b.name === p.name && b.node === 'hollow-1')), 'the old pods are gone');
  });

  await t.test('a namespace whose pods are on a deleted Node finishes deleting', async (t) => {
    const ns = `gc-${randomBytes(3).toString('hex')}`;
    await k.ok(['create', 'namespace', ns]);
    await k.ok(['apply', '-n', ns, '-f', '-'], deployment('web', 'hollow-0', 3));
    await eventually(async () => (await podsIn(ns)).filter((p) => p.phase === 'Running').length === 3, 30_000, 'three Running pods');

    hollow.stopHeartbeat('hollow-0');
    await k.ok(['delete', 'node', 'hollow-0']);
    await k.ok(['delete', 'namespace', ns, '--wait=false']);
    await eventually(async () => (await k(['get', 'namespace', ns])).code !== 0, 60_000, `namespace ${ns} gone`);
    t.match((await k(['get', 'namespace', ns])).stderr, /NotFound/, 'the namespace is gone');
  });
});
