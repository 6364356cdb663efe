// A real node end to end: `capstan up` (API server, controllers, scheduler, a private
// containerd and the kubelet) inside a network namespace of its own, driven by real kubectl:
// pods run, logs and exec work through the API server, deletion leaves nothing in containerd.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { CRIClient } from '../../cri/index.js';

const root = process.getuid?.() === 0;

t.test('capstan up runs pods on a real node', { skip: root ? false : 'needs root' }, async (t) => {
  const netns = `capstan-node-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ } });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  // A node has an uplink with a default route; proxy ARP answers for the pods' gateway
  // 169.254.1.1 only then.
  addNodeUplink(netns);
  const up = await startCapstanUp(t, ['--node-name', 'node-a'], { netns });
  const k = kubectlFor(t, up.kubeconfig, { netns });

  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-a', '--no-headers'])), 60_000, 'node Ready');
  await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {greeting: "hello from a configmap"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 3
      containers:
      - name: web
        image: localhost/capstan/busybox:1
        command: [sh, -c, 'echo started $GREETING; i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done & exec httpd -f -p 8080 -h /etc/web']
        env:
        - name: GREETING
          valueFrom: {configMapKeyRef: {name: web-config, key: greeting}}
        volumeMounts: [{name: config, mountPath: /etc/web}]
        readinessProbe: {httpGet: {path: /greeting, port: 8080}, periodSeconds: 1}
      volumes:
      - name: config
        configMap: {name: web-config}
`);
  await k.ok(['rollout', 'status', 'deploy/web', '--timeout=120s']);
  const pods = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.status.phase}{"\\n"}{end}'])).trim().split('\n');
  t.equal(pods.length, 2);
  for (const p of pods) t.match(p, /^\S+ 10\.244\.\d+\.\d+ Running$/, 'Running with a pod IP');
  const pod = pods[0].split(' ')[0];
  // Pod networking is capstan's: a host-side veth `cap…` with a /32 route to each pod.
  const hostRoutes = execFileSync('ip', ['-n', netns, 'route', 'show', 'proto', '80'], { encoding: 'utf8' });
  for (const p of pods) t.match(hostRoutes, new RegExp(`^${p.split(' ')[1].replace(/\./g, '\\.')} dev cap[0-9a-f]{11} `, 'm'), `capstan CNI routes ${p.split(' ')[1]}`);

  await t.test('logs, logs -f', async (t) => {
    t.match(await k.ok(['logs', pod]), /started hello from a configmap/);
    const follow = k.background(['logs', '-f', pod]);
    await eventually(() => (follow.output().match(/tick \d+/g) ?? []).length >= 3, 20_000, 'followed lines');
    const seen = (follow.output().match(/tick (\d+)/g) ?? []).length;
    await eventually(() => (follow.output().match(/tick \d+/g) ?? []).length > seen, 10_000, 'new lines keep arriving');
    await follow.stop();
  });

  await t.test('exec: output, exit code, stdin', async (t) => {
    t.equal(await k.ok(['exec', pod, '--', 'cat', '/etc/web/greeting']), 'hello from a configmap', 'the ConfigMap volume is mounted');
    const r = await k(['exec', pod, '--', 'sh', '-c', 'echo out; echo err >&2; exit 42']);
    t.equal(r.code, 42);
    t.equal(r.stdout, 'out\n');
    t.match(r.stderr, /err/);
    t.equal(await k.ok(['exec', '-i', pod, '--', 'cat'], 'through stdin'), 'through stdin');
  });

  await t.test('a pod reaches a Service by its short, namespace-qualified and full name', async (t) => {
    await k.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n');
    // Each with a way of asking for wget's timeout: Debian's busybox crashes on `-T` and
    // refuses `--timeout`, which Kubernetes' tutorials use; the image's wget accepts both.
    for (const [name, ...timeout] of [['web'], ['web.default', '-T', '5'], ['web.default.svc.cluster.local', '--timeout=5']]) {
      let last = '';
      await eventually(async () => {
        const r = await k(['exec', pod, '--', 'wget', '-q', ...timeout, '-O-', `http://${name}/greeting`]);
        last = r.stdout + r.stderr;
        return r.stdout === 'hello from a configmap';
      }, 30_000, `http://${name}/greeting`).catch((e: Error) => { throw new Error(`${e.message}: ${last}`); });
      t.pass(`wget ${timeout.join(' ')} http://${name}/ answers through cluster DNS and the service proxy`);
    }
    const spider = await k(['exec', pod, '--', 'wget', '--spider', '--timeout=1', 'web/greeting']);
    t.equal(spider.code, 0, `wget --spider --timeout=1 web/greeting, as in the NetworkPolicy tutorial (${spider.stderr})`);
  });

  await t.test('delete stops the containers and removes the sandboxes', async (t) => {
    const cri = new CRIClient({ socket: join(up.dataDir, 'containerd', 'containerd.sock') });
    t.teardown(() => cri.close());
    const sandboxesBefore = (await cri.listPodSandbox()).filter((s) => s.labels?.['app'] === 'web' || s.metadata?.name?.startsWith('web-'));
    t.ok(sandboxesBefore.length >= 2, `${sandboxesBefore.length} sandboxes before`);
    // Every state the pods pass through on their way out, as the API server records it.
    const states = ['type', 'object.metadata.name', 'object.metadata.uid', 'object.metadata.deletionGracePeriodSeconds',
      'object.status.containerStatuses[0].state.terminated.finishedAt'].map((f) => `{.${f}}`).join(' ');
    const watch = k.background(['get', 'pods', '-l', 'app=web', '--watch', '--output-watch-events', '-o', `jsonpath=${states}{"\\n"}`]);
    const seen = () => watch.output().split('\n').map((l) => l.split(' ')).filter((f) => f.length === 5);
    // kubectl lists, prints the pods as ADDED, then watches from the list: from here no state is missed.
    await eventually(() => seen().filter(([type]) => type === 'ADDED').length === 2, 30_000, 'the watch listing both pods');
    await k.ok(['delete', 'deploy', 'web', '--wait']);
    await eventually(async () => (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim() === '', 30_000, 'pods gone');
    await eventually(() => seen().filter(([type]) => type === 'DELETED').length === 2, 30_000, 'both DELETED events');
    await watch.stop();
    for (const [, name, uid, , finishedAt] of seen().filter(([type]) => type === 'DELETED')) {
      t.ok(seen().some(([, n, , grace]) => n === name && grace === '3'), `${name} deleted with its 3 s grace`);
      // The kubelet's Killing event and the runtime's finishedAt, not the test's stopwatch:
      // a kubelet that stopped with the 30 s default instead shows ~30 s. Whole seconds both.
      const events = JSON.parse(await k.ok(['get', 'events', '--field-selector', `involvedObject.uid=${uid},reason=Killing`, '-o', 'json'])).items;
      const stopSeconds = (Date.parse(finishedAt!) - Date.parse(events[0]?.firstTimestamp)) / 1000;
      t.ok(stopSeconds <= 3 + 2, `${name}: container finished ${stopSeconds} s after Killing (grace 3 s)`);
    }
    await eventually(async () => (await cri.listPodSandbox()).filter((s) => s.metadata?.name?.startsWith('web-')).length === 0, 20_000, 'sandboxes removed');
    t.pass('no sandboxes of the deleted pods remain in containerd');
  });
});
