// The Deployment controller with the ReplicaSet controller, against an in-memory API: the
// maxSurge/maxUnavailable arithmetic, rollouts step by step (invariants checked after every
// reconcile), Recreate, revisions and their cleanup, pause, resize, conditions.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { resources } from '../../src/client/index.js';
import { DeploymentController, maxUnavailable, newRSNewReplicas, podTemplateHash, resolveFenceposts } from '../../src/controllers/deployment/index.js';
import { ReplicaSetController } from '../../src/controllers/replicaset/index.js';
import { harness, permutations, podObject } from './replicaset-harness.js';

function setup(t: Test) {
  const h = harness(t, (ctx) => [new DeploymentController(ctx), new ReplicaSetController(ctx)]);
  const dAPI = h.fake.resource(resources.deployments);
  return {
    ...h,
    dAPI,
    deployment: () => h.fake.get(resources.deployments, 'default', 'web')!,
    patch: (body: object) => dAPI.patch('default', 'web', 'merge', body),
    setImage: (image: string) => dAPI.patch('default', 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }),
    /** [spec.replicas of each ReplicaSet by image] */
    sizes: () => Object.fromEntries(h.replicaSets().map((rs) => [rs.spec.template.spec.containers[0].image, rs.spec.replicas])),
  };
}

function deployment(replicas: number, strategy: object = {}, extra: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'default', annotations: { 'kubernetes.io/change-cause': 'first' } },
    spec: {
      replicas, selector: { matchLabels: { app: 'web' } }, strategy,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...extra,
    },
  };
}

const condition = (d: KubeObject, type: string) => d.status?.conditions?.find((c: { type: string }) => c.type === type);

t.test('maxSurge rounds up, maxUnavailable rounds down, both zero means one unavailable', async (t) => {
  const cases: [number, number | string, number | string, number, number][] = [
    [10, '25%', '25%', 3, 2],
    [3, '25%', '25%', 1, 0],
    [4, 1, 0, 1, 0],
    [5, 0, 0, 0, 1],
    [5, '0%', '0%', 0, 1],
    [10, '0%', '30%', 0, 3],
    [1, '50%', '50%', 1, 0],
    [7, '10%', '10%', 1, 0],
    [0, '25%', '25%', 0, 1],
  ];
  for (const [replicas, surge, unavailable, wantSurge, wantUnavailable] of cases) {
    t.same(resolveFenceposts({ maxSurge: surge, maxUnavailable: unavailable }, replicas), [wantSurge, wantUnavailable], `${replicas} replicas, surge ${surge}, unavailable ${unavailable}`);
  }
  t.equal(maxUnavailable(deployment(2, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } })), 2, 'never more than replicas');
  t.equal(maxUnavailable(deployment(4, { type: 'Recreate' })), 0, 'Recreate has no maxUnavailable');
});

t.test('newRSNewReplicas stays within replicas + maxSurge', async (t) => {
  const rs = (replicas: number): KubeObject => ({ metadata: { name: `rs${replicas}` }, spec: { replicas } });
  const cases: [number, string | number, number, number[], number][] = [
    // replicas, maxSurge, new RS size, old RS sizes, want
    [3, 1, 0, [3], 1],
    [3, 1, 1, [2], 2],
    [3, 1, 1, [3], 1],
    [10, '25%', 0, [10], 3],
    [10, '25%', 3, [8], 5],
    [10, '25%', 9, [0], 10],
    [4, 0, 0, [3], 1],
  ];
  for (const [replicas, surge, cur, old, want] of cases) {
    const d = deployment(replicas, { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: 1 } });
    const newRS = rs(cur);
    t.equal(newRSNewReplicas(d, [...old.map(rs), newRS], newRS), want, `${replicas} replicas, surge ${surge}, new ${cur}, old ${old}`);
  }
});

t.test('the pod-template-hash is stable and changes with the template and the collision count', async (t) => {
  const a = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };
  const reordered = { spec: { containers: [{ image: 'nginx:1', name: 'c' }] }, metadata: { labels: { app: 'web' } } };
  t.match(podTemplateHash(a), /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
  t.equal(podTemplateHash(a), podTemplateHash(reordered), 'key order does not matter');
  t.not(podTemplateHash(a), podTemplateHash({ ...a, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }));
  t.not(podTemplateHash(a), podTemplateHash(a, 1));
  t.equal(podTemplateHash(a), podTemplateHash({ ...a, metadata: { ...a.metadata, creationTimestamp: null } }), 'Go zero values (as kubectl sends) do not count');
});

