// Storage end to end: `capstan up` with hollow nodes, driven by real kubectl. PersistentVolumes
// and StorageClasses are served (discovery, printer columns, explain, validation); a claim binds
// to a static volume; a WaitForFirstConsumer claim of the default class binds once its pod is
// scheduled, on that pod's node; StatefulSet claims bind one per ordinal; a released volume is
// kept (Retain) or removed by the provisioner (Delete).
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const lines = (s: string) => s.trim().split('\n').filter(Boolean);

const staticPV = (name: string, policy: string) => `apiVersion: v1
kind: PersistentVolume
metadata: {name: ${name}, labels: {kind: static}}
spec:
  capacity: {storage: 2Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: ${policy}
  storageClassName: manual
  hostPath: {path: /srv/${name}}
`;
const claim = (name: string, extra = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
${extra}`;
const podWith = (name: string, claimName: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  volumes: [{name: data, persistentVolumeClaim: {claimName: ${claimName}}}]
  containers: [{name: c, image: localhost/capstan/busybox:1, command: [sleep, infinity], volumeMounts: [{name: data, mountPath: /data}]}]
`;

t.test('persistent volumes on capstan up with hollow nodes', async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '2']);
  const k = kubectlFor(t, up.kubeconfig);
  await eventually(async () => lines(await k.ok(['get', 'nodes', '--no-headers'])).filter((l) => /\sReady\s/.test(l)).length === 2, 60_000, 'two Ready nodes');
  const jsonpath = (args: string[], path: string) => k.ok([...args, '-o', `jsonpath=${path}`]);

  await t.test('the API: discovery, the default class, columns, explain, validation', async (t) => {
    const core = await k.ok(['api-resources', '--api-group=']);
    t.match(core, /^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume$/m);
    t.match(core, /^persistentvolumeclaims\s+pvc\s+v1\s+true\s+PersistentVolumeClaim$/m);
    t.match(await k.ok(['api-resources', '--api-group=storage.k8s.io']), /^storageclasses\s+sc\s+storage\.k8s\.io\/v1\s+false\s+StorageClass$/m);
    await eventually(async () => (await k(['get', 'sc', 'local-path'])).code === 0, 30_000, 'the default StorageClass');
    t.match(await k.ok(['get', 'sc']), /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\nlocal-path \(default\)\s+capstan\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+false\s+\d+s$/m);
    t.match(await k.ok(['explain', 'persistentvolume.spec.persistentVolumeReclaimPolicy']), /Retain/);
    t.match(await k.ok(['explain', 'storageclass.volumeBindingMode']), /WaitForFirstConsumer/);
    const noSource = await k(['apply', '-f', '-'], 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: bad}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}\n');
    t.not(noSource.code, 0);
    t.match(noSource.stderr, /PersistentVolume "bad" is invalid: spec: Required value: must specify a volume type/);
    const local = await k(['apply', '-f', '-'], 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: bad}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], local: {path: /mnt/disk}}\n');
    t.match(local.stderr, /spec\.nodeAffinity: Required value: Local volume requires node affinity/);
    const sc = await k(['apply', '-f', '-'], 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: bad}\nprovisioner: x.io/y\nvolumeBindingMode: Sometimes\n');
    t.match(sc.stderr, /volumeBindingMode: Unsupported value: "Sometimes": supported values: "Immediate", "WaitForFirstConsumer"/);
  });

  await t.test('a claim binds to a static volume of its class', async (t) => {
    await k.ok(['apply', '-f', '-'], staticPV('kept', 'Retain'));
    await k.ok(['apply', '-f', '-'], claim('static', '  storageClassName: manual'));
    await eventually(async () => (await jsonpath(['get', 'pvc', 'static'], '{.status.phase}')) === 'Bound', 30_000, 'claim Bound');
    t.match(await k.ok(['get', 'pvc', 'static']), /^static\s+Bound\s+kept\s+2Gi\s+RWO\s+manual\s+<unset>\s+\d+s$/m);
    t.match(await k.ok(['get', 'pv', 'kept']), /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE\nkept\s+2Gi\s+RWO\s+Retain\s+Bound\s+default\/static\s+manual\s+<unset>\s+\d+s$/m);
    // The spec is fixed once created.
    const edit = await k(['patch', 'pvc', 'static', '--type=merge', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}']);
    t.match(edit.stderr, /spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims/);
  });

  let node = '';
  await t.test('a WaitForFirstConsumer claim binds after its pod is scheduled, on that node', async (t) => {
    await k.ok(['apply', '-f', '-'], claim('lazy'));
    t.equal(await jsonpath(['get', 'pvc', 'lazy'], '{.spec.storageClassName}'), 'local-path', 'the default class was filled in');
    await eventually(async () => (await k.ok(['describe', 'pvc', 'lazy'])).includes('waiting for first consumer to be created before binding'), 30_000, 'WaitForFirstConsumer event');
    t.equal(await jsonpath(['get', 'pvc', 'lazy'], '{.status.phase}'), 'Pending');
    await k.ok(['apply', '-f', '-'], podWith('user', 'lazy'));
    await eventually(async () => (await jsonpath(['get', 'pod', 'user'], '{.status.phase}')) === 'Running', 60_000, 'pod Running');
    node = await jsonpath(['get', 'pod', 'user'], '{.spec.nodeName}');
    t.equal(await jsonpath(['get', 'pvc', 'lazy'], '{.status.phase}'), 'Bound');
    t.equal(await jsonpath(['get', 'pvc', 'lazy'], '{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}'), node);
    const pv = await jsonpath(['get', 'pvc', 'lazy'], '{.spec.volumeName}');
    t.equal(await jsonpath(['get', 'pv', pv], '{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}'), node, 'the volume lives on the pod\'s node');
    t.match(await k.ok(['describe', 'pvc', 'lazy']), /ProvisioningSucceeded\s+.*Successfully provisioned volume pvc-/);
  });

  await t.test('a pod of a bound local volume is scheduled onto the volume\'s node only', async (t) => {
    await k.ok(['delete', 'pod', 'user', '--wait=true']);
    const other = node === 'hollow-0' ? 'hollow-1' : 'hollow-0';
    // Pinned by its selector to the other node, the pod cannot have the volume there.
    await k.ok(['apply', '-f', '-'], podWith('elsewhere', 'lazy').replace('spec:\n', `spec:\n  nodeSelector: {kubernetes.io/hostname: ${other}}\n`));
    await eventually(async () => (await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=elsewhere,reason=FailedScheduling', '-o', 'jsonpath={.items[*].message}'])).includes('volume node affinity conflict'), 30_000, 'FailedScheduling for the volume');
    t.match(await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=elsewhere,reason=FailedScheduling', '-o', 'jsonpath={.items[*].message}']), /0\/2 nodes are available: .*1 node\(s\) had volume node affinity conflict/);
    t.equal(await jsonpath(['get', 'pod', 'elsewhere'], '{.spec.nodeName}'), '');
    await k.ok(['delete', 'pod', 'elsewhere', '--wait=true']);
    await k.ok(['apply', '-f', '-'], podWith('again', 'lazy'));
    await eventually(async () => (await jsonpath(['get', 'pod', 'again'], '{.spec.nodeName}')) !== '', 30_000, 'scheduled');
    t.equal(await jsonpath(['get', 'pod', 'again'], '{.spec.nodeName}'), node);
    await k.ok(['delete', 'pod', 'again', '--wait=true']);
  });

  await t.test('StatefulSet claims bind, one per ordinal', async (t) => {
    await k.ok(['apply', '-f', '-'], `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: db, image: localhost/capstan/busybox:1, command: [sleep, infinity], volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`);
    await k.ok(['rollout', 'status', 'sts/db', '--timeout=120s']);
    const claims = lines(await jsonpath(['get', 'pvc', '-l', 'app=db'], '{range .items[*]}{.metadata.name} {.status.phase}{"\\n"}{end}'));
    t.same(claims.sort(), ['data-db-0 Bound', 'data-db-1 Bound']);
  });

  await t.test('a released volume: Retain keeps it Released, Delete removes it', async (t) => {
    const provisioned = await jsonpath(['get', 'pvc', 'lazy'], '{.spec.volumeName}');
    await k.ok(['delete', 'pvc', 'static', 'lazy']);
    await eventually(async () => (await jsonpath(['get', 'pv', 'kept'], '{.status.phase}')) === 'Released', 30_000, 'Retain: Released');
    t.match(await k.ok(['get', 'pv', 'kept']), /kept\s+2Gi\s+RWO\s+Retain\s+Released\s+default\/static\s/);
    await eventually(async () => (await k(['get', 'pv', provisioned])).code !== 0, 60_000, 'Delete: the provisioned volume is gone');
    await eventually(async () => (await k(['get', 'pod', '-n', 'kube-system', `helper-pod-delete-${provisioned}`])).code !== 0, 30_000, 'its helper pod is gone');
  });
});
