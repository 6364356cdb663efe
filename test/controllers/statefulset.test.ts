// The StatefulSet controller against an in-memory API with a driven clock: ordered creation
// and deletion with stable names, Parallel, rolling updates with a partition and
// maxUnavailable, OnDelete, rollbacks through ControllerRevisions, ordinals.start, claims
// from volumeClaimTemplates and their retention, minReadySeconds, replacement of failed pods.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { rfc3339 } from '../../src/api/time.js';
import { resources } from '../../src/client/index.js';
import { StatefulSetController } from '../../src/controllers/statefulset/index.js';
import { hashRevision, revisionData, revisionName } from '../../src/controllers/history/revisions.js';
import { harness } from './replicaset-harness.js';

function setup(t: Test) {
  const h = harness(t, (ctx) => [new StatefulSetController(ctx)]);
  const api = h.fake.resource(resources.statefulsets);
  const podsAPI = h.fake.resource(resources.pods);
  const s = {
    ...h, api,
    set: () => h.fake.get(resources.statefulsets, 'default', 'web')!,
    names: () => h.pods().filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name as string).sort(byOrdinal),
    revisions: () => h.fake.list(resources.controllerrevisions, 'default').sort((a, b) => a.revision - b.revision),
    image: (name: string) => h.fake.get(resources.pods, 'default', name)?.spec.containers[0].image,
    setImage: (image: string) => api.patch('default', 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }),
    /** Marks the named pods (default: every pod not yet ready) Running and Ready, then settles. */
    async ready(names?: string[]) {
      const now = rfc3339(new Date(h.clock.now()));
      for (const p of h.pods()) {
        if (names ? !names.includes(p.metadata.name as string) : p.status?.phase === 'Running') continue;
        await podsAPI.updateStatus({ ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } });
      }
      await h.settle();
    },
    /** Marks pods ready one wave at a time until the set stops creating or replacing pods. */
    async readyAll() {
      for (let i = 0; i < 50; i++) {
        const pending = h.pods().filter((p) => p.status?.phase !== 'Running');
        if (!pending.length) return;
        await s.ready(pending.map((p) => p.metadata.name as string));
      }
    },
  };
  return s;
}

const byOrdinal = (a: string, b: string) => Number(a.split('-').pop()) - Number(b.split('-').pop());

function statefulSet(replicas: number, spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas, serviceName: 'nginx', selector: { matchLabels: { app: 'web' } }, podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, revisionHistoryLimit: 10,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...spec,
    },
  };
}

t.test('OrderedReady creates web-0, web-1, web-2 one at a time, each after the previous is ready', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(3));
  await s.settle();
  t.same(s.names(), ['web-0'], 'only the first ordinal before it is ready');
  const pod = s.pods()[0] as KubeObject;
  t.equal(pod.spec.hostname, 'web-0');
  t.equal(pod.spec.subdomain, 'nginx', 'subdomain is the serviceName');
  t.equal(pod.metadata.labels?.['statefulset.kubernetes.io/pod-name'], 'web-0');
  t.equal(pod.metadata.labels?.['apps.kubernetes.io/pod-index'], '0');
  t.equal(pod.metadata.ownerReferences?.[0]?.kind, 'StatefulSet');
  await s.ready(['web-0']);
  t.same(s.names(), ['web-0', 'web-1']);
  await s.ready(['web-1']);
  t.same(s.names(), ['web-0', 'web-1', 'web-2']);
  await s.ready(['web-2']);
  const status = s.set().status;
  t.match(status, { replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, observedGeneration: 1 });
  t.equal(status.currentRevision, status.updateRevision);
  const revs = s.revisions();
  t.equal(revs.length, 1, 'one ControllerRevision');
  t.equal(revs[0].metadata.name, status.updateRevision);
  t.equal(revs[0].revision, 1);
  t.equal(revs[0].data.spec.template.$patch, 'replace', 'revision data is a patch kubectl can apply');
  t.equal((s.pods()[0] as KubeObject).metadata.labels?.['controller-revision-hash'], status.updateRevision, 'pods carry the revision name');
  t.same(s.events('SuccessfulCreate').map((e) => e.message), [0, 1, 2].map((i) => `create Pod web-${i} in StatefulSet web successful`));
});

t.test('Parallel creates every ordinal at once and scales down without waiting', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(3, { podManagementPolicy: 'Parallel' }));
  await s.settle();
  t.same(s.names(), ['web-0', 'web-1', 'web-2']);
  await s.api.patch('default', 'web', 'merge', { spec: { replicas: 1 } });
  await s.settle();
  t.same(s.names(), ['web-0']);
});

