// The Job controller against an in-memory API with a driven clock: pods made from the
// template and tracked by the job-tracking finalizer, counted once through
// uncountedTerminatedPods, Indexed Jobs, failure backoff and the backoff limit, the active
// deadline, suspend/resume, podFailurePolicy and backoffLimitPerIndex, and the terminal
// conditions with upstream's reasons.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { resources } from '../../src/client/index.js';
import { JobController } from '../../src/controllers/job/index.js';
import { harness } from './replicaset-harness.js';

function setup(t: Test) {
  let ctrl!: JobController;
  const h = harness(t, (ctx) => [(ctrl = new JobController(ctx))]);
  const job = () => h.fake.get(resources.jobs, 'default', 'work')!;
  const pods = () => h.pods().filter((p) => !p.metadata.deletionTimestamp);
  const finish = async (pod: KubeObject, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1) => {
    const finishedAt = new Date(h.clock.now()).toISOString();
    await h.fake.resource(resources.pods).updateStatus({ ...pod, status: { phase, containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { terminated: { exitCode, finishedAt } } }] } });
  };
  const running = (ps = pods()) => ps.filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase));
  const conditions = () => (job().status.conditions ?? []).map((c: KubeObject) => `${c.type}=${c.status}:${c.reason}`);
  return { ...h, ctrl: () => ctrl, job, pods, finish, running, conditions };
}

function jobObject(spec: Record<string, unknown>): KubeObject {
  const uid = 'uid-work';
  const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'work' };
  return {
    metadata: { name: 'work', namespace: 'default', uid, generation: 1, creationTimestamp: '2023-11-14T22:00:00Z' },
    spec: {
      parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
      ...spec,
    },
    status: {},
  };
}

t.test('NonIndexed: parallelism pods at a time until completions succeed, then SuccessCriteriaMet and Complete', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ completions: 3, parallelism: 2 }));
  await h.start();
  await h.settle();
  t.equal(h.pods().length, 2);
  for (const p of h.pods()) {
    t.match(p.metadata.name, /^work-[a-z0-9]{5}$/);
    t.same(p.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    t.match(p.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'work', controller: true, blockOwnerDeletion: true }]);
  }
  t.match(h.job().status, { active: 2, succeeded: 0, failed: 0, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
  t.ok(h.job().status.startTime);
  await h.finish(h.pods()[0], 'Succeeded');
  await h.settle();
  const done = h.pods().filter((p) => p.status?.phase === 'Succeeded');
  t.same(done[0].metadata.finalizers, undefined, 'the counted pod lost its finalizer');
  t.match(h.job().status, { active: 2, succeeded: 1 });
  t.equal(h.pods().length, 3, 'one more pod for the remaining completions');
  for (const p of h.running()) await h.finish(p, 'Succeeded');
  await h.settle();
  t.match(h.job().status, { active: 0, succeeded: 3, failed: 0 });
  t.same(h.conditions(), ['SuccessCriteriaMet=True:CompletionsReached', 'Complete=True:CompletionsReached']);
  t.equal(h.job().status.conditions[1].message, 'Reached expected number of succeeded pods');
  t.ok(h.job().status.completionTime);
  t.equal(h.events('Completed').length, 1);
  t.equal(h.pods().length, 3, 'no pods beyond the completions');
  t.ok(h.pods().every((p) => !p.metadata.finalizers), 'no finalizer left');
});

t.test('a finished pod is counted once even while the cache still shows its finalizer', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ completions: 2, parallelism: 1 }));
  await h.start();
  await h.settle();
  await h.finish(h.pods()[0], 'Succeeded');
  await h.fake.delivered();
  await h.informers.informerFor(resources.pods).stop(); // the cache stops at "succeeded, finalizer on"
  await h.ctrl().reconcile('default/work');
  await h.ctrl().reconcile('default/work');
  await h.ctrl().reconcile('default/work');
  t.equal(h.job().status.succeeded, 1, 'counted once, not once per sync');
});

