// One store outage against a running `capstan up` with two hollow nodes, as a user sees it:
// during the outage the API answers 5xx and /readyz 500; afterwards, without a restart of
// capstan, /readyz is 200 again, a watch opened before the outage delivers new events, and a
// Deployment created after it gets its pods scheduled and running (leader election,
// controllers, scheduler and informers all came back).
import type { Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APIClient } from '../helpers/api.js';
import type { CapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

export interface Outage {
  begin(): Promise<void>;
  end(): Promise<void>;
}

const OUTAGE_MS = 30_000;

const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: localhost/capstan/busybox:1}]}
`;

export async function survivesOutage(t: Test, up: CapstanUp, outage: Outage): Promise<void> {
  const k = kubectlFor(t, up.kubeconfig);
  const pki = (f: string) => readFileSync(join(up.dataDir, 'pki', f), 'utf8');
  const api = new APIClient(up.port, { ca: pki('ca.crt'), cert: pki('admin.crt'), key: pki('admin.key') });
  t.teardown(() => api.closeAll());
  const runningPods = async (app: string) => (await k.ok(['get', 'pods', '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\\n"}{end}']))
    .trim().split('\n').filter((l) => /^\S+ Running$/.test(l)).length;

  await eventually(async () => (await k.ok(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => /\sReady\s/.test(l)).length === 2, 60_000, 'two Ready nodes');
  await k.ok(['apply', '-f', '-'], deployment('before'));
  await eventually(async () => (await runningPods('before')) === 2, 60_000, 'the first Deployment running');
  // -v=6 logs each request: the watch is open once its GET has answered 200.
  const watch = k.background(['get', 'configmaps', '-n', 'default', '--watch', '-o', 'name', '-v=6']);
  await eventually(() => /watch=true 200 OK/.test(watch.output()), 30_000, 'kubectl get --watch started');

  await outage.begin();
  const began = Date.now();
  try {
    // A write big enough to need new space: on a full disk it cannot fit in pages SQLite holds.
    const big = { 'data.txt': 'x'.repeat(512 * 1024) };
    let failed = { write: 0, readyz: '' };
    await eventually(async () => {
      const w = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'during-' }, data: big });
      const r = await api.get('/readyz?verbose', { accept: '*/*' });
      if (w.status >= 500 && r.status === 500) failed = { write: w.status, readyz: r.text };
      return failed.write > 0;
    }, OUTAGE_MS - 5_000, 'a write answered 5xx and /readyz 500 during the outage');
    t.ok(failed.write >= 500, `a write during the outage: ${failed.write}`);
    t.match(failed.readyz, /\[-\]etcd failed: reason withheld\n/, '/readyz?verbose names the failed storage check');
    t.match(failed.readyz, /readyz check failed\n$/);
    t.equal((await api.get('/readyz/etcd', { accept: '*/*' })).status, 500, '/readyz/etcd alone fails');
    t.equal((await api.get('/livez/ping', { accept: '*/*' })).status, 200, '/livez/ping still ok');
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - began))));
  } finally {
    await outage.end();
  }

  await eventually(async () => (await api.get('/readyz', { accept: '*/*' })).status === 200, 120_000, '/readyz 200 after the outage');
  t.match((await api.get('/readyz?verbose', { accept: '*/*' })).text, /\[\+\]etcd ok\n[\s\S]*readyz check passed\n$/, 'every check passes');
  t.doesNotThrow(() => process.kill(up.pid, 0), 'capstan up is the same process, still running');

  await k.ok(['create', 'configmap', 'after-outage', '-n', 'default']);
  await eventually(() => watch.output().includes('configmap/after-outage'), 60_000, 'the watch opened before the outage sees a new ConfigMap')
    .catch((e) => { throw new Error(`${(e as Error).message}; kubectl printed:\n${watch.output()}`); });
  t.pass('a watch opened before the outage delivers events after it');

  await k.ok(['apply', '-f', '-'], deployment('after'));
  await eventually(async () => (await runningPods('after')) === 2, 120_000, 'the Deployment created after the outage running');
  t.pass('a Deployment created after the outage got its ReplicaSet, pods, nodes and Running');
  for (const lease of ['kube-controller-manager', 'kube-scheduler']) {
    const renewed = Date.parse(await k.ok(['get', 'lease', '-n', 'kube-system', lease, '-o', 'jsonpath={.spec.renewTime}']));
    t.ok(renewed > began + OUTAGE_MS, `${lease} renewed after the outage`);
  }
}