t.test('OrderedReady scales down from the highest ordinal, one pod at a time', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(3));
  await s.settle();
  await s.readyAll();
  t.same(s.names(), ['web-0', 'web-1', 'web-2']);
  const deletes: string[] = [];
  await s.api.patch('default', 'web', 'merge', { spec: { replicas: 1 } });
  await s.settle(500, () => {
    for (const e of s.events('SuccessfulDelete')) if (!deletes.includes(e.message)) deletes.push(e.message);
  });
  t.same(deletes, ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
  t.same(s.names(), ['web-0']);
  t.equal(s.set().status.replicas, 1);
});

t.test('a scale-down waits while a lower ordinal is unhealthy', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(3));
  await s.settle();
  await s.readyAll();
  const web0 = s.fake.get(resources.pods, 'default', 'web-0')!;
  await s.fake.resource(resources.pods).updateStatus({ ...web0, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } });
  await s.settle();
  await s.api.patch('default', 'web', 'merge', { spec: { replicas: 2 } });
  await s.settle();
  t.same(s.names(), ['web-0', 'web-1', 'web-2'], 'web-2 stays while web-0 is not ready');
  await s.ready(['web-0']);
  t.same(s.names(), ['web-0', 'web-1']);
});

t.test('a rolling update with a partition updates only the ordinals at or above it, highest first', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }));
  await s.settle();
  await s.readyAll();
  const first = s.set().status.currentRevision;
  await s.setImage('nginx:2');
  await s.settle();
  await s.readyAll();
  t.same(['web-0', 'web-1', 'web-2'].map(s.image), ['nginx:1', 'nginx:1', 'nginx:2'], 'only web-2 is updated');
  let status = s.set().status;
  t.equal(status.currentRevision, first, 'the current revision stays while the partition holds');
  t.not(status.updateRevision, first);
  t.match(status, { updatedReplicas: 1, currentReplicas: 2, readyReplicas: 3, observedGeneration: 2 });

  await s.api.patch('default', 'web', 'merge', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
  await s.settle();
  t.same(['web-0', 'web-1', 'web-2'].map(s.image), ['nginx:1', 'nginx:2', 'nginx:2'], 'web-1 goes next');
  t.not(s.fake.get(resources.pods, 'default', 'web-1')!.status?.phase, 'Running', 'web-0 waits while the new web-1 is not ready');
  await s.readyAll();
  t.same(['web-0', 'web-1', 'web-2'].map(s.image), ['nginx:2', 'nginx:2', 'nginx:2']);
  status = s.set().status;
  t.equal(status.currentRevision, status.updateRevision, 'the update revision becomes current when every pod runs it');
  t.match(status, { updatedReplicas: 3, currentReplicas: 3 });
  t.same(s.revisions().map((r) => r.revision), [1, 2]);
});

t.test('maxUnavailable replaces that many pods at once', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(4, { podManagementPolicy: 'Parallel' }));
  await s.settle();
  await s.readyAll();
  await s.api.patch('default', 'web', 'merge', { spec: { updateStrategy: { rollingUpdate: { maxUnavailable: 2 } }, template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
  await s.settle();
  t.same(['web-0', 'web-1', 'web-2', 'web-3'].map(s.image), ['nginx:1', 'nginx:1', 'nginx:2', 'nginx:2'], 'the two highest are replaced together');
  await s.readyAll();
  t.same(['web-0', 'web-1', 'web-2', 'web-3'].map(s.image), ['nginx:2', 'nginx:2', 'nginx:2', 'nginx:2']);
});

t.test('going back to an old template renumbers its revision instead of creating one', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(2));
  await s.settle();
  await s.readyAll();
  const [r1] = s.revisions();
  await s.setImage('nginx:2');
  await s.settle();
  await s.readyAll();
  await s.setImage('nginx:1');
  await s.settle();
  await s.readyAll();
  const revs = s.revisions();
  t.equal(revs.length, 2, 'no third revision');
  t.equal(revs[1].metadata.name, r1.metadata.name, 'the first revision is the newest again');
  t.equal(revs[1].revision, 3);
  t.equal(s.set().status.updateRevision, r1.metadata.name);
  t.same(['web-0', 'web-1'].map(s.image), ['nginx:1', 'nginx:1']);
});