t.test('failures back off 10 s, 20 s… and the Job fails past backoffLimit', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ backoffLimit: 1 }));
  await h.start();
  await h.settle();
  await h.finish(h.pods()[0], 'Failed');
  await h.settle();
  t.match(h.job().status, { failed: 1, active: 0 });
  t.equal(h.pods().length, 1, 'no replacement during the backoff');
  await h.advance(9_000);
  t.equal(h.pods().length, 1);
  await h.advance(1_200);
  t.equal(h.pods().length, 2, 'replaced after 10 s');
  await h.finish(h.running()[0], 'Failed');
  await h.settle();
  t.match(h.job().status, { failed: 2, active: 0 });
  t.same(h.conditions(), ['FailureTarget=True:BackoffLimitExceeded', 'Failed=True:BackoffLimitExceeded']);
  t.equal(h.job().status.conditions[1].message, 'Job has reached the specified backoff limit');
  t.notOk(h.job().status.completionTime);
  t.match(h.events('BackoffLimitExceeded'), [{ type: 'Warning', message: 'Job has reached the specified backoff limit' }]);
});

t.test('Indexed: one pod per index with the index in annotation, label, env and hostname', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ completionMode: 'Indexed', completions: 3, parallelism: 3 }));
  await h.start();
  await h.settle();
  const pods = h.pods();
  t.equal(pods.length, 3);
  const indexes = pods.map((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index']).sort();
  t.same(indexes, ['0', '1', '2']);
  for (const p of pods) {
    const i = p.metadata.annotations!['batch.kubernetes.io/job-completion-index'];
    t.equal(p.metadata.labels!['batch.kubernetes.io/job-completion-index'], i);
    t.match(p.metadata.name, new RegExp(`^work-${i}-[a-z0-9]{5}$`));
    t.equal(p.spec.hostname, `work-${i}`);
    t.same(p.spec.containers[0].env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }]);
  }
  const byIndex = (i: string) => h.pods().find((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'] === i && !p.status?.phase?.match(/Succeeded|Failed/))!;
  await h.finish(byIndex('1'), 'Failed');
  await h.settle();
  await h.advance(10_500);
  t.ok(byIndex('1'), 'a failed index gets a new pod');
  await h.finish(byIndex('0'), 'Succeeded');
  await h.finish(byIndex('2'), 'Succeeded');
  await h.settle();
  t.equal(h.job().status.completedIndexes, '0,2');
  await h.finish(byIndex('1'), 'Succeeded');
  await h.settle();
  t.equal(h.job().status.completedIndexes, '0-2');
  t.match(h.job().status, { succeeded: 3, failed: 1 });
  t.same(h.conditions(), ['SuccessCriteriaMet=True:CompletionsReached', 'Complete=True:CompletionsReached']);
});

t.test('successPolicy ends an Indexed Job early and removes the rest of its pods', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ completionMode: 'Indexed', completions: 3, parallelism: 3, successPolicy: { rules: [{ succeededIndexes: '0' }] } }));
  await h.start();
  await h.settle();
  await h.finish(h.pods().find((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'] === '0')!, 'Succeeded');
  await h.settle();
  t.same(h.conditions(), ['SuccessCriteriaMet=True:SuccessPolicy', 'Complete=True:SuccessPolicy']);
  t.equal(h.job().status.conditions[0].message, 'Matched rules at index 0');
  t.equal(h.pods().length, 1, 'the other indexes were deleted');
});

t.test('activeDeadlineSeconds fails the Job with DeadlineExceeded and deletes its pods', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ parallelism: 2, completions: 4, activeDeadlineSeconds: 30 }));
  await h.start();
  await h.settle();
  t.equal(h.pods().length, 2);
  await h.advance(30_200);
  t.same(h.conditions(), ['FailureTarget=True:DeadlineExceeded', 'Failed=True:DeadlineExceeded']);
  t.equal(h.job().status.conditions[0].message, 'Job was active longer than specified deadline');
  t.equal(h.pods().length, 0);
  t.match(h.job().status, { active: 0, failed: 0 }, 'pods the controller deleted are not failures');
});

