// The lab view the API server serves at /capstan/lab-view, read with real kubectl (`get
// --raw`): admin only, the model follows the watch cache as objects come and go, and "follow a
// packet" answers from it.
import t from 'tap';
import { startAPIServerProcess } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { join } from 'node:path';
import { writeKubeconfig } from '../../src/client/index.js';

interface Model { nodes: { name: string; pods: { name: string }[] }[]; pending: { name: string }[]; services: { name: string; clusterIP?: string; nftElements: number }[] }

t.test('the API server serves the lab view to admins', async (t) => {
  const api = await startAPIServerProcess(t);
  const k = kubectlFor(t, api.kubeconfig);
  const model = async () => JSON.parse(await k.ok(['get', '--raw', '/capstan/lab-view/model'])) as Model;

  const page = await k.ok(['get', '--raw', '/capstan/lab-view']);
  t.match(page, /<title>capstan lab view<\/title>/, 'the page');
  t.match(page, /data-prefix="\/capstan\/lab-view"/, 'which reads its model under the same prefix');

  const empty = await model();
  t.same(empty.nodes, [], 'no nodes yet');

  await k.ok(['apply', '-f', '-'], `
apiVersion: v1
kind: Node
metadata: {name: view-node}
spec: {podCIDR: 10.244.7.0/24}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {app: p}}
spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: Service
metadata: {name: s, namespace: default}
spec: {selector: {app: p}, ports: [{port: 80}]}
`);
  await eventually(async () => {
    const m = await model();
    return m.nodes.some((n) => n.name === 'view-node') && m.pending.some((p) => p.name === 'p') && m.services.some((s) => s.name === 's');
  }, 10_000, 'the model to show the new node, the pending pod and the service');
  const m = await model();
  t.equal(m.services.find((s) => s.name === 's')!.nftElements, 2, 'a Service without endpoints: its ClusterIP and its reject verdict');

  await k.ok(['delete', 'pod', 'p', '--wait=false']);
  await eventually(async () => !(await model()).pending.some((p) => p.name === 'p'), 10_000, 'the deleted pod to leave the model');
  const path = JSON.parse(await k.ok(['get', '--raw', '/capstan/lab-view/path?from=default/none&service=default/s'])) as { error?: string };
  t.match(path.error, /no pod default\/none/, 'follow a packet answers from the same model');

  await t.test('not for everyone', async (t) => {
    await k.ok(['create', 'serviceaccount', 'viewer']);
    await k.ok(['create', 'clusterrolebinding', 'viewer-view', '--clusterrole=view', '--serviceaccount=default:viewer']);
    const token = (await k.ok(['create', 'token', 'viewer'])).trim();
    const viewerConfig = join(api.dataDir, 'viewer.kubeconfig');
    writeKubeconfig(viewerConfig, { server: api.url, caPem: api.pki.ca.certPem, token });
    const r = await kubectlFor(t, viewerConfig)(['get', '--raw', '/capstan/lab-view/model']);
    t.not(r.code, 0, 'a user with the view role is refused');
    t.match(r.stderr, /forbidden/i);
  });
});