t.test('revisionHistoryLimit deletes the oldest unused revisions', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(1, { revisionHistoryLimit: 1 }));
  await s.settle();
  for (const v of [2, 3, 4]) {
    await s.setImage(`nginx:${v}`);
    await s.settle();
    await s.readyAll();
  }
  t.same(s.revisions().map((r) => r.revision), [3, 4], 'the live revision and one more');
});

t.test('OnDelete leaves pods alone until they are deleted, then recreates them at the new revision', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(2, { updateStrategy: { type: 'OnDelete' } }));
  await s.settle();
  await s.readyAll();
  await s.setImage('nginx:2');
  await s.settle();
  t.same(['web-0', 'web-1'].map(s.image), ['nginx:1', 'nginx:1']);
  await s.fake.resource(resources.pods).delete('default', 'web-1');
  await s.settle();
  t.same(['web-0', 'web-1'].map(s.image), ['nginx:1', 'nginx:2']);
  await s.readyAll();
  t.match(s.set().status, { updatedReplicas: 1, currentReplicas: 1 });
});

t.test('ordinals.start numbers the pods from it', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(2, { ordinals: { start: 5 } }));
  await s.settle();
  await s.readyAll();
  t.same(s.names(), ['web-5', 'web-6']);
  await s.api.patch('default', 'web', 'merge', { spec: { ordinals: { start: 6 } } });
  await s.settle();
  await s.readyAll();
  t.same(s.names(), ['web-6', 'web-7'], 'web-5 is condemned, web-7 created');
});

t.test('volumeClaimTemplates: one claim per ordinal, mounted by the pod, handed to the pod on scale-down with whenScaled=Delete', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(2, {
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
  }));
  await s.settle();
  await s.readyAll();
  const claims = s.fake.list(resources.persistentvolumeclaims, 'default').map((c) => c.metadata.name).sort();
  t.same(claims, ['data-web-0', 'data-web-1']);
  const claim = s.fake.get(resources.persistentvolumeclaims, 'default', 'data-web-1')!;
  t.same(claim.metadata.labels, { app: 'web' }, 'claims carry the selector labels');
  t.equal(claim.metadata.ownerReferences?.[0]?.kind, 'StatefulSet', 'whenDeleted=Delete: owned by the set');
  const web1 = s.fake.get(resources.pods, 'default', 'web-1')!;
  t.same(web1.spec.volumes.find((v: { name: string }) => v.name === 'data'), { name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } });
  await s.api.patch('default', 'web', 'merge', { spec: { replicas: 1 } });
  await s.settle();
  const retired = s.fake.get(resources.persistentvolumeclaims, 'default', 'data-web-1')!;
  t.ok(retired.metadata.ownerReferences?.some((o: { kind: string; uid: string }) => o.kind === 'Pod' && o.uid === web1.metadata.uid), 'whenScaled=Delete: the condemned pod owns its claim');
});

t.test('minReadySeconds: the next ordinal waits until the previous pod has been ready that long', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(2, { minReadySeconds: 10 }));
  await s.settle();
  await s.ready(['web-0']);
  t.same(s.names(), ['web-0']);
  t.equal(s.set().status.availableReplicas, 0);
  await s.advance(11_000);
  t.same(s.names(), ['web-0', 'web-1']);
  t.equal(s.set().status.availableReplicas, 1);
});

t.test('a failed pod is deleted and recreated under the same name', async (t) => {
  const s = setup(t);
  await s.start();
  await s.api.create('default', statefulSet(1));
  await s.settle();
  await s.readyAll();
  const old = s.fake.get(resources.pods, 'default', 'web-0')!;
  await s.fake.resource(resources.pods).updateStatus({ ...old, status: { phase: 'Failed' } });
  await s.settle();
  const now = s.fake.get(resources.pods, 'default', 'web-0')!;
  t.ok(now, 'web-0 exists again');
  t.not(now.metadata.uid, old.metadata.uid, 'a new pod');
});

t.test('a revision name taken by other data bumps collisionCount and the next name is used', async (t) => {
  const s = setup(t);
  await s.start();
  const set = statefulSet(1);
  const taken = revisionName('web', hashRevision(revisionData(set.spec.template), 0));
  await s.fake.resource(resources.controllerrevisions).create('default', { metadata: { name: taken, namespace: 'default' }, data: { other: true }, revision: 1 });
  await s.api.create('default', set);
  await s.settle();
  const status = s.set().status;
  t.equal(status.collisionCount, 1);
  t.not(status.updateRevision, taken);
  t.equal(status.updateRevision, revisionName('web', hashRevision(revisionData(set.spec.template), 1)));
  t.same(s.names(), ['web-0']);
});
