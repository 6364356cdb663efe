// VolumeBinding in the scheduler on FakeClientset: a pod waits for a missing claim and for an
// unbound claim of an Immediate class; a bound claim's volume pins the pod to the volume's
// node; an unbound WaitForFirstConsumer claim lets the pod schedule and gets the chosen node
// in `volume.kubernetes.io/selected-node` before the Binding is posted.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { EventRecorder, FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { Scheduler } from '../../src/scheduler/index.js';
import { eventually } from '../helpers/kubectl.js';
import { node, pod } from './fixtures.js';

async function start(t: Test, seed: { nodes: KubeObject[]; claims?: KubeObject[]; volumes?: KubeObject[]; classes?: KubeObject[] }) {
  const clock = new FakeClock(Date.now());
  const fake = new FakeClientset(clock);
  for (const n of seed.nodes) fake.seed(resources.nodes, n);
  for (const c of seed.claims ?? []) fake.seed(resources.persistentvolumeclaims, c);
  for (const v of seed.volumes ?? []) fake.seed(resources.persistentvolumes, v);
  for (const sc of seed.classes ?? []) fake.seed(resources.storageclasses, sc);
  const informers = new SharedInformerFactory(fake, { clock });
  const recorder = new EventRecorder(fake.resource(resources.events), { component: 'default-scheduler' }, clock);
  const scheduler = new Scheduler({ clients: fake, informers, clock, recorder });
  informers.start();
  await informers.waitForCacheSync();
  void scheduler.run();
  t.teardown(async () => { await scheduler.stop(); await informers.stop(); fake.close(); });
  const nodeOf = (name: string) => fake.get(resources.pods, 'default', name)?.spec?.nodeName as string | undefined;
  const failures = (name: string) => fake.list(resources.events, 'default').filter((e) => e.reason === 'FailedScheduling' && e.involvedObject?.name === name).map((e) => e.message as string);
  return { fake, clock, nodeOf, failures, create: (p: KubeObject) => fake.resource(resources.pods).create('default', p as never) };
}

const withClaim = (name: string, claimName: string, o: Parameters<typeof pod>[1] = {}) => {
  const p = pod(name, o);
  p.spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName } }];
  return p;
};
const claim = (name: string, o: { className?: string; volumeName?: string } = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: o.className, volumeName: o.volumeName },
  status: { phase: o.volumeName ? 'Bound' : 'Pending' },
});
const storageClass = (name: string, mode: string): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'x.io/p', volumeBindingMode: mode });
const localPV = (name: string, nodeName: string): KubeObject => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: {
    capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], local: { path: '/mnt/d' },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] }] } },
  },
});

t.test('a missing claim keeps the pod pending until it is created', async (t) => {
  const s = await start(t, { nodes: [node('n1')], classes: [storageClass('later', 'WaitForFirstConsumer')] });
  await s.create(withClaim('p', 'absent'));
  await eventually(() => s.failures('p').length > 0, 5_000, 'FailedScheduling');
  t.match(s.failures('p')[0], /persistentvolumeclaim "absent" not found/);
  t.notOk(s.nodeOf('p'));
  await s.fake.resource(resources.persistentvolumeclaims).create('default', claim('absent', { className: 'later' }) as never);
  // Moved out of the unschedulable pods by the claim event; its backoff runs on the driven clock.
  await eventually(() => { s.clock.step(1000); return s.nodeOf('p') === 'n1'; }, 10_000, 'scheduled once the claim exists');
});

t.test('an unbound claim of an Immediate class keeps the pod pending until bound', async (t) => {
  const s = await start(t, { nodes: [node('n1')], classes: [storageClass('fast', 'Immediate')], claims: [claim('c', { className: 'fast' })] });
  await s.create(withClaim('p', 'c'));
  await eventually(() => s.failures('p').length > 0, 5_000, 'FailedScheduling');
  t.match(s.failures('p')[0], /pod has unbound immediate PersistentVolumeClaims/);
  const claims = s.fake.resource(resources.persistentvolumeclaims);
  const c = await claims.get('default', 'c');
  await claims.update({ ...c, spec: { ...c.spec, volumeName: 'pv-any' }, status: { phase: 'Bound' } });
  await eventually(() => { s.clock.step(1000); return s.nodeOf('p') === 'n1'; }, 10_000, 'scheduled once bound');
  t.notOk((await claims.get('default', 'c')).metadata.annotations?.['volume.kubernetes.io/selected-node'], 'no node is selected for an Immediate claim');
});

t.test('a bound local volume pins the pod to its node', async (t) => {
  const s = await start(t, { nodes: [node('n1'), node('n2'), node('n3')], volumes: [localPV('pv-2', 'n2')], claims: [claim('c', { volumeName: 'pv-2' })] });
  for (let i = 0; i < 4; i++) await s.create(withClaim(`p${i}`, 'c'));
  await eventually(() => [0, 1, 2, 3].every((i) => s.nodeOf(`p${i}`)), 10_000, 'all scheduled');
  t.same([0, 1, 2, 3].map((i) => s.nodeOf(`p${i}`)), ['n2', 'n2', 'n2', 'n2']);
  await s.create(withClaim('elsewhere', 'c', { nodeSelector: { 'kubernetes.io/hostname': 'n1' } }));
  await eventually(() => s.failures('elsewhere').length > 0, 5_000, 'FailedScheduling');
  t.match(s.failures('elsewhere')[0], /0\/3 nodes are available: .*node\(s\) had volume node affinity conflict/);
});

t.test('a WaitForFirstConsumer claim gets the chosen node before the pod is bound', async (t) => {
  const s = await start(t, { nodes: [node('n1')], classes: [storageClass('lazy', 'WaitForFirstConsumer')], claims: [claim('c', { className: 'lazy' })] });
  await s.create(withClaim('p', 'c'));
  await eventually(() => s.nodeOf('p') === 'n1', 10_000, 'scheduled');
  const c = await s.fake.resource(resources.persistentvolumeclaims).get('default', 'c');
  t.equal(c.metadata.annotations?.['volume.kubernetes.io/selected-node'], 'n1');
  const order = s.fake.actions.filter((a) => (a.verb === 'patch' && a.resource === 'persistentvolumeclaims') || (a.verb === 'create-subresource' && a.subresource === 'binding')).map((a) => a.verb);
  t.same(order, ['patch', 'create-subresource'], 'the claim is annotated before the Binding');
});
