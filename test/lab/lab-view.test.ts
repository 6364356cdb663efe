// `capstan lab view` in headless Chromium against a real 2-node lab on 2 subnets: the page
// shows the nodes and their pods, the VXLAN path between them, a Service's endpoints with the
// number of nftables elements a node really holds for it, follows a packet from a pod to the
// Service, shows a new pod within a second of its creation, and shows a NetworkPolicy's
// allow/deny counts (published by the nodes' agents) rise as pods connect; then an
// AdminNetworkPolicy's and the BaselineAdminNetworkPolicy's Deny and Pass counts with their
// kind; and the same counts on the page the API server serves (/capstan/lab-view through
// `kubectl proxy`).
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { capstanBin } from '../helpers/apiserver-process.js';
import { CHROMIUM, launchChromium, waitInPage } from '../helpers/chromium.js';
import { eventually, KUBECTL, kubectlFor } from '../helpers/kubectl.js';
import { readState } from '../../src/lab/index.js';

const run = promisify(execFile);
const root = process.getuid?.() === 0;

/** The first scalar of an nftables JSON set element's key (`{"elem":{"val":…}}`, `{"concat":[…]}`, `[key, data]`). */
function firstKeyScalar(e: unknown): unknown {
  if (Array.isArray(e)) return firstKeyScalar(e[0]);
  if (e && typeof e === 'object') {
    const o = e as { elem?: { val?: unknown }; concat?: unknown[] };
    if (o.elem) return firstKeyScalar(o.elem.val);
    if (o.concat) return firstKeyScalar(o.concat[0]);
  }
  return e;
}

/** Elements of capstan-proxy's sets and maps keyed by `ip`, in a node's namespace. */
async function nftElementsKeyedBy(netns: string, ip: string): Promise<number> {
  const { stdout } = await run('ip', ['netns', 'exec', netns, 'nft', '-j', 'list', 'table', 'ip', 'capstan-proxy'], { maxBuffer: 64 << 20 });
  const doc = JSON.parse(stdout) as { nftables: ({ set?: { elem?: unknown[] }; map?: { elem?: unknown[] } })[] };
  let n = 0;
  for (const item of doc.nftables) for (const e of (item.set ?? item.map)?.elem ?? []) if (firstKeyScalar(e) === ip) n++;
  return n;
}

const manifest = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeName: node-2
      containers: [{name: c, image: localhost/capstan/busybox:1, command: [sleep, '3600']}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, labels: {app: client}}
spec:
  nodeName: node-1
  containers: [{name: c, image: localhost/capstan/busybox:1, command: [sleep, '3600']}]
