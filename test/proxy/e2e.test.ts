// The proxy end to end, in namespaces: an in-process API server holds Services and
// EndpointSlices; the proxy programs the "node" namespace; a client outside the cluster and
// the pods themselves connect. The same scenario runs for every mode.
import t, { type Test } from 'tap';
import { execa } from 'execa';
import { Clientset, RESTClient } from '../../src/client/index.js';
import { startProxy, type ProxyHandle } from '../../src/cli/proxy.js';
import { NftTable, createNftDriver } from '../../src/nft/index.js';
import { startAPIServer } from '../helpers/api.js';
import { shortHash, type ServicePortPlan } from '../../src/proxy/model.js';
import { extChain, svcChain } from '../../src/proxy/iptables/rules.js';
import { NODE_IP, POD_CIDR, buildWorld, type Probe, type World } from './world.js';

const isRoot = process.getuid?.() === 0;
const MODES = [
  { name: 'nftables (addon)', args: ['--proxy-mode', 'nftables', '--nft-driver', 'addon'] },
  { name: 'nftables (nft -f)', args: ['--proxy-mode', 'nftables', '--nft-driver', 'nft'] },
  { name: 'nftables (addon, elements deleted as on kernels before 6.12)', args: ['--proxy-mode', 'nftables', '--nft-driver', 'addon', '--nft-retire', 'delete'] },
  { name: 'iptables', args: ['--proxy-mode', 'iptables'] },
];

