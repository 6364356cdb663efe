// batch/v1 Jobs and CronJobs served to real kubectl: `create job` (protobuf body) gets the
// generated selector and labels, defaults and the upstream validation messages, `get` prints
// upstream's columns, `create job --from=cronjob/x` copies the template.
import t from 'tap';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';

t.test('jobs and cronjobs through kubectl', async (t) => {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const k = kubectlFor(t, kubeconfig);

  await t.test('kubectl create job: generated selector, labels and defaults', async (t) => {
    await k.ok(['create', 'job', 'pi', '--image=busybox:1', '--', 'sh', '-c', 'exit 0']);
    const job = JSON.parse(await k.ok(['get', 'job', 'pi', '-o', 'json']));
    const uid = job.metadata.uid;
    t.same(job.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    t.match(job.spec.template.metadata.labels, { 'batch.kubernetes.io/controller-uid': uid, 'controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'job-name': 'pi' });
    t.match(job.spec, { completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed' });
    t.equal(job.spec.template.spec.restartPolicy, 'Never');
    t.same(job.status, {});
    const table = await k.ok(['get', 'jobs']);
    t.match(table, /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\n/);
    t.match(table, /^pi\s+Running\s+0\/1\s+\d+s\n?$/m);
    const wide = await k.ok(['get', 'jobs', '-o', 'wide']);
    t.match(wide, /CONTAINERS\s+IMAGES\s+SELECTOR/);
    t.match(wide, new RegExp(`pi\\s+busybox:1\\s+batch.kubernetes.io/controller-uid=${uid}`));
  });

  await t.test('validation as upstream', async (t) => {
    const bad = (spec: string) => `apiVersion: batch/v1
kind: Job
metadata: {name: bad}
spec:
${spec}
  template:
    spec:
      restartPolicy: Always
      containers: [{name: c, image: busybox}]
`;
    const r = await k(['create', '-f', '-'], bad('  completionMode: Indexed\n  backoffLimitPerIndex: 1\n  maxFailedIndexes: 5\n  completions: 2'));
    t.not(r.code, 0);
    t.match(r.stderr, 'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"');
    t.match(r.stderr, 'spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions');
    const r2 = await k(['create', '-f', '-'], bad('  completionMode: Indexed\n  parallelism: 2'));
    t.match(r2.stderr, 'spec.completions: Required value: when completion mode is Indexed');
    await k.ok(['create', 'job', 'imm', '--image=busybox:1']);
    const r3 = await k(['patch', 'job', 'imm', '--type=merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"imm","image":"busybox:2"}]}}}}']);
    t.match(r3.stderr, /spec.template: Invalid value: .*field is immutable/);
  });

  await t.test('cronjobs: defaults, validation, columns, and create job --from', async (t) => {
    const r = await k(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=61 * * * *']);
    t.not(r.code, 0);
    t.match(r.stderr, 'spec.schedule: Invalid value: "61 * * * *"');
    await k.ok(['create', 'cronjob', 'tick', '--image=busybox:1', '--schedule=*/5 * * * *', '--', 'sh', '-c', 'sleep 1']);
    const cj = JSON.parse(await k.ok(['get', 'cronjob', 'tick', '-o', 'json']));
    t.match(cj.spec, { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    t.match(cj.spec.jobTemplate.spec, { backoffLimit: 6 });
    t.match(await k.ok(['get', 'cj']), /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\ntick\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s/);
    const tz = await k(['patch', 'cj', 'tick', '--type=merge', '-p', '{"spec":{"timeZone":"Mars/Olympus"}}']);
    t.match(tz.stderr, 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus');
    await k.ok(['create', 'job', 'manual', '--from=cronjob/tick']);
    const job = JSON.parse(await k.ok(['get', 'job', 'manual', '-o', 'json']));
    t.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    t.match(job.metadata.ownerReferences, [{ kind: 'CronJob', name: 'tick', uid: cj.metadata.uid }]);
    t.same(job.spec.template.spec.containers[0].command, ['sh', '-c', 'sleep 1']);
  });

  await t.test('discovery and explain', async (t) => {
    const res = await k.ok(['api-resources', '--api-group=batch']);
    t.match(res, /^cronjobs\s+cj\s+batch\/v1\s+true\s+CronJob$/m);
    t.match(res, /^jobs\s+batch\/v1\s+true\s+Job$/m);
    t.match(await k.ok(['explain', 'job.spec.backoffLimitPerIndex']), 'backoffLimitPerIndex');
  });
});
