// StatefulSets and DaemonSets end to end: `capstan up` with hollow nodes (no containers are
// needed: hollow kubelets run the pods' lifecycle), driven by real kubectl.
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { startHollowNodesProcess } from '../helpers/hollow-nodes-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const statefulSet = (image: string, replicas = 3) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: ${replicas}
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: ${image}}
`;

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - {name: agent, image: localhost/capstan/busybox:1}
`;

const lines = (s: string) => s.trim().split('\n').filter(Boolean);

t.test('StatefulSets and DaemonSets on capstan up with hollow nodes', async (t) => {
  const outer = t;
  const up = await startCapstanUp(t, ['--hollow-nodes', '3']);
  const k = kubectlFor(t, up.kubeconfig);
  await eventually(async () => lines(await k.ok(['get', 'nodes', '--no-headers'])).filter((l) => /\sReady\s/.test(l)).length === 3, 60_000, 'three Ready nodes');

  await t.test('a StatefulSet of 3 starts in order with stable names and hostnames', async (t) => {
    await k.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  clusterIP: None\n  selector: {app: web}\n  ports: [{port: 80}]\n');
    await k.ok(['apply', '-f', '-'], statefulSet('localhost/capstan/busybox:1'));
    await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
    const pods = lines(await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.hostname} {.spec.subdomain} {.status.phase}{"\\n"}{end}']));
    t.same(pods.sort(), ['web-0 web-0 web Running', 'web-1 web-1 web Running', 'web-2 web-2 web Running']);
    const creates = lines(await k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet,reason=SuccessfulCreate', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']));
    t.same(creates.sort(), [0, 1, 2].map((i) => `create Pod web-${i} in StatefulSet web successful`), 'one create event per pod');
    // Each pod was created only after the one before it was ready.
    const times = lines(await k.ok(['get', 'pods', '-l', 'app=web', '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.metadata.creationTimestamp} {.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\\n"}{end}']));
    for (let i = 1; i < times.length; i++) t.ok(Date.parse(times[i].split(' ')[0]) >= Date.parse(times[i - 1].split(' ')[1]), `web-${i} created after web-${i - 1} was ready`);
    t.match(await k.ok(['get', 'sts', 'web']), /web\s+3\/3\s/);
    t.match(await k.ok(['describe', 'sts', 'web']), /Pods Status:\s+3 Running/);
    const resources = await k.ok(['api-resources', '--api-group=apps']);
    for (const r of [/^statefulsets\s+sts\s+apps\/v1\s+true\s+StatefulSet$/m, /^daemonsets\s+ds\s+apps\/v1\s+true\s+DaemonSet$/m, /^controllerrevisions\s+apps\/v1\s+true\s+ControllerRevision$/m]) t.match(resources, r);
    t.match(await k.ok(['explain', 'statefulset.spec.podManagementPolicy']), /OrderedReady/);
  });

  await t.test('scaling adds the next ordinals and removes the highest', async (t) => {
    await k.ok(['scale', 'sts/web', '--replicas=5']);
    await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
    const names = async () => lines(await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'])).sort();
    t.same(await names(), ['web-0', 'web-1', 'web-2', 'web-3', 'web-4']);
    await k.ok(['scale', 'sts/web', '--replicas=3']);
    await eventually(async () => (await names()).join() === 'web-0,web-1,web-2', 60_000, 'web-3 and web-4 gone');
    t.pass('scaled back to web-0..2');
  });

  await t.test('an update with a partition touches only the ordinals above it; undo rolls back', async (t) => {
    const images = async () => lines(await k.ok(['get', 'pods', '-l', 'app=web', '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{"\\n"}{end}']));
    await k.ok(['patch', 'sts/web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}']);
    await k.ok(['set', 'image', 'sts/web', 'web=localhost/capstan/busybox:2']);
    const partitioned = await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
    t.match(partitioned, /partitioned roll out complete: 1 new pods have been updated/);
    t.same(await images(), ['localhost/capstan/busybox:1', 'localhost/capstan/busybox:1', 'localhost/capstan/busybox:2']);

    await k.ok(['patch', 'sts/web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}']);
    // kubectl reports any set with a partition (0 by default) as a partitioned roll out.
    t.match(await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']), /partitioned roll out complete: 3 new pods have been updated/);
    t.same(await images(), Array(3).fill('localhost/capstan/busybox:2'));
    const history = await k.ok(['rollout', 'history', 'sts/web']);
    t.match(history, /^1\s/m);
    t.match(history, /^2\s/m);
    t.match(await k.ok(['rollout', 'history', 'sts/web', '--revision=1']), /busybox:1/);

    await k.ok(['rollout', 'undo', 'sts/web']);
    await k.ok(['rollout', 'status', 'sts/web', '--timeout=120s']);
    t.equal(await k.ok(['get', 'sts', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'localhost/capstan/busybox:1');
    await eventually(async () => (await images()).every((i) => i === 'localhost/capstan/busybox:1'), 60_000, 'every pod back on busybox:1');
    const revisions = lines(await k.ok(['get', 'controllerrevisions', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.revision}{"\\n"}{end}'])).sort();
    t.same(revisions, ['2', '3'], 'undo renumbers the first revision instead of making a third');
    t.match(await k.ok(['get', 'controllerrevisions']), /CONTROLLER\s+REVISION\s+AGE[\s\S]*statefulset\.apps\/web\s+3\s/);
  });

  await t.test('a DaemonSet covers every node but a tainted one, and a node added later', async (t) => {
    const nodes = lines(await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'])).sort();
    const tainted = nodes[nodes.length - 1];
    await k.ok(['taint', 'nodes', tainted, 'dedicated=db:NoSchedule']);
    await k.ok(['apply', '-f', '-'], daemonSet);
    await k.ok(['rollout', 'status', 'ds/agent', '--timeout=120s']);
    const placed = async () => lines(await k.ok(['get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}'])).sort();
    t.same(await placed(), nodes.filter((n) => n !== tainted), 'every untainted node');
    t.match(await k.ok(['get', 'ds', 'agent']), /agent\s+2\s+2\s+2\s+2\s+2\s+<none>\s/);

    // Owned by the outer test: the node must outlive this subtest.
    await startHollowNodesProcess(outer, ['--kubeconfig', up.kubeconfig, '--count', '1', '--name-prefix', 'late-', '--heartbeat-interval', '1s'], /capstan hollow-nodes running/);
    await eventually(async () => (await placed()).includes('late-0'), 60_000, 'a daemon pod on the new node');
    await k.ok(['rollout', 'status', 'ds/agent', '--timeout=120s']);
    t.equal(await k.ok(['get', 'ds', 'agent', '-o', 'jsonpath={.status.desiredNumberScheduled}/{.status.numberReady}']), '3/3');
  });

  await t.test('a cordoned node still gets its daemon pod back (the automatic unschedulable toleration)', async (t) => {
    const node = lines(await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'])).sort()[0];
    await k.ok(['cordon', node]);
    const onNode = async () => lines(await k.ok(['get', 'pods', '-l', 'app=agent', '--field-selector', `spec.nodeName=${node}`, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.phase}{"\\n"}{end}']));
    const [before] = await onNode();
    await k.ok(['delete', 'pod', before.split(' ')[0], '--wait=true']);
    await eventually(async () => (await onNode()).some((l) => l.endsWith(' Running') && l.split(' ')[0] !== before.split(' ')[0]), 60_000, 'a new daemon pod running on the cordoned node');
    await k.ok(['uncordon', node]);
    t.pass('replaced on the cordoned node');
  });

  await t.test('a DaemonSet rolls out a new image and rolls back', async (t) => {
    await k.ok(['set', 'image', 'ds/agent', 'agent=localhost/capstan/busybox:2']);
    t.match(await k.ok(['rollout', 'status', 'ds/agent', '--timeout=120s']), /daemon set "agent" successfully rolled out/);
    await k.ok(['rollout', 'undo', 'ds/agent']);
    await k.ok(['rollout', 'status', 'ds/agent', '--timeout=120s']);
    let seen = '';
    await eventually(async () => {
      seen = await k.ok(['get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.spec.containers[0].image} {.metadata.deletionTimestamp}{"\\n"}{end}']);
      const images = lines(seen).map((l) => l.split(' ')[2]);
      return images.length === 3 && images.every((i) => i === 'localhost/capstan/busybox:1');
    }, 60_000, 'daemon pods back on busybox:1').catch(async (e: Error) => {
      throw new Error(`${e.message}: ${seen}\n${await k.ok(['get', 'ds,controllerrevisions', '-o', 'yaml'])}`);
    });
    t.pass('rolled back');
  });
});