const UDP_FROM = `
import socket, sys
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
c.bind(('', int(sys.argv[3]))); c.settimeout(1)
c.sendto(b'hi', (sys.argv[1], int(sys.argv[2])))
try: print(c.recv(100).decode().strip())
except OSError: print('timeout')
`;

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) { last = e; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Connects and reads the name, says "open", waits for "go" on stdin, then checks the connection still echoes. */
const HOLD_UNTIL_GO = `
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
f = c.makefile('rb'); name = f.readline().decode().strip()
print('open', flush=True)
sys.stdin.readline()
c.sendall(b'still-here\\n'); print(name, f.readline().decode().strip())
`;

const names = (p: Probe) => Object.keys(p.seen).sort();
const clean = (p: Probe) => Object.keys(p.errors).length === 0;

t.test('service proxy in namespaces', { skip: !isRoot && 'needs root' }, async (t) => {
  const api = await startAPIServer(t);
  const rest = new RESTClient({ server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: api.pki.admin.certPem, keyPem: api.pki.admin.keyPem }, 'proxy-test');
  const clients = new Clientset(rest);
  t.teardown(() => clients.close());
  const world = await buildWorld(t, 3);
  const c = api.client;

  const createService = async (name: string, spec: Record<string, unknown>) => {
    const r = await c.post('/api/v1/namespaces/default/services', { metadata: { name }, spec });
    if (r.status !== 201) throw new Error(`create service: ${r.status} ${r.text}`);
    return r.body;
  };
  const putSlice = async (svc: string, pods: number[], port = 8080, protocol = 'TCP') => {
    const body = {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${svc}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': svc } },
      addressType: 'IPv4', ports: [{ name: 'http', port, protocol }],
      endpoints: pods.map((i) => ({ addresses: [world.pods[i]!.ip], conditions: { ready: true }, nodeName: 'node-a' })),
    };
    const path = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
    const existing = await c.get(`${path}/${svc}-1`);
    const r = existing.status === 200
      ? await c.put(`${path}/${svc}-1`, { ...body, metadata: { ...body.metadata, resourceVersion: existing.body.metadata.resourceVersion } })
      : await c.post(path, body);
    if (r.status >= 300) throw new Error(`slice: ${r.status} ${r.text}`);
  };

  for (const mode of MODES) {
    await t.test(mode.name, async (t) => runScenario(t, mode.args, world, clients, createService, putSlice, c));
  }
});

async function runScenario(
  t: Test, modeArgs: string[], world: World, clients: Clientset,
  createService: (name: string, spec: Record<string, unknown>) => Promise<any>,
  putSlice: (svc: string, pods: number[], port?: number, protocol?: string) => Promise<void>,
  c: Awaited<ReturnType<typeof startAPIServer>>['client'],
) {
  const args = [...modeArgs, '--netns', world.node.path, '--hostname-override', 'node-a', '--cluster-cidr', POD_CIDR,
    '--min-sync-period', '100ms', '--sync-period', '2s', '--metrics-bind-address', '127.0.0.1:0', '--healthz-bind-address', '127.0.0.1:0'];
  let proxy: ProxyHandle | undefined = await startProxy(args, clients);
  t.teardown(async () => { await proxy?.stop(); await proxy?.backend.cleanup(); });
  const iptables = modeArgs.includes('iptables');

  const web = await createService('web', { type: 'NodePort', ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }], selector: { app: 'web' } });
  const webIP: string = web.spec.clusterIP, nodePort: number = web.spec.ports[0].nodePort;
  await putSlice('web', [0, 1, 2]);

  const all = await until('ClusterIP reaching every endpoint', async () => {
    const p = await world.probe(webIP, 80, 40);
    return names(p).length === 3 && clean(p) && p;
  });
  t.same(names(all), ['pod-0', 'pod-1', 'pod-2'], 'over 40 connections the ClusterIP reaches every ready endpoint');

  const np = await world.probe(NODE_IP, nodePort, 40);
  t.ok(clean(np) && names(np).length === 3, `NodePort ${nodePort} from outside the node answers from every endpoint (${JSON.stringify(np)})`);

  await putSlice('web', [0, 1]);
  const fewer = await until('endpoint change', async () => {
    const p = await world.probe(webIP, 80, 30);
    return names(p).join() === 'pod-0,pod-1' && clean(p) && p;
  });
  t.same(names(fewer), ['pod-0', 'pod-1'], 'after the slice changes only the remaining endpoints answer');

  const dns = await createService('dns', { ports: [{ name: 'http', port: 53, targetPort: 8080, protocol: 'UDP' }] });
  await putSlice('dns', [2], 8080, 'UDP');
  const udp = await until('UDP service', async () => {
    const p = await world.probe(dns.spec.clusterIP, 53, 5, { proto: 'udp' });
    return p.seen['pod-2'] === 5 && p;
  });
  t.equal(udp.seen['pod-2'], 5, 'UDP ClusterIP answers');

  // Conntrack: a UDP flow (fixed source port, so one conntrack entry, refreshed by every
  // datagram) follows its endpoint out of the slice only if the proxy deletes the entry.
  const udpFrom = async (sport: number) => (await execa('nsenter', [`--net=${world.client.path}`, 'python3', '-c', UDP_FROM, dns.spec.clusterIP, '53', String(sport)], { reject: false })).stdout.trim();
  t.equal(await udpFrom(40053), 'pod-2', 'a UDP flow from a fixed port reaches pod-2');
  await putSlice('dns', [1], 8080, 'UDP');
  const moved = await until('UDP flow moved off the removed endpoint', async () => {
    const r = await udpFrom(40053);
    return r === 'pod-1' && r;
  });
  t.equal(moved, 'pod-1', 'after pod-2 left the slice the same flow reaches pod-1 (its conntrack entry was deleted)');

  const empty = await createService('empty', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
  await until('reject for a service without endpoints', async () => {
    const p = await world.probe(empty.spec.clusterIP, 80, 3);
    return p.errors.ECONNREFUSED === 3 && p;
  });
  // Measured once the rules are in: a probe that straddled the sync would time a SYN retransmit.
  const refused = await world.probe(empty.spec.clusterIP, 80, 5);
  t.equal(refused.errors.ECONNREFUSED, 5, 'every connection refused');
  t.ok(refused.slowest < 0.5, `connect to a Service with no endpoints is refused at once (slowest ${refused.slowest.toFixed(3)} s)`);

  const sticky = await createService('sticky', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 300 } }, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
  await putSlice('sticky', [0, 1, 2]);
  const aff = await until('affinity service', async () => {
    const p = await world.probe(sticky.spec.clusterIP, 80, 25);
    return clean(p) && p.seen && Object.values(p.seen).reduce((a, b) => a + b, 0) === 25 && p;
  });
  t.equal(names(aff).length, 1, `session affinity: 25 connections from one client reach one endpoint (${JSON.stringify(aff.seen)})`);

  const hairpin = await world.probe(webIP, 80, 20, { from: world.pods[0]!.ns });
  t.ok(clean(hairpin) && hairpin.seen['pod-0']! > 0, `hairpin: pod-0 reaches itself through its Service (${JSON.stringify(hairpin)})`);

  // Drift: delete by hand what makes the web Service work; the periodic full sync repairs it.
  if (iptables) {
    await execa('nsenter', [`--net=${world.node.path}`, 'iptables', '-t', 'nat', '-F', 'KUBE-SERVICES']);
  } else {
    const table = new NftTable(createNftDriver('nft'), { family: 'ip', name: 'capstan-proxy' }, world.node.path);
    const st = await table.list();
    const rule = st.rules.find((r) => r.chain === 'services' && r.exprs.some((e) => e.kind === 'vmap'))!;
    await table.apply([
      { op: 'deleteElements', set: st.sets.find((x) => x.name.startsWith('service-ips-') && x.elements.some((e) => e.key[0] === webIP))!.name, keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], elements: [{ key: [webIP, 'tcp', 80] }] },
      { op: 'deleteRule', chain: 'services', handle: rule.handle },
    ]);
  }
  const restored = async () => iptables
    ? (await execa('nsenter', [`--net=${world.node.path}`, 'iptables-save', '-t', 'nat'])).stdout.includes(`-d ${webIP}/32`)
    : (await new NftTable(createNftDriver('addon'), { family: 'ip', name: 'capstan-proxy' }, world.node.path).list())
      .sets.some((x) => x.name.startsWith('service-ips-') && x.elements.some((e) => e.key[0] === webIP));
  const fullBefore = proxy.proxier.syncs.full;
  await until('resync repairing drift', async () => proxy!.proxier.syncs.full > fullBefore && restored(), 10_000);
  const repaired = await world.probe(webIP, 80, 10);
  t.ok(clean(repaired), 'the next full resync put the deleted rule and element back');

  // Restart: an established connection survives, new connections keep working throughout.
  const held = world.hold(webIP, 80, 2.5);
  await new Promise((r) => setTimeout(r, 300));
  const during = world.probe(webIP, 80, 60);
  await proxy.stop();
  proxy = await startProxy(args, clients);
  await proxy.proxier.nextSync();
  const duringRestart = await during;
  t.ok(clean(duringRestart), `no failed connection across the restart (${JSON.stringify(duringRestart.errors)})`);
  const heldOut = String((await held).stdout).trim();
  t.match(heldOut, /^pod-\d still-here$/, 'a connection opened before the restart still works after it');

  // A Service losing its endpoints refuses new connections but leaves established ones alone
  // (a node briefly NotReady has its pods marked unready: what they carry must not be reset).
  const kept = await createService('kept', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
  await putSlice('kept', [0]);
  await until('kept answering', async () => { const p = await world.probe(kept.spec.clusterIP, 80, 3); return clean(p) && p; });
  const keptConn = execa('nsenter', [`--net=${world.client.path}`, 'python3', '-c', HOLD_UNTIL_GO, kept.spec.clusterIP, '80'], { reject: false, stdin: 'pipe' });
  t.teardown(() => { keptConn.kill('SIGKILL'); return keptConn.catch(() => undefined); });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    keptConn.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('open\n')) resolve(); });
    void keptConn.then((r) => reject(new Error(`holder exited: ${r.stdout} ${r.stderr}`)));
  });
  await putSlice('kept', []);
  await until('new connections to kept refused', async () => { const p = await world.probe(kept.spec.clusterIP, 80, 2); return p.errors.ECONNREFUSED === 2 && p; });
  keptConn.stdin!.write('go\n');
  const keptOut = await keptConn;
  t.match(String(keptOut.stdout).trim().split('\n').pop(), /^pod-0 still-here$/, `the connection opened before its Service lost its endpoints still works (${String(keptOut.stderr).trim()})`);

  // Metrics and health.
  const metrics = await fetch(`http://127.0.0.1:${proxy.metricsPort}/metrics`).then((r) => r.text());
  t.match(metrics, /kubeproxy_sync_proxy_rules_duration_seconds_bucket\{le="[^"]+",kind="full"\}/, 'full sync histogram');
  t.match(metrics, /kubeproxy_sync_proxy_rules_total\{kind="rules"\} \d+/);
  t.equal((await fetch(`http://127.0.0.1:${proxy.healthzPort}/healthz`)).status, 200);

  // Deleting the Services removes every trace of them.
  const ips = [webIP, dns.spec.clusterIP, empty.spec.clusterIP, sticky.spec.clusterIP, kept.spec.clusterIP];
  for (const name of ['web', 'dns', 'empty', 'sticky', 'kept']) {
    await c.delete(`/api/v1/namespaces/default/services/${name}`);
    await c.delete(`/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/${name}-1`);
  }
  const dump = async () => iptables
    ? (await execa('nsenter', [`--net=${world.node.path}`, 'iptables-save'])).stdout
    : JSON.stringify(await new NftTable(createNftDriver('addon'), { family: 'ip', name: 'capstan-proxy' }, world.node.path).list());
  // nftables: elements lapse at once; chains and sets left behind are collected seconds later.
  const podIPs = world.pods.map((p) => p.ip);
  const left = await until('services gone from the rules', async () => {
    const d = await dump();
    return !ips.some((ip) => d.includes(ip)) && !podIPs.some((ip) => d.includes(ip)) && !/"(sep|aff)-[0-9a-f]{16}"/.test(d) && d;
  }, 15_000);
  // (The API server's own "kubernetes" Service stays, with its chains.)
  for (const id of ['default/web:http/tcp', 'default/dns:http/udp', 'default/sticky:http/tcp']) {
    const plan = { id } as ServicePortPlan;
    const marks = iptables ? [svcChain(plan), extChain(plan)] : [shortHash(id)];
    for (const m of marks) t.notOk(left.includes(m), `nothing named for ${id} remains (${m})`);
  }
  if (!iptables) t.notMatch(left, /"(sep|aff)-[0-9a-f]{16}"/, 'no affinity chain or set remains');
  t.notMatch(left, new RegExp(`${world.pods[0]!.ip}|${world.pods[1]!.ip}|${world.pods[2]!.ip}`), 'no endpoint remains');
  t.notMatch(left, String(nodePort), 'no NodePort remains');
}
