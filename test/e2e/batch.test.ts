// Jobs and CronJobs end to end: `capstan up` with hollow nodes (whose containers exit as
// their command says), driven by real kubectl.
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const indexedJob = `apiVersion: batch/v1
kind: Job
metadata: {name: indexed}
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: work, image: busybox, command: [sh, -c, 'sleep 1; exit 0']}
`;

const failingJob = `apiVersion: batch/v1
kind: Job
metadata: {name: failing}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: work, image: busybox, command: [sh, -c, 'exit 2']}
`;

t.test('Jobs and CronJobs on hollow nodes', async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '2']);
  const k = kubectlFor(t, up.kubeconfig);
  await eventually(async () => (await k.ok(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => /\sReady\s/.test(l)).length === 2, 60_000, 'two Ready nodes');

  await t.test('an Indexed Job runs to completion with the index in its pods', async (t) => {
    await k.ok(['apply', '-f', '-'], indexedJob);
    await k.ok(['wait', '--for=condition=complete', 'job/indexed', '--timeout=120s']);
    t.match(await k.ok(['get', 'job', 'indexed']), /^indexed\s+Complete\s+4\/4\s+\d+s\s+\d+s$/m);
    const job = JSON.parse(await k.ok(['get', 'job', 'indexed', '-o', 'json']));
    t.equal(job.status.completedIndexes, '0-3');
    t.match(job.status, { succeeded: 4, uncountedTerminatedPods: {} });
    t.match(job.status.conditions, [{ type: 'SuccessCriteriaMet', reason: 'CompletionsReached' }, { type: 'Complete', status: 'True', reason: 'CompletionsReached' }]);
    const pods = JSON.parse(await k.ok(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=indexed', '-o', 'json'])).items;
    t.equal(pods.length, 4);
    const indexes = pods.map((p: { metadata: { annotations: Record<string, string> } }) => p.metadata.annotations['batch.kubernetes.io/job-completion-index']).sort();
    t.same(indexes, ['0', '1', '2', '3']);
    for (const p of pods) {
      const i = p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
      t.equal(p.status.phase, 'Succeeded');
      t.equal(p.spec.hostname, `indexed-${i}`);
      t.match(p.spec.containers[0].env, [{ name: 'JOB_COMPLETION_INDEX' }]);
      t.notOk(p.metadata.finalizers, 'the tracking finalizer is gone once counted');
    }
  });

  await t.test('a failing Job stops at its backoff limit', async (t) => {
    await k.ok(['apply', '-f', '-'], failingJob);
    await k.ok(['wait', '--for=condition=failed', 'job/failing', '--timeout=120s']);
    const job = JSON.parse(await k.ok(['get', 'job', 'failing', '-o', 'json']));
    t.match(job.status, { failed: 2 });
    const failed = job.status.conditions.find((c: { type: string }) => c.type === 'Failed');
    t.match(failed, { status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    t.match(await k.ok(['get', 'job', 'failing']), /^failing\s+Failed\s+0\/1\s/m);
    const exits = (await k.ok(['get', 'pods', '-l', 'job-name=failing', '-o', 'jsonpath={range .items[*]}{.status.phase}:{.status.containerStatuses[0].state.terminated.exitCode}{"\\n"}{end}'])).trim().split('\n');
    t.same(exits, ['Failed:2', 'Failed:2']);
  });

  await t.test('kubectl create job runs a Job to completion', async (t) => {
    await k.ok(['create', 'job', 'quick', '--image=busybox', '--', 'sh', '-c', 'sleep 1']);
    await k.ok(['wait', '--for=condition=complete', 'job/quick', '--timeout=120s']);
    t.match(await k.ok(['get', 'jobs', 'quick']), /^quick\s+Complete\s+1\/1/m);
  });

  await t.test('a finished Job with ttlSecondsAfterFinished is deleted with its pods', async (t) => {
    await k.ok(['apply', '-f', '-'], `apiVersion: batch/v1
kind: Job
metadata: {name: brief}
spec:
  ttlSecondsAfterFinished: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: work, image: busybox, command: [sleep, '1']}
`);
    await k.ok(['wait', '--for=condition=complete', 'job/brief', '--timeout=120s']);
    await k.ok(['wait', '--for=delete', 'job/brief', '--timeout=60s']);
    await eventually(async () => (await k.ok(['get', 'pods', '-l', 'job-name=brief', '-o', 'name'])).trim() === '', 30_000, 'its pods gone');
    t.pass('deleted after its TTL');
  });

  // A minute is cron's smallest step and a new CronJob only looks forward from its creation,
  // so this waits for the next minute boundary (at most 60 s); the unit tests step a clock.
  await t.test('a CronJob fires at the next minute and its Job completes', async (t) => {
    await k.ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *', '--', 'sh', '-c', 'exit 0']);
    let name = '';
    await eventually(async () => {
      const owned = JSON.parse(await k.ok(['get', 'jobs', '-o', 'json'])).items
        .filter((j: { metadata: { ownerReferences?: { kind: string; name: string }[] } }) => j.metadata.ownerReferences?.some((r) => r.kind === 'CronJob' && r.name === 'tick'));
      name = owned[0]?.metadata.name ?? '';
      return !!name;
    }, 90_000, 'a Job created by the CronJob');
    t.match(name, /^tick-\d+$/);
    await k.ok(['wait', '--for=condition=complete', `job/${name}`, '--timeout=60s']);
    await eventually(async () => !!JSON.parse(await k.ok(['get', 'cronjob', 'tick', '-o', 'json'])).status.lastSuccessfulTime, 30_000, 'lastSuccessfulTime');
    const cj = JSON.parse(await k.ok(['get', 'cronjob', 'tick', '-o', 'json']));
    t.ok(cj.status.lastScheduleTime);
    t.match(await k.ok(['get', 'cronjob', 'tick']), /^tick\s+\* \* \* \* \*\s+<none>\s+False\s+\d+\s+\d+s\s+\d+s$/m);
  });
});
