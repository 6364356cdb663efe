// `capstan hollow-nodes` as a process: registers its nodes, and its loopback control
// endpoint stops one node's heartbeats; --stop-heartbeat does so from the start.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { startHollowNodesProcess } from '../helpers/hollow-nodes-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';

t.test('capstan hollow-nodes registers nodes and stops heartbeats on request', async (t) => {
  const server = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(server.dir, server.pki, `https://127.0.0.1:${server.port}`);
  const { child, output, match } = await startHollowNodesProcess(t, ['--kubeconfig', kubeconfig, '--count', '3', '--name-prefix', 'kmark-',
    '--heartbeat-interval', '500ms', '--stop-heartbeat', 'kmark-2', '--control-port', '0', '--cpu', '8', '--memory', '32Gi'], /control on 127\.0\.0\.1:(\d+)/);
  t.match(output(), 'capstan hollow-nodes running: 3 nodes (kmark-0 … kmark-2)');
  const port = Number(match[1]);
  const k = kubectlFor(t, kubeconfig);
  t.match(await k.ok(['get', 'node', 'kmark-0', '-o', 'jsonpath={.status.capacity.cpu} {.status.capacity.memory} {.metadata.labels.node\\.kubernetes\\.io/instance-type}']), '8 32Gi hollow');

  const renew = async (n: string) => (await k.ok(['get', 'lease', '-n', 'kube-node-lease', n, '-o', 'jsonpath={.spec.renewTime}'])).trim();
  const stats = async () => (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { nodes: number };
  t.equal((await stats()).nodes, 3);
  const stopped = await renew('kmark-2');
  const res = await fetch(`http://127.0.0.1:${port}/nodes/kmark-0/stop-heartbeat`, { method: 'POST' });
  t.same(await res.json(), { node: 'kmark-0', heartbeatStopped: true });
  const frozen = await renew('kmark-0');
  const live = await renew('kmark-1');
  // Two renewals of kmark-1's after the stop: kmark-0, on the same period, would have renewed
  // by then if its heartbeat still ran.
  await eventually(async () => (await renew('kmark-1')) !== live, 10_000, 'kmark-1 renewing');
  const live2 = await renew('kmark-1');
  await eventually(async () => (await renew('kmark-1')) !== live2, 10_000, 'kmark-1 renewing again');
  t.equal(await renew('kmark-0'), frozen, 'no renewals after stop-heartbeat');
  t.equal(await renew('kmark-2'), stopped, '--stop-heartbeat node never renews');
  t.equal((await fetch(`http://127.0.0.1:${port}/nodes/nope/stop-heartbeat`, { method: 'POST' })).status, 404);
  await fetch(`http://127.0.0.1:${port}/nodes/kmark-0/resume-heartbeat`, { method: 'POST' });
  await eventually(async () => (await renew('kmark-0')) !== frozen, 10_000, 'kmark-0 renewing again');

  child.kill('SIGTERM');
  const code = await new Promise((r) => child.once('exit', r));
  t.equal(code, 0, 'exits cleanly on SIGTERM');
});