t.test('suspend deletes active pods and resume starts again', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ suspend: true, parallelism: 2, completions: 2 }));
  await h.start();
  await h.settle();
  t.equal(h.pods().length, 0);
  t.same(h.conditions(), ['Suspended=True:JobSuspended']);
  t.notOk(h.job().status.startTime);
  await h.fake.resource(resources.jobs).update({ ...h.job(), spec: { ...h.job().spec, suspend: false } });
  await h.settle();
  t.equal(h.pods().length, 2);
  t.same(h.conditions(), ['Suspended=False:JobResumed']);
  t.ok(h.job().status.startTime);
  await h.fake.resource(resources.jobs).update({ ...h.job(), spec: { ...h.job().spec, suspend: true } });
  await h.settle();
  t.equal(h.pods().length, 0);
  t.match(h.job().status, { active: 0, failed: 0 });
  t.match(h.events('Suspended'), [{ type: 'Normal', message: 'Job suspended' }]);
});

t.test('podFailurePolicy: Ignore does not count, FailJob fails at once with upstream\'s message', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({
    backoffLimit: 6, podReplacementPolicy: 'Failed',
    podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } }, { action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } }] },
  }));
  await h.start();
  await h.settle();
  await h.finish(h.pods()[0], 'Failed', 3);
  await h.settle();
  t.match(h.job().status, { failed: 0 }, 'ignored');
  t.equal(h.running().length, 1, 'replaced without backoff');
  const pod = h.running()[0];
  await h.finish(pod, 'Failed', 42);
  await h.settle();
  t.same(h.conditions(), ['FailureTarget=True:PodFailurePolicy', 'Failed=True:PodFailurePolicy']);
  t.equal(h.job().status.conditions[0].message, `Container c for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 1`);
});

t.test('backoffLimitPerIndex: an index fails on its own and the Job fails with FailedIndexes', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 0, backoffLimit: 2147483647 }));
  await h.start();
  await h.settle();
  const idx = (p: KubeObject) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'];
  t.same(h.pods().map((p) => p.metadata.annotations!['batch.kubernetes.io/job-index-failure-count']), ['0', '0']);
  await h.finish(h.pods().find((p) => idx(p) === '0')!, 'Failed');
  await h.settle();
  await h.advance(11_000);
  t.equal(h.job().status.failedIndexes, '0');
  t.equal(h.pods().filter((p) => idx(p) === '0').length, 1, 'a failed index is not retried');
  await h.finish(h.running()[0], 'Succeeded');
  await h.settle();
  t.equal(h.job().status.completedIndexes, '1');
  t.same(h.conditions(), ['FailureTarget=True:FailedIndexes', 'Failed=True:FailedIndexes']);
});

t.test('a Job being deleted, or gone, leaves no tracking finalizer on its pods', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, jobObject({ parallelism: 2, completions: 2 }));
  await h.start();
  await h.settle();
  t.equal(h.pods().filter((p) => p.metadata.finalizers?.length).length, 2);
  const job = h.job();
  h.fake.seed(resources.jobs, { ...job, metadata: { ...job.metadata, deletionTimestamp: new Date(h.clock.now()).toISOString(), finalizers: ['foregroundDeletion'] } });
  await h.settle();
  t.equal(h.pods().filter((p) => p.metadata.finalizers?.length).length, 0, 'released while the Job is deleted in the foreground');

  h.fake.seed(resources.jobs, jobObject({ parallelism: 1, completions: 1 }), { ...jobObject({}), metadata: { ...jobObject({}).metadata, name: 'other', uid: 'uid-other' } });
  await h.settle();
  t.equal(h.pods().filter((p) => p.metadata.ownerReferences?.[0]?.uid === 'uid-other' && p.metadata.finalizers?.length).length, 1, 'the other Job runs a tracked pod');
  await h.fake.resource(resources.jobs).delete('default', 'other');
  await h.settle();
  const left = h.pods().filter((p) => p.metadata.ownerReferences?.[0]?.uid === 'uid-other' && p.metadata.finalizers?.length);
  t.equal(left.length, 0, 'a deleted Job\'s pods lose the finalizer');
});