t.test('a new Deployment gets a ReplicaSet <name>-<hash> with revision annotations, pods, status and conditions', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(3));
  await h.settle();
  const [rs] = h.replicaSets();
  const hash = rs.metadata.labels!['pod-template-hash'];
  t.equal(rs.metadata.name, `web-${hash}`);
  t.same(rs.spec.selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
  t.same(rs.spec.template.metadata.labels, { app: 'web', 'pod-template-hash': hash });
  t.match(rs.metadata.annotations, {
    'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3',
    'deployment.kubernetes.io/max-replicas': '4', 'kubernetes.io/change-cause': 'first',
  });
  t.match(rs.metadata.ownerReferences, [{ kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true }]);
  t.equal(h.pods().length, 3);
  t.ok(h.pods().every((p) => p.metadata.labels!['pod-template-hash'] === hash));
  t.same(h.events('ScalingReplicaSet').map((e) => e.message), [`Scaled up replica set web-${hash} to 3`]);
  let d = h.deployment();
  t.equal(d.metadata.annotations!['deployment.kubernetes.io/revision'], '1');
  t.match(d.status, { replicas: 3, updatedReplicas: 3, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 3 });
  t.match(condition(d, 'Available'), { status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
  t.match(condition(d, 'Progressing'), { status: 'True', reason: 'ReplicaSetUpdated' });
  await h.markReady();
  await h.settle();
  d = h.deployment();
  t.match(d.status, { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
  t.notOk(d.status.unavailableReplicas);
  t.match(condition(d, 'Available'), { status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
  t.match(condition(d, 'Progressing'), { status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "web-${hash}" has successfully progressed.` });
});

const rollouts: [number, number | string, number | string][] = [
  [3, 1, 0],
  [3, 0, 1],
  [10, '25%', '25%'],
  [5, '50%', '0%'],
  [4, '0%', '50%'],
  [6, 2, 2],
];
for (const [replicas, surge, unavailable] of rollouts) {
  t.test(`rolling update of ${replicas} with maxSurge ${surge}, maxUnavailable ${unavailable} stays within bounds at every step`, async (t) => {
    const h = setup(t);
    const [maxSurge, maxUnav] = resolveFenceposts({ maxSurge: surge, maxUnavailable: unavailable }, replicas);
    await h.start();
    await h.dAPI.create('default', deployment(replicas, { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } }));
    await h.settle();
    await h.markReady();
    await h.settle();
    t.same(h.sizes(), { 'nginx:1': replicas });
    await h.setImage('nginx:2');
    let worstTotal = 0, worstReady = Infinity;
    const check = () => {
      const pods = h.pods().filter((p) => !p.metadata.deletionTimestamp);
      const specTotal = h.replicaSets().reduce((n, rs) => n + rs.spec.replicas, 0);
      // Pods may briefly exceed it while one ReplicaSet's deletes race another's creates (as in
      // Kubernetes); the ReplicaSets' sizes may not.
      worstTotal = Math.max(worstTotal, specTotal);
      worstReady = Math.min(worstReady, pods.filter((p) => p.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True')).length);
    };
    const timeline: string[] = [];
    for (let round = 0; round < 40; round++) {
      await h.settle(500, check);
      const s = h.sizes();
      timeline.push(`${s['nginx:1']}/${s['nginx:2']}`);
      if (s['nginx:1'] === 0 && s['nginx:2'] === replicas && h.pods().length === replicas && h.pods().every((p) => p.status?.phase === 'Running')) break;
      await h.markReady();
    }
    t.ok(worstTotal <= replicas + maxSurge, `ReplicaSets never sized above ${replicas + maxSurge} (saw ${worstTotal}); ${timeline.join(' ')}`);
    t.ok(worstReady >= replicas - maxUnav, `never fewer than ${replicas - maxUnav} ready (saw ${worstReady})`);
    t.same(h.sizes(), { 'nginx:1': 0, 'nginx:2': replicas }, timeline.join(' '));
    await h.settle();
    const d = h.deployment();
    t.match(d.status, { observedGeneration: 2, replicas, updatedReplicas: replicas, availableReplicas: replicas });
    t.match(condition(d, 'Progressing'), { reason: 'NewReplicaSetAvailable' });
    t.equal(d.metadata.annotations!['deployment.kubernetes.io/revision'], '2');
  });
}

t.test('maxSurge 1, maxUnavailable 0 of 3: the exact steps', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(3, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }));
  await h.settle();
  await h.markReady();
  await h.settle();
  await h.setImage('nginx:2');
  const steps: string[] = [];
  for (let i = 0; i < 8; i++) {
    await h.settle();
    const s = h.sizes();
    steps.push(`${s['nginx:1']}/${s['nginx:2']}`);
    await h.markReady();
  }
  t.same(steps.slice(0, 4), ['3/1', '2/2', '1/3', '0/3']);
  const scaling = h.events('ScalingReplicaSet').map((e) => e.message.replace(/web-\w+/, 'RS'));
  t.same(scaling, ['Scaled up replica set RS to 3', 'Scaled up replica set RS to 1', 'Scaled down replica set RS to 2', 'Scaled up replica set RS to 2',
    'Scaled down replica set RS to 1', 'Scaled up replica set RS to 3', 'Scaled down replica set RS to 0']);
});

t.test('Recreate: old pods are all gone before the new ReplicaSet scales up', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(3, { type: 'Recreate' }));
  await h.settle();
  await h.markReady();
  await h.settle();
  await h.setImage('nginx:2');
  let mixed = false;
  await h.settle(500, () => {
    const images = new Set(h.pods().map((p) => p.spec.containers[0].image));
    if (images.size > 1) mixed = true;
  });
  t.notOk(mixed, 'never old and new pods at once');
  t.same(h.sizes(), { 'nginx:1': 0, 'nginx:2': 3 });
  t.ok(h.pods().every((p) => p.spec.containers[0].image === 'nginx:2'));
});

t.test('revisions: a template seen before takes the next revision; history beyond revisionHistoryLimit is deleted', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(2, {}, { revisionHistoryLimit: 1 }));
  const complete = async () => { for (let i = 0; i < 6; i++) { await h.settle(); await h.markReady(); } await h.settle(); };
  await complete();
  await h.patch({ metadata: { annotations: { 'kubernetes.io/change-cause': 'second' } } });
  await h.setImage('nginx:2');
  await complete();
  const revs = () => Object.fromEntries(h.replicaSets().map((rs) => [rs.spec.template.spec.containers[0].image, rs.metadata.annotations!['deployment.kubernetes.io/revision']]));
  t.same(revs(), { 'nginx:1': '1', 'nginx:2': '2' });
  t.equal(h.replicaSets().find((rs) => rs.spec.template.spec.containers[0].image === 'nginx:2')!.metadata.annotations!['kubernetes.io/change-cause'], 'second');
  // what kubectl rollout undo does: the old ReplicaSet's template, without the hash label,
  // serialised by Go (creationTimestamp: null)
  const rs1 = h.replicaSets().find((rs) => rs.spec.template.spec.containers[0].image === 'nginx:1')!;
  const undone = structuredClone(rs1.spec.template);
  delete undone.metadata.labels['pod-template-hash'];
  undone.metadata.creationTimestamp = null;
  await h.dAPI.update({ ...h.deployment(), spec: { ...h.deployment().spec, template: undone } });
  await complete();
  t.same(revs(), { 'nginx:1': '3', 'nginx:2': '2' }, 'the old ReplicaSet is reused with the next revision');
  const old = h.replicaSets().find((rs) => rs.spec.template.spec.containers[0].image === 'nginx:1')!;
  t.equal(old.metadata.annotations!['deployment.kubernetes.io/revision-history'], '1');
  t.equal(h.deployment().metadata.annotations!['deployment.kubernetes.io/revision'], '3');
  await h.setImage('nginx:3');
  await complete();
  t.same(revs(), { 'nginx:1': '3', 'nginx:3': '4' }, 'only one old revision is kept');
  t.equal(h.pods().length, 2);
});

t.test('paused: template changes wait, resizes do not; resuming rolls out', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(2));
  await h.settle();
  await h.markReady();
  await h.settle();
  await h.patch({ spec: { paused: true } });
  await h.setImage('nginx:2');
  await h.settle();
  t.same(h.sizes(), { 'nginx:1': 2 }, 'no new ReplicaSet while paused');
  t.match(condition(h.deployment(), 'Progressing'), { status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' });
  await h.patch({ spec: { replicas: 4 } });
  await h.settle();
  t.same(h.sizes(), { 'nginx:1': 4 }, 'resized while paused');
  t.equal(h.replicaSets()[0].metadata.annotations!['deployment.kubernetes.io/desired-replicas'], '4');
  await h.patch({ spec: { paused: false } });
  await h.settle();
  t.equal(h.sizes()['nginx:2'] > 0, true, 'rolls out after resume');
  t.match(condition(h.deployment(), 'Progressing'), { status: 'True', reason: 'ReplicaSetUpdated' });
});

t.test('a resize in the middle of a rollout is spread proportionally', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(10, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } }));
  await h.settle();
  await h.markReady();
  await h.settle();
  await h.setImage('nginx:2');
  await h.settle();
  const before = h.sizes();
  t.same(before, { 'nginx:1': 8, 'nginx:2': 5 });
  await h.patch({ spec: { replicas: 20 } });
  await h.settle();
  const after = h.sizes();
  t.equal(after['nginx:1'] + after['nginx:2'], 23, 'total is the new replicas + maxSurge');
  t.ok(after['nginx:1'] > 8 && after['nginx:2'] > 5, `both grew: ${JSON.stringify(after)}`);
  for (const rs of h.replicaSets()) t.equal(rs.metadata.annotations!['deployment.kubernetes.io/desired-replicas'], '20');
});

t.test('ProgressDeadlineExceeded when pods never become available', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(2, {}, { progressDeadlineSeconds: 60 }));
  await h.settle();
  t.match(condition(h.deployment(), 'Progressing'), { status: 'True' });
  await h.advance(30_000);
  t.match(condition(h.deployment(), 'Progressing'), { status: 'True' });
  await h.advance(32_000);
  const d = h.deployment();
  const hash = h.replicaSets()[0].metadata.labels!['pod-template-hash'];
  t.match(condition(d, 'Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "web-${hash}" has timed out progressing.` });
  await h.markReady();
  await h.settle();
  t.match(condition(h.deployment(), 'Progressing'), { status: 'True', reason: 'NewReplicaSetAvailable' });
});

t.test('an orphan ReplicaSet with the template is adopted, whatever order the objects arrive in', async (t) => {
  const d = deployment(2);
  const hash = podTemplateHash(d.spec.template);
  const labels = { app: 'web', 'pod-template-hash': hash };
  const orphanRS: KubeObject = {
    metadata: { name: `web-${hash}`, namespace: 'default', labels },
    spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: d.spec.template.spec } },
  };
  const fixtures: [string, (h: ReturnType<typeof setup>) => Promise<unknown>][] = [
    ['deployment', (h) => h.dAPI.create('default', d)],
    // After the Deployment, its own ReplicaSet already holds the name: that race is part of the test.
    ['replicaset', (h) => h.fake.resource(resources.replicasets).create('default', orphanRS).catch((e) => { if (e.reason !== 'AlreadyExists') throw e; })],
    ['pod', (h) => h.fake.resource(resources.pods).create('default', podObject('web-orphan', labels))],
  ];
  const outcomes = new Set<string>();
  for (const order of permutations(fixtures)) {
    await t.test(order.map(([n]) => n).join(','), async (t) => {
      const h = setup(t);
      await h.start();
      for (const [, make] of order) { await make(h); await h.settle(); }
      const rss = h.replicaSets();
      t.equal(rss.length, 1, 'no second ReplicaSet');
      t.equal(rss[0].metadata.ownerReferences?.[0].kind, 'Deployment');
      t.equal(h.pods().length, 2);
      outcomes.add(JSON.stringify({ rs: rss.map((r) => [r.metadata.name, r.spec.replicas]), pods: h.pods().length, owned: h.pods().every((p) => p.metadata.ownerReferences?.[0].name === `web-${hash}`) }));
    });
  }
  t.equal(outcomes.size, 1, [...outcomes].join(' | '));
});

t.test('a Deployment with an empty selector only reports SelectingAll', async (t) => {
  const h = setup(t);
  await h.start();
  const d = deployment(2);
  d.spec.selector = {};
  await h.dAPI.create('default', d);
  await h.settle();
  t.equal(h.replicaSets().length, 0);
  t.match(h.events('SelectingAll'), [{ type: 'Warning' }]);
});

t.test('a stale desired-replicas annotation is repaired and does not block the next rollout', async (t) => {
  const h = setup(t);
  await h.start();
  await h.dAPI.create('default', deployment(3));
  await h.settle();
  const [rs] = h.replicaSets();
  await h.fake.resource(resources.replicasets).patch('default', rs.metadata.name as string, 'merge', { metadata: { annotations: { 'deployment.kubernetes.io/desired-replicas': '5' } } });
  await h.settle();
  t.equal(h.replicaSets()[0].metadata.annotations!['deployment.kubernetes.io/desired-replicas'], '3');
  t.equal(h.replicaSets()[0].spec.replicas, 3);
  await h.markReady();
  await h.setImage('nginx:2');
  await h.settle();
  t.ok(h.sizes()['nginx:2'] > 0, 'the new template rolls out');
});
