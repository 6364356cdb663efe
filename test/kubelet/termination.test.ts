// Termination on a real node: terminationMessagePath files and FallbackToLogsOnError with
// upstream's limits, postStart hooks (exec and httpGet) whose failure kills the container with
// upstream's events, and deletion running preStop before SIGTERM within the grace period.
import t from 'tap';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();

t.test('termination messages, hooks and grace', { skip: why ?? false, timeout: 240_000 }, async (t) => {
  const n = await startRealNode(t);
  const pod = (name: string, container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      nodeName: n.nodeName, terminationGracePeriodSeconds: 5, restartPolicy: 'Never',
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', ...container }],
      ...spec,
    },
  });
  const sh = (script: string) => ({ command: ['sh', '-c', script] });
  const apply = (...pods: object[]) => n.k.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
  const terminated = async (name: string) => {
    let st: any;
    await until(async () => {
      st = (await n.podJSON(name)).status?.containerStatuses?.[0]?.state?.terminated;
      if (!st) throw new Error(`${name} not terminated`);
    }, 40_000, `${name} terminated`);
    return st;
  };
  const events = async (name: string) => JSON.parse(await n.k.ok(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])).items;

  await t.test('terminationMessagePath and FallbackToLogsOnError', async (t) => {
    await apply(
      pod('msg', sh('printf "bye from main" > /dev/termination-log; exit 3')),
      pod('custom', { ...sh('echo done-at-custom > /tmp/finished'), terminationMessagePath: '/tmp/finished' }),
      // 5000 bytes: the kubelet keeps the last 4096.
      pod('long', sh('head -c 904 /dev/zero | tr "\\0" x > /dev/termination-log; head -c 4096 /dev/zero | tr "\\0" y >> /dev/termination-log')),
      pod('fallback', { ...sh('for i in $(seq 1 100); do echo line $i; done; exit 1'), terminationMessagePolicy: 'FallbackToLogsOnError' }),
      pod('fallback-ok', { ...sh('echo fine'), terminationMessagePolicy: 'FallbackToLogsOnError' }),
      pod('fallback-file', { ...sh('echo from-file > /dev/termination-log; echo from-log; exit 2'), terminationMessagePolicy: 'FallbackToLogsOnError' }),
    );
    const msg = await terminated('msg');
    t.equal(msg.exitCode, 3);
    t.equal(msg.message, 'bye from main');
    t.equal((await terminated('custom')).message, 'done-at-custom\n');
    t.equal((await terminated('long')).message, 'y'.repeat(4096));
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    t.equal((await terminated('fallback')).message, `${lines.slice(20).join('\n')}\n`, 'the last 80 lines of the log');
    t.notOk((await terminated('fallback-ok')).message, 'no log fallback after success');
    t.equal((await terminated('fallback-file')).message, 'from-file\n', 'the file wins over the log');
    t.match(await n.k.ok(['get', 'pod', 'msg', '-o', 'jsonpath={.status.containerStatuses[0].state.terminated.message}']), 'bye from main');
  });

  await t.test('a failing postStart hook kills the container with upstream\'s events', async (t) => {
    await apply(
      pod('hook-exec', { command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo nope; exit 7'] } } } }),
      pod('hook-http', { command: ['sleep', '3600'], lifecycle: { postStart: { httpGet: { path: '/started', port: 8081 } } } }),
      pod('hook-ok', { command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo hooked > /tmp/hook'] } } } }),
    );
    const uid = (await n.podJSON('hook-exec')).metadata.uid;
    await until(async () => {
      const ev = await events('hook-exec');
      const failed = ev.find((e: any) => e.reason === 'FailedPostStartHook');
      if (!failed) throw new Error('no FailedPostStartHook yet');
      // The kill is recorded after the hook's failure: wait for both before asserting.
      if (!ev.some((e: any) => e.reason === 'Killing')) throw new Error('no Killing event yet');
      t.equal(failed.type, 'Warning');
      t.equal(failed.message, `Exec lifecycle hook ([sh -c echo nope; exit 7]) for Container "main" in Pod "hook-exec_default(${uid})" failed - error: command 'sh -c echo nope; exit 7' exited with 7: , message: "nope\\n"`);
      t.ok(ev.some((e: any) => e.reason === 'Killing' && e.message === 'FailedPostStartHook'), 'Killing FailedPostStartHook');
    }, 40_000, 'exec hook failure');
    t.equal((await terminated('hook-exec')).exitCode, 137, 'sleep ignores SIGTERM as PID 1: killed at the end of the grace');
    await until(async () => {
      const failed = (await events('hook-http')).find((e: any) => e.reason === 'FailedPostStartHook');
      if (!failed) throw new Error('no FailedPostStartHook yet');
      t.match(failed.message, /^HTTP lifecycle hook \(\/started\) for Container "main" in Pod "hook-http_default\(.*\)" failed - error: Get "http:\/\/10\.88\.\d+\.\d+:8081\/started": dial tcp 10\.88\.\d+\.\d+:8081: connect: connection refused$/);
    }, 40_000, 'http hook failure');
    await until(async () => {
      const p = await n.podJSON('hook-ok');
      if (p.status?.phase !== 'Running') throw new Error(p.status?.phase);
    }, 30_000, 'hook-ok Running');
    t.notOk((await events('hook-ok')).some((e: any) => e.reason === 'FailedPostStartHook'));
  });

  await t.test('deletion: preStop, then SIGTERM, within the grace period', async (t) => {
    await apply(pod('graceful', {
      ...sh('trap "echo got-term >> /dev/termination-log; exit 0" TERM; while true; do sleep 0.1; done'),
      lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /dev/termination-log'] } } },
    }, { restartPolicy: 'Always' }));
    const p = await until(async () => {
      if ((await n.podJSON('graceful')).status?.phase !== 'Running') throw new Error('not running');
    }, 30_000, 'graceful Running').then(() => n.podJSON('graceful'));
    const w = await n.api.client.watch(`/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name%3Dgraceful&resourceVersion=${p.metadata.resourceVersion}`);
    t.teardown(() => w.close());
    await n.k.ok(['delete', 'pod', 'graceful', '--timeout=60s']);
    let last: any;
    for await (const ev of w) {
      if (ev.type === 'DELETED') break;
      last = ev.object;
    }
    const term = last?.status?.containerStatuses?.[0]?.state?.terminated;
    t.equal(term?.exitCode, 0, 'the container ended on its SIGTERM trap, not a SIGKILL');
    t.equal(term?.message, 'prestop\ngot-term\n', 'preStop ran before SIGTERM');
  });

  await n.k.ok(['delete', 'pods', '--all', '--wait=true', '--timeout=60s']);
});
