// The CronJob and TTL-after-finished controllers against an in-memory API; time moves only
// when the test steps the clock (it starts at 2023-11-14T22:13:20Z).
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { resources } from '../../src/client/index.js';
import { CronJobController } from '../../src/controllers/cronjob/index.js';
import { TTLAfterFinishedController } from '../../src/controllers/ttlafterfinished/index.js';
import { harness } from './replicaset-harness.js';

function setup(t: Test) {
  const h = harness(t, (ctx) => [new CronJobController(ctx), new TTLAfterFinishedController(ctx)]);
  const jobs = () => h.fake.list(resources.jobs, 'default').filter((j) => !j.metadata.deletionTimestamp).map((j) => j.metadata.name as string).sort();
  const cj = () => h.fake.get(resources.cronjobs, 'default', 'tick')!;
  const finish = async (name: string, type: 'Complete' | 'Failed') => {
    const job = h.fake.get(resources.jobs, 'default', name)!;
    const now = new Date(h.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    await h.fake.resource(resources.jobs).updateStatus({ ...job, status: { startTime: now, ...(type === 'Complete' ? { completionTime: now } : {}), conditions: [{ type, status: 'True', lastTransitionTime: now }] } });
  };
  return { ...h, jobs, cj, finish };
}

function cronJob(spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'tick', namespace: 'default', uid: 'uid-tick', generation: 1, creationTimestamp: '2023-11-14T22:13:20Z' },
    spec: {
      schedule: '* * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: { team: 'a' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      ...spec,
    },
    status: {},
  };
}

const minute = (iso: string) => String(Date.parse(iso) / 60_000);

t.test('a Job at each scheduled minute, named by the minute, owned, annotated and tracked in status', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.cronjobs, cronJob());
  await h.start();
  await h.settle();
  t.same(h.jobs(), [], 'nothing before the first scheduled time');
  await h.advance(40_200); // 22:14:00
  const name = `tick-${minute('2023-11-14T22:14:00Z')}`;
  t.same(h.jobs(), [name]);
  const job = h.fake.get(resources.jobs, 'default', name)!;
  t.same(job.metadata.labels, { team: 'a' });
  t.equal(job.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2023-11-14T22:14:00Z');
  t.match(job.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'uid-tick', controller: true }]);
  t.match(h.cj().status, { lastScheduleTime: '2023-11-14T22:14:00Z', active: [{ kind: 'Job', name, apiVersion: 'batch/v1' }] });
  t.match(h.events('SuccessfulCreate'), [{ message: `Created job ${name}` }]);
  await h.finish(name, 'Complete');
  await h.settle();
  t.notOk(h.cj().status.active, 'a finished Job leaves status.active');
  t.equal(h.cj().status.lastSuccessfulTime, '2023-11-14T22:14:00Z');
  t.match(h.events('SawCompletedJob'), [{ message: `Saw completed job: ${name}, condition: Complete` }]);
});

t.test('concurrencyPolicy Forbid skips while a Job runs; Replace deletes it', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.cronjobs, cronJob({ concurrencyPolicy: 'Forbid' }));
  await h.start();
  await h.advance(40_200);
  await h.advance(60_000);
  t.equal(h.jobs().length, 1, 'the second minute is skipped');
  t.match(h.events('JobAlreadyActive'), [{ message: 'Not starting job because prior execution is running and concurrency policy is Forbid' }]);
  await h.fake.resource(resources.cronjobs).update({ ...h.cj(), spec: { ...h.cj().spec, concurrencyPolicy: 'Replace' } });
  await h.advance(60_000);
  t.same(h.jobs(), [`tick-${minute('2023-11-14T22:16:00Z')}`], 'the running Job was replaced');
});

t.test('history limits, suspend, startingDeadlineSeconds and timeZone', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.cronjobs, cronJob({ successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 }));
  await h.start();
  await h.advance(40_200);
  await h.finish(h.jobs()[0], 'Complete');
  await h.advance(60_000);
  await h.finish(h.jobs()[1], 'Complete');
  await h.settle();
  t.same(h.jobs(), [`tick-${minute('2023-11-14T22:15:00Z')}`], 'one successful Job kept');
  await h.advance(60_000);
  const failed = `tick-${minute('2023-11-14T22:16:00Z')}`;
  await h.finish(failed, 'Failed');
  await h.settle();
  t.notOk(h.jobs().includes(failed), 'failedJobsHistoryLimit 0 keeps none');

  await h.fake.resource(resources.cronjobs).update({ ...h.cj(), spec: { ...h.cj().spec, suspend: true } });
  await h.advance(180_000);
  t.equal(h.jobs().length, 1, 'suspended: no Jobs');
  // Resumed 10 s past a minute with a 5 s starting deadline: the missed time is not started.
  await h.advance(10_000);
  await h.fake.resource(resources.cronjobs).update({ ...h.cj(), spec: { ...h.cj().spec, suspend: false, startingDeadlineSeconds: 5 } });
  await h.settle();
  t.equal(h.jobs().length, 1, 'past its starting deadline');
  await h.advance(50_000);
  t.equal(h.jobs().length, 2, 'the next time starts');

  const h3 = setup(t);
  h3.fake.seed(resources.cronjobs, cronJob({ schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }));
  await h3.start();
  await h3.advance((60 + 46) * 60_000 + 40_200);
  t.same(h3.jobs(), [`tick-${minute('2023-11-15T00:00:00Z')}`]);
  t.equal(h3.fake.get(resources.jobs, 'default', h3.jobs()[0])!.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2023-11-15T09:00:00+09:00');
});

t.test('ttlSecondsAfterFinished deletes a finished Job that long after it finished', async (t) => {
  const h = setup(t);
  h.fake.seed(resources.jobs, {
    metadata: { name: 'done', namespace: 'default', uid: 'uid-done', creationTimestamp: '2023-11-14T22:00:00Z' },
    spec: { ttlSecondsAfterFinished: 30, template: {} },
    status: {},
  });
  await h.start();
  await h.finish('done', 'Complete');
  await h.settle();
  await h.advance(29_000);
  t.ok(h.fake.get(resources.jobs, 'default', 'done'), 'still there before the TTL');
  await h.advance(1_500);
  t.notOk(h.fake.get(resources.jobs, 'default', 'done') && !h.fake.get(resources.jobs, 'default', 'done')!.metadata.deletionTimestamp, 'deleted after the TTL');
  t.match(h.fake.actions.filter((a) => a.verb === 'delete' && a.resource === 'jobs'), [{ name: 'done' }]);
});
