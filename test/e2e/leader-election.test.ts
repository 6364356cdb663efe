// Two controller-managers on one cluster: exactly one holds the Lease and acts; SIGKILL the
// leader and the other takes over within the lease duration.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { capstanBin, startAPIServerProcess } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

interface CM { child: ChildProcess; healthPort: number; exited: Promise<void> }

async function startCM(t: Test, kubeconfig: string): Promise<CM> {
  const child = spawn(process.execPath, [capstanBin, 'controller-manager', '--kubeconfig', kubeconfig, '--controllers', 'deployment,replicaset',
    '--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3s', '--leader-elect-retry-period', '500ms', '--secure-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  t.teardown(async () => { if (child.exitCode === null && child.signalCode === null) { child.kill('SIGKILL'); await exited; } });
  let out = '';
  child.stderr!.resume();
  const healthPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('controller-manager did not start')), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /healthz on :(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
  });
  return { child, healthPort, exited };
}

async function ready(cm: CM): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${cm.healthPort}/readyz`);
    return r.status === 200;
  } catch { return false; }
}

t.test('one of two controller-managers leads; the other takes over when it dies', async (t) => {
  const server = await startAPIServerProcess(t);
  const k = kubectlFor(t, server.kubeconfig);
  const a = await startCM(t, server.kubeconfig);
  const b = await startCM(t, server.kubeconfig);
  await eventually(async () => (await ready(a)) !== (await ready(b)), 20_000, 'exactly one leader');
  const [leader, follower] = (await ready(a)) ? [a, b] : [b, a];
  const holder = await k.ok(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}']);
  t.ok(holder, `lease held by ${holder}`);

  const deploy = (name: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec: {containers: [{name: c, image: localhost/capstan/busybox:1}]}\n`;
  await k.ok(['apply', '-f', '-'], deploy('first'));
  await eventually(async () => (await k.ok(['get', 'pods', '-l', 'app=first', '-o', 'name'])).trim().split('\n').filter(Boolean).length === 2, 30_000, 'pods of the first Deployment');
  const scaled = (await k.ok(['get', 'events', '--field-selector', 'reason=ScalingReplicaSet', '-o', 'name'])).trim().split('\n').filter(Boolean);
  t.equal(scaled.length, 1, 'one controller-manager acted: one ScalingReplicaSet event');
  t.equal((await k.ok(['get', 'rs', '-l', 'app=first', '-o', 'name'])).trim().split('\n').length, 1, 'one ReplicaSet, not two');

  const lease = async () => JSON.parse(await k.ok(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'json'])).spec;
  const held = await lease();
  const killedAt = Date.now();
  leader.child.kill('SIGKILL');
  await leader.exited;
  await eventually(() => ready(follower), 15_000, 'the follower takes over');
  t.comment(`took over ${Date.now() - killedAt} ms after the kill (lease 4 s)`);
  const taken = await lease();
  t.not(taken.holderIdentity, holder, 'a new holder');
  t.equal(taken.leaseTransitions, (held.leaseTransitions ?? 0) + 1, 'one transition');
  // The Lease's own times, not the test's clock: the follower acquired only once the dead
  // leader's last renewal was a lease duration old.
  t.ok(Date.parse(taken.acquireTime) >= Date.parse(held.renewTime) + 4000, `acquired ${taken.acquireTime}, last renewed ${held.renewTime}`);
  await k.ok(['apply', '-f', '-'], deploy('second'));
  await eventually(async () => (await k.ok(['get', 'pods', '-l', 'app=second', '-o', 'name'])).trim().split('\n').filter(Boolean).length === 2, 30_000, 'the new leader acts');
});