`;

t.test('capstan lab view in headless Chromium', { skip: !root ? 'needs root' : !CHROMIUM ? 'needs chromium' : false, timeout: 720_000 }, async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'capstan-labview-'));
  const dir = join(parent, 'lab');
  t.teardown(async () => {
    await run(process.execPath, [capstanBin, 'lab', 'down', '--dir', dir], { timeout: 120_000 }).catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
  });
  await run(process.execPath, [capstanBin, 'lab', 'up', '--nodes', '2', '--subnets', '2', '--dir', dir], { timeout: 300_000 })
    .catch((e: Error & { stderr?: string }) => { throw new Error(`lab up failed: ${e.message}\n${e.stderr ?? ''}`); });
  const state = readState(dir)!;
  const k = kubectlFor(t, state.kubeconfig!);
  await k.ok(['apply', '-f', '-'], manifest);
  await eventually(async () => (await k.ok(['get', 'pods', '--no-headers'])).trim().split('\n').length === 2, 60_000, 'the two pods');
  await k.ok(['wait', '--for=condition=Ready', 'pod', '--all', '--timeout=180s']);
  const clusterIP = (await k.ok(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).trim();

  // The view and the browser run in the control plane's namespace, whose only way out is the
  // lab's router (which leads nowhere): Chromium's own lookups and probes cannot leave.
  const cpNetns = state.topology.controlPlane.netns;
  const view = spawn('nsenter', [`--net=/run/netns/${cpNetns}`, process.execPath, capstanBin, 'lab', 'view', '--kubeconfig', state.internalKubeconfig!],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => { view.kill('SIGTERM'); });
  let out = '';
  view.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  await eventually(() => /http:\/\/127\.0\.0\.1:\d+\//.test(out), 30_000, 'capstan lab view prints its URL');
  const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)![0];

  const browser = await launchChromium({ netns: cpNetns });
  t.teardown(() => browser.close());
  const page = await browser.newPage(url);

  await t.test('nodes, pods and the VXLAN path between the subnets', async (t) => {
    const nodes = await waitInPage<string[]>(page, `(() => { const n = [...document.querySelectorAll('section.node')].map((s) => s.dataset.node); return n.length === 2 && n; })()`, 30_000, 'two nodes');
    t.same(nodes, ['node-1', 'node-2']);
    const pods = await waitInPage<Record<string, string>>(page, `(() => {
      const o = {}; for (const s of document.querySelectorAll('section.node')) for (const p of s.querySelectorAll('[data-pod]')) o[p.dataset.pod] = s.dataset.node + ' ' + p.dataset.ip;
      return o['default/client'] && Object.keys(o).some((k) => k.startsWith('default/web-')) && o; })()`, 30_000, 'the pods under their nodes');
    const clientIP = (await k.ok(['get', 'pod', 'client', '-o', 'jsonpath={.status.podIP}'])).trim();
    t.equal(pods['default/client'], `node-1 ${clientIP}`, 'the client pod under node-1 with its IP');
    t.ok(Object.entries(pods).some(([p, v]) => p.startsWith('default/web-') && v.startsWith('node-2 ')), 'the web pod under node-2');
    const path = await waitInPage<string>(page, `document.querySelector('line.link[data-from="node-1"][data-to="node-2"], line.link[data-from="node-2"][data-to="node-1"]')?.dataset.path`, 30_000, 'a link between the nodes');
    t.equal(path, 'vxlan', 'nodes on different subnets are joined by VXLAN');
  });

  await t.test('a Service with its endpoint and the nftables elements node-1 holds for it', async (t) => {
    const row = await waitInPage<{ endpoints: string; elements: string; text: string }>(page, `(() => { const r = document.querySelector('tr[data-service="default/web"]');
      return r && r.dataset.endpoints === '1' && { endpoints: r.dataset.endpoints, elements: r.dataset.nftElements, text: r.textContent }; })()`, 30_000, 'the web service with one endpoint');
    t.match(row.text, clusterIP, 'its ClusterIP is shown');
    t.match(row.text, /@node-2/, 'its endpoint is on node-2');
    const node1 = state.topology.nodes.find((n) => n.name === 'node-1')!;
    await eventually(async () => await nftElementsKeyedBy(node1.netns, clusterIP) === Number(row.elements), 20_000,
      `node-1's capstan-proxy table to hold ${row.elements} elements keyed by ${clusterIP}`);
    t.ok(Number(row.elements) >= 3, `the view's count (${row.elements}) matches node-1's kernel table`);
  });

  await t.test('follow a packet from the client to the Service', async (t) => {
    const kinds = await page.evaluate<string[]>(`(async () => {
      document.getElementById('from').value = 'default/client';
      document.getElementById('service').value = 'default/web';
      document.getElementById('follow').requestSubmit();
      for (let i = 0; i < 100; i++) {
        const hops = [...document.querySelectorAll('#path li[data-kind]')];
        if (hops.length) return hops.map((h) => h.dataset.kind);
        await new Promise((r) => setTimeout(r, 50));
      }
      return [];
    })()`);
    t.same(kinds, ['pod', 'veth', 'dnat', 'vxlan', 'route', 'pod'], 'veth → DNAT → VXLAN → route on node-2 → endpoint');
  });

  await t.test('a new pod shows within a second of its creation', async (t) => {
    await k.ok(['run', 'fresh', '--image=localhost/capstan/busybox:1', '--', 'sleep', '3600']);
    const created = Date.now();
    await waitInPage(page, `!!document.querySelector('[data-pod="default/fresh"]')`, 10_000, 'the new pod on the page');
    const ms = Date.now() - created;
    t.comment(`the page showed the new pod ${ms} ms after kubectl returned`);
    t.ok(ms <= 1000, `shown within a second (${ms} ms)`);
    await waitInPage(page, `!!document.querySelector('section.node [data-pod="default/fresh"]')`, 60_000, 'the new pod under its node once scheduled');
  });

  await t.test('policy decisions: the pods a policy selects and its allow/deny counts as connections come', async (t) => {
    await k.ok(['apply', '-f', '-'], `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-in}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{from: [{podSelector: {matchLabels: {app: client}}}], ports: [{port: 8080}]}]
`);
    await k.ok(['wait', '--for=condition=Ready', 'pod/fresh', '--timeout=120s']);
    const webIP = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.podIP}'])).trim();
    type Row = { pods: string; ia: number; id: number; counted: string };
    const row = (cond: string, what: string) => waitInPage<Row>(page, `(() => { const r = document.querySelector('tr[data-policy="default/web-in"]');
      if (!r) return null; const x = { pods: r.dataset.pods, ia: Number(r.dataset.ingressAllowed), id: Number(r.dataset.ingressDenied), counted: r.lastChild.textContent };
      return (${cond}) && x; })()`, 60_000, what);
    const first = await row(`x.pods.includes('default/web-') && x.counted.includes('node-2')`, 'the policy with the pod it selects, counted on node-2');
    t.match(first.pods, /default\/web-/, 'it selects the web pod');
    t.equal(await page.evaluate<boolean>(`[...document.querySelectorAll('[data-pod^="default/web-"] .pol')].some((e) => e.textContent.includes('in:default/web-in'))`), true, 'and the pod lists the policy isolating it');
    // Nothing listens on 8080: an allowed SYN is answered by a reset, a denied one is dropped.
    const connect = (pod: string) => k(['exec', pod, '--', 'wget', '-T', '2', '-q', '-O-', `http://${webIP}:8080/`]);
    for (let i = 0; i < 3; i++) await connect('client');
    const allowed = await row(`x.ia > ${first.ia}`, 'the allowed count to rise after the client connected');
    t.ok(allowed.ia > first.ia, `ingress allowed ${first.ia} → ${allowed.ia} after 3 connections from the client`);
    await connect('fresh');
    const denied = await row(`x.id > ${allowed.id}`, 'the denied count to rise after a pod the policy does not allow connected');
    t.ok(denied.id > allowed.id, `ingress denied ${allowed.id} → ${denied.id} after a connection from fresh`);
    const m = await page.evaluate<{ allowed: number; denied: number }>(`fetch(location.pathname.replace(/\\/$/, '') + '/model').then((r) => r.json()).then((m) => m.policies.find((p) => p.name === 'web-in').packets.ingress)`);
    t.ok(m.allowed >= denied.ia && m.denied >= denied.id, 'the page shows the model\'s figures');
  });

  type AdminRow = { kind: string; pods: string; id: number; ip: number; text: string };
  const adminRow = (p: typeof page, kind: string, name: string, cond: string, what: string) => waitInPage<AdminRow>(p, `(() => {
    const r = document.querySelector('tr[data-kind="${kind}"][data-policy="${name}"]');
    if (!r) return null; const x = { kind: r.dataset.kind, pods: r.dataset.pods, id: Number(r.dataset.ingressDenied), ip: Number(r.dataset.ingressPassed), text: r.textContent };
    return (${cond}) && x; })()`, 60_000, what);

  await t.test('admin tiers: an AdminNetworkPolicy\'s Deny and Pass, the baseline\'s Deny, with their kind', async (t) => {
    await k.ok(['apply', '-f', '-'], `
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: web-admin}
spec:
  priority: 10
  subject: {pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: web}}}}
  ingress:
  - {name: no-fresh, action: Deny, from: [{pods: {namespaceSelector: {}, podSelector: {matchLabels: {run: fresh}}}}]}
  - {name: client-to-np, action: Pass, from: [{pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: client}}}}]}
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: client}}}}
  ingress: [{name: no-fresh, action: Deny, from: [{pods: {namespaceSelector: {}, podSelector: {matchLabels: {run: fresh}}}}]}]
`);
    const first = await adminRow(page, 'AdminNetworkPolicy', 'web-admin', `x.pods.includes('default/web-')`, 'the AdminNetworkPolicy with its subject');
    t.match(first.text, /AdminNetworkPolicy \(priority 10\)/, 'shown with its kind and priority');
    const order = await page.evaluate<string[]>(`[...document.querySelectorAll('#policies tr')].map((r) => r.dataset.kind + ' ' + r.dataset.policy)`);
    t.same(order, ['AdminNetworkPolicy web-admin', 'NetworkPolicy default/web-in', 'BaselineAdminNetworkPolicy default'], 'in the order a packet is judged');
    const baseline0 = await adminRow(page, 'BaselineAdminNetworkPolicy', 'default', `x.pods === 'default/client'`, 'the baseline with its subject, the client');
    const webIP = (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.podIP}'])).trim();
    const clientIP = (await k.ok(['get', 'pod', 'client', '-o', 'jsonpath={.status.podIP}'])).trim();
    const connect = (pod: string, ip: string) => k(['exec', pod, '--', 'wget', '-T', '2', '-q', '-O-', `http://${ip}:8080/`]);
    // The agents apply the new tiers asynchronously: retry until the counters move.
    const passed = await (async () => {
      for (let i = 0; ; i++) {
        await connect('client', webIP);
        await connect('fresh', webIP);
        const r = await adminRow(page, 'AdminNetworkPolicy', 'web-admin', `x.ip > ${first.ip} && x.id > ${first.id}`, 'Pass and Deny counted').catch((e: Error) => { if (i >= 2) throw e; return undefined; });
        if (r) return r;
      }
    })();
    t.ok(passed.ip > first.ip, `client → web passed on to NetworkPolicy: ${first.ip} → ${passed.ip}`);
    t.ok(passed.id > first.id, `fresh → web denied by the admin tier: ${first.id} → ${passed.id}`);
    await connect('fresh', clientIP);
    const denied = await adminRow(page, 'BaselineAdminNetworkPolicy', 'default', `x.id > ${baseline0.id}`, 'the baseline\'s Deny counted');
    t.ok(denied.id > baseline0.id, `fresh → client (no NetworkPolicy isolates it) denied by the baseline: ${baseline0.id} → ${denied.id}`);
    t.match(denied.text, /BaselineAdminNetworkPolicy/);
  });

  await t.test('the page the API server serves shows the same counts', async (t) => {
    // `kubectl proxy` in the control plane's namespace is the way in for a browser (admin only).
    const proxy = spawn('nsenter', [`--net=/run/netns/${cpNetns}`, KUBECTL, '--kubeconfig', state.internalKubeconfig!, 'proxy', '--port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    t.teardown(() => { proxy.kill('SIGTERM'); });
    let said = '';
    proxy.stdout.on('data', (d: Buffer) => { said += d.toString(); });
    await eventually(() => /127\.0\.0\.1:\d+/.test(said), 30_000, 'kubectl proxy prints its address');
    const apiPage = await browser.newPage(`http://${/127\.0\.0\.1:\d+/.exec(said)![0]}/capstan/lab-view`);
    const labNP = await page.evaluate<{ ia: number; id: number }>(`(() => { const r = document.querySelector('tr[data-policy="default/web-in"]'); return { ia: Number(r.dataset.ingressAllowed), id: Number(r.dataset.ingressDenied) }; })()`);
    const np = await waitInPage<{ ia: number; id: number; pods: string }>(apiPage, `(() => { const r = document.querySelector('tr[data-kind="NetworkPolicy"][data-policy="default/web-in"]');
      return r && Number(r.dataset.ingressAllowed) >= ${labNP.ia} && Number(r.dataset.ingressDenied) >= ${labNP.id} && { ia: Number(r.dataset.ingressAllowed), id: Number(r.dataset.ingressDenied), pods: r.dataset.pods }; })()`,
      30_000, 'the NetworkPolicy with the counts the lab view showed');
    t.ok(np.ia > 0 && np.id > 0, `NetworkPolicy default/web-in: ingress allowed ${np.ia}, denied ${np.id} (the lab view showed ${labNP.ia}, ${labNP.id})`);
    t.match(np.pods, /default\/web-/, 'with the pod it selects');
    const anp = await adminRow(apiPage, 'AdminNetworkPolicy', 'web-admin', `x.id > 0 && x.ip > 0`, 'the AdminNetworkPolicy with its counts');
    t.ok(anp.id > 0 && anp.ip > 0, `AdminNetworkPolicy web-admin: ingress denied ${anp.id}, passed ${anp.ip}`);
    const banp = await adminRow(apiPage, 'BaselineAdminNetworkPolicy', 'default', `x.id > 0`, 'the baseline with its counts');
    t.ok(banp.id > 0, `BaselineAdminNetworkPolicy default: ingress denied ${banp.id}`);
  });
});

