// `capstan lab up --nodes 3 --subnets 2` end to end: a Deployment spread over the nodes (two
// pods on one of them), every pod reaches every other pod by ICMP and TCP, the kernel's path
// is direct within a segment and VXLAN across; TCP streams across nodes survive the network
// agents' restarts; `capstan lab down` leaves no namespace, process or file behind.
import t from 'tap';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, KUBECTL, kubectlFor } from '../helpers/kubectl.js';
import { readState, type LabNode, type LabState } from '../../src/lab/index.js';
import { loadKubeconfig } from '../../src/client/index.js';
import { X509Certificate } from 'node:crypto';
import { CRIClient } from '../../cri/index.js';
import { BUSYBOX_IMAGE, NODE_IMAGE, PAUSE_IMAGE } from '../../src/kubelet/images/index.js';

const run = promisify(execFile);
const root = process.getuid?.() === 0;

interface Pod { name: string; ip: string; node: string }
async function podsOf(k: ReturnType<typeof kubectlFor>, selector: string): Promise<Pod[]> {
  return (await k.ok(['get', 'pods', '-l', selector, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.spec.nodeName}{"\\n"}{end}']))
    .trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map(([name, ip, node]) => ({ name: name!, ip: ip ?? '', node: node ?? '' }));
}

const alive = (pid: number) => { try { process.kill(pid, 0); return existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' })); } catch { return false; } };

t.test('capstan lab: 3 nodes on 2 subnets', { skip: root ? false : 'needs root', timeout: 480_000 }, async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'capstan-lab-'));
  const dir = join(parent, 'lab');
  let state: LabState | null = null;
  const down = async () => run(process.execPath, [capstanBin, 'lab', 'down', '--dir', dir], { timeout: 120_000 });
  t.teardown(async () => {
    await down().catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
  });

  const up = await run(process.execPath, [capstanBin, 'lab', 'up', '--nodes', '3', '--subnets', '2', '--dir', dir], { timeout: 240_000 })
    .catch((e: Error & { stderr?: string }) => { throw new Error(`lab up failed: ${e.message}\n${e.stderr ?? ''}`); });
  t.match(up.stdout, /is up: 3 node\(s\) on 2 segment\(s\)/);
  t.match(up.stdout, /capstan lab kubectl --dir/);
  state = readState(dir);
  t.ok(state, 'state file written');
  const topo = state!.topology;
  // The kubeconfig `lab up` prints works from the host, where `lab up` ran: the API server
  // on a loopback address of the host's namespace (its certificate names it: kubectl verifies).
  const printed = /export KUBECONFIG=(\S+)/.exec(up.stdout)?.[1];
  t.ok(printed, 'lab up prints a kubeconfig');
  const server = execFileSync(KUBECTL, ['--kubeconfig', printed!, 'config', 'view', '-o', 'jsonpath={.clusters[0].cluster.server}'], { encoding: 'utf8' });
  t.match(server, /^https:\/\/127\.0\.0\.1:\d+$/, `the kubeconfig names a loopback address (${server})`);
  const k = kubectlFor(t, printed!);

  const nodes = (await k.ok(['get', 'nodes', '--no-headers'])).trim().split('\n');
  t.equal(nodes.filter((l) => / Ready /.test(l)).length, 3, 'all nodes Ready, listed by kubectl on the host');
  const viaLab = await run(process.execPath, [capstanBin, 'lab', 'kubectl', '--dir', dir, '--', 'get', 'nodes', '-o', 'name'], { timeout: 30_000 });
  t.same(viaLab.stdout.trim().split('\n').sort(), ['node/node-1', 'node/node-2', 'node/node-3'], '`capstan lab kubectl` lists them too');

  await t.test('a node imports pause and busybox at start, the node image only when a pod names it', async (t) => {
    for (const n of topo.nodes) {
      const cri = new CRIClient({ socket: join(dir, 'nodes', n.name, 'containerd', 'containerd.sock') });
      try {
        const names = (await cri.listImages()).flatMap((i) => i.repo_tags);
        t.ok(names.includes(PAUSE_IMAGE) && names.includes(BUSYBOX_IMAGE), `${n.name} has pause and busybox`);
        t.notOk(names.includes(NODE_IMAGE), `${n.name} has not built the node image`);
      } finally {
        cri.close();
      }
    }
  });

  await t.test('nodes joined with a token: no CA key on any node, each component its own identity', async (t) => {
    const state = readState(dir) as LabState;
    for (const n of state.topology.nodes) {
      const files = readdirSync(join(dir, 'nodes', n.name), { recursive: true }).map(String);
      t.notOk(files.some((f) => f.endsWith('ca.key')), `${n.name} holds no ca.key`);
      const p = state.processes.find((x) => x.name === n.name)!;
      const args = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
      t.ok(args.includes('join') && !args.includes('--ca-dir'), `${n.name} runs capstan join`);
      for (const [component, cn] of [['proxy', 'system:kube-proxy'], ['networkAgent', 'system:capstan-network-agent'], ['dns', 'system:serviceaccount:kube-system:capstan-dns'], ['kubelet', `system:node:${n.name}`]]) {
        const kubeconfig = component === 'kubelet' ? 'kubelet.conf' : `${component}.kubeconfig`;
        const cert = loadKubeconfig(join(dir, 'nodes', n.name, kubeconfig)).certPem!;
        t.match(new X509Certificate(cert).subject, `CN=${cn}`, `${n.name}: ${component} is ${cn}`);
      }
    }
    const users = (await k.ok(['get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.username}{"\\n"}{end}'])).split('\n').filter(Boolean);
    t.ok(users.some((u) => u.startsWith('system:bootstrap:')), 'kubelet client certificates were requested with the bootstrap token');
    const components = JSON.parse(await k.ok(['get', 'csr', '-o', 'json'])).items
      .filter((c: { spec: { signerName: string } }) => c.spec.signerName === 'kubernetes.io/kube-apiserver-client')
      .map((c: { spec: { username: string } }) => c.spec.username).sort();
    t.same(components, ['node-1', 'node-1', 'node-1', 'node-2', 'node-2', 'node-2', 'node-3', 'node-3', 'node-3'].map((n) => `system:node:${n}`),
      'each node requested its proxy\'s, network agent\'s and DNS\'s certificates as itself');
    const nodeUsers = JSON.parse(await k.ok(['get', 'nodes', '-o', 'json'])).items.map((i: { metadata: { name: string } }) => i.metadata.name);
    t.same(nodeUsers.sort(), ['node-1', 'node-2', 'node-3']);
  });

  await t.test('pods reach each other on one node, within a segment and across; direct within a segment, VXLAN across', async (t) => {
    // 4 replicas on 3 nodes: every node gets one (the scheduler's owner spreading) and one
    // node two, so the pairs include one on a single node (host veth to host veth).
    await k.ok(['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata: {name: pinger}
spec:
  replicas: 4
  selector: {matchLabels: {app: pinger}}
  template:
    metadata: {labels: {app: pinger}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: localhost/capstan/busybox:1
        command: [sh, -c, 'exec nc -ll -p 8080 -e echo pong']
`);
    await k.ok(['rollout', 'status', 'deploy/pinger', '--timeout=150s']);
    let pods: Pod[] = [];
    await eventually(async () => {
      pods = await podsOf(k, 'app=pinger');
      return pods.length === 4 && pods.every((p) => p.ip);
    }, 30_000, 'four pods with IPs');
    t.same([...new Set(pods.map((p) => p.node))].sort(), ['node-1', 'node-2', 'node-3'], 'a pod on every node');
    const sameNode = pods.filter((a) => pods.some((b) => b !== a && b.node === a.node));
    t.equal(sameNode.length, 2, `two pods share a node (${sameNode.map((p) => `${p.name}@${p.node}`).join(', ')})`);
    t.equal(new Set(pods.map((p) => p.ip)).size, 4, 'distinct addresses');

    // Counters in the router: VXLAN (UDP 4789) routed between segments, and what is bridged
    // within a segment (port to port: the same-segment pair's direct traffic).
    const r = topo.routerNetns;
    const nft = (args: string[], input?: string) => execFileSync('nsenter', [`--net=/run/netns/${r}`, 'nft', ...args], { encoding: 'utf8', input });
    nft(['-f', '-'], [
      'table ip lab {', ' chain counts {', '  type filter hook forward priority 0; policy accept;', '  udp dport 4789 counter', ' }', '}',
      'table bridge lab {', ' chain counts {', '  type filter hook forward priority 0; policy accept;', '  udp dport 4789 counter', '  ip protocol icmp counter', ' }', '}', ''].join('\n'));
    const counters = (family: string) => [...nft(['list', 'table', family, 'lab']).matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
    const nodeOf = new Map(topo.nodes.map((n) => [n.name, n]));
    const kind = (a: Pod, b: Pod) => a.node === b.node ? 'same node' : nodeOf.get(a.node)!.segment === nodeOf.get(b.node)!.segment ? 'same segment' : 'across segments';
    // One exec per source pod probes every other pod (ICMP, then TCP) and prints a line each.
    for (const a of pods) {
      const others = pods.filter((b) => b !== a);
      const script = others.map((b) => `if ping -c1 -W2 ${b.ip} >/dev/null; then i=ok; else i=fail; fi; echo "${b.ip} $i $(nc -w 2 ${b.ip} 8080 </dev/null)"`).join('; ');
      const out = (await k.ok(['exec', a.name, '--', 'sh', '-c', script])).trim().split('\n');
      for (const b of others) {
        const [, icmp, tcp] = (out.find((l) => l.startsWith(`${b.ip} `)) ?? '').split(' ');
        t.equal(icmp, 'ok', `ICMP ${a.node} → ${b.node} (${b.ip}, ${kind(a, b)})`);
        t.equal(tcp, 'pong', `TCP ${a.node} → ${b.node} (${b.ip}:8080, ${kind(a, b)})`);
      }
    }

    const [routedVxlan] = counters('ip'), [bridgedVxlan, bridgedIcmp] = counters('bridge');
    t.ok(routedVxlan > 0, `UDP 4789 routed between segments by the router (${routedVxlan} packets)`);
    t.equal(bridgedVxlan, 0, 'no VXLAN within a segment');
    t.ok(bridgedIcmp > 0, `ICMP bridged within a segment, unencapsulated (${bridgedIcmp} packets)`);

    for (const a of pods) {
      for (const b of pods) {
        if (a === b) continue;
        const na = nodeOf.get(a.node)!, nb = nodeOf.get(b.node)!;
        const route = execFileSync('ip', ['-n', na.netns, 'route', 'get', b.ip], { encoding: 'utf8' });
        if (a.node === b.node) t.match(route, /dev cap[0-9a-f]{11}/, `${a.node} → ${b.ip}: straight to the pod's host veth (same node)`);
        else if (na.segment === nb.segment) t.match(route, new RegExp(`via ${nb.ip.replace(/\./g, '\\.')} dev eth0`), `${a.node} → ${b.node}: direct (same segment)`);
        else t.match(route, /dev vxlan\.capstan/, `${a.node} → ${b.node}: VXLAN (across segments)`);
      }
    }
  });

  await t.test('network agents restarted (SIGKILL, then SIGTERM): TCP streams survive, kernel state is adopted, CNI ADD still works', async (t) => {
    // node-1 streams to node-2 (across segments: VXLAN) and to node-3 (same segment: direct),
    // ~800 B/s each over one TCP connection. A receiver's nc accepts once: a reset ends the
    // file's growth and leaves /tmp/closed; a sender's nc exiting ends its loop.
    const [n1, n2, n3] = topo.nodes as [LabNode, LabNode, LabNode];
    const pod = (name: string, node: string, cmd: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: stream}}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: localhost/capstan/busybox:1
    command: [sh, -c, '${cmd}']
---
`;
    const streams = [{ rx: 'rx-far', tx: 'tx-far', node: n2, path: 'VXLAN' }, { rx: 'rx-near', tx: 'tx-near', node: n3, path: 'direct' }];
    await k.ok(['apply', '-f', '-'], streams.map((s) => pod(s.rx, s.node.name, 'sleep 100000 | nc -l -p 9000 > /tmp/rx; echo $? > /tmp/closed; exec sleep 3600')).join(''));
    await k.ok(['wait', '--for=condition=Ready', 'pod/rx-far', 'pod/rx-near', '--timeout=120s']);
    const ipOf = async (name: string) => (await k.ok(['get', 'pod', name, '-o', 'jsonpath={.status.podIP}'])).trim();
    const rxIP = new Map<string, string>();
    for (const s of streams) rxIP.set(s.rx, await ipOf(s.rx));
    await k.ok(['apply', '-f', '-'], streams.map((s) => pod(s.tx, n1.name,
      `while :; do echo "${s.tx} $(date +%s) 0123456789012345678901234567890123456789012345678901234567890123"; sleep 0.1; done | nc ${rxIP.get(s.rx)} 9000; exec sleep 3600`)).join(''));
    await k.ok(['wait', '--for=condition=Ready', 'pod/tx-far', 'pod/tx-near', '--timeout=120s']);
    const received = async (rx: string) => {
      const r = await k(['exec', rx, '--', 'sh', '-c', 'wc -c < /tmp/rx; cat /tmp/closed 2>/dev/null']);
      const [bytes, closed] = r.stdout.trim().split('\n');
      return { bytes: Number(bytes), closed: closed !== undefined };
    };
    const samples = new Map<string, number[]>(streams.map((s) => [s.rx, []]));
    const sample = async (when: string) => {
      for (const s of streams) {
        const r = await received(s.rx);
        const prev = samples.get(s.rx)!;
        t.notOk(r.closed, `${s.tx}@${n1.name} → ${s.rx}@${s.node.name} (${s.path}): connection still open ${when}`);
        t.ok(r.bytes > (prev.at(-1) ?? 0), `… and still receiving ${when} (${r.bytes} bytes)`);
        prev.push(r.bytes);
      }
    };
    await eventually(async () => (await Promise.all(streams.map((s) => received(s.rx)))).every((r) => r.bytes > 0), 30_000, 'both streams flowing');
    await sample('before the restarts');

    // What the agents own in each node's kernel; the ifindex shows a recreated device.
    const sh = (ns: string, args: string[]) => execFileSync(args[0]!, ['-n', ns, ...args.slice(1)], { encoding: 'utf8' });
    const kernelState = (n: LabNode) => [
      sh(n.netns, ['ip', '-o', 'link', 'show', 'vxlan.capstan']), sh(n.netns, ['ip', 'route', 'show', 'proto', '81']),
      sh(n.netns, ['ip', 'route', 'show', 'proto', '80']), sh(n.netns, ['ip', 'neigh', 'show', 'dev', 'vxlan.capstan']),
      sh(n.netns, ['bridge', 'fdb', 'show', 'dev', 'vxlan.capstan']), sh(n.netns, ['ip', '-o', 'link', 'show', 'type', 'veth']),
    ].join('');
    const before = new Map(topo.nodes.map((n) => [n.name, kernelState(n)]));
    // Every link, address and route change in the nodes while the agents restart (a flush and
    // rebuild shows here; neighbour and FDB entries are compared in the snapshot: their
    // state changes with traffic; IPv6 link-local addresses of just-created veths are the
    // kernel's own, not the agent's).
    const monitors = topo.nodes.map((n) => {
      const child = spawn('nsenter', [`--net=/run/netns/${n.netns}`, 'ip', 'monitor', 'link', 'address', 'route'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      const stop = () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); };
      t.teardown(stop);
      return { node: n.name, output: () => out, stop };
    });
    const logs = topo.nodes.map((n) => state!.processes.find((p) => p.name === n.name)!.log);
    const count = (file: string, what: string) => readFileSync(file, 'utf8').split(what).length - 1;
    const routeChanges = logs.map((l) => count(l, '"applied route changes"'));
    const agentPid = (n: LabNode) => Number(readFileSync(join(dir, 'nodes', n.name, 'network-agent.pid'), 'utf8'));

    for (const sig of ['SIGKILL', 'SIGTERM'] as const) {
      const old = topo.nodes.map(agentPid);
      const started = logs.map((l) => count(l, 'capstan network-agent running'));
      for (const pid of old) t.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /network-agent/, `PID ${pid} is a network agent`);
      for (const pid of old) process.kill(pid, sig);
      await eventually(() => topo.nodes.every((n, i) => agentPid(n) !== old[i] && alive(agentPid(n)) && count(logs[i]!, 'capstan network-agent running') > started[i]!),
        30_000, `every node's network agent back after ${sig}`);
      t.notOk(old.some(alive), `the old agents are gone (${sig})`);
      t.pass(`${sig}: the nodes restarted their agents (${old.join(', ')} → ${topo.nodes.map(agentPid).join(', ')})`);
      await sample(`after the ${sig} restart`);
      await new Promise((r) => setTimeout(r, 2000));
      await sample(`2 s after the ${sig} restart`);
    }
    for (const m of monitors) m.stop();
    for (const n of topo.nodes) t.equal(kernelState(n), before.get(n.name), `${n.name}: VXLAN device, node routes, pod routes, neighbours, FDB and veths unchanged`);
    for (const m of monitors) {
      const ours = m.output().split('\n').filter((l) => /vxlan\.capstan|proto 8[01]|cap[0-9a-f]{11}/.test(l) && !/inet6|fe80::/.test(l));
      t.same(ours, [], `${m.node}: no netlink change to capstan's routes, devices or entries during the restarts`);
    }
    t.same(logs.map((l) => count(l, '"applied route changes"')), routeChanges, 'the restarted agents adopted the kernel state: no route sync applied anything');
    const restarts = (await k.ok(['get', 'pods', '-l', 'app=stream', '-o', 'jsonpath={range .items[*]}{.status.containerStatuses[0].restartCount}{" "}{end}'])).trim().split(' ');
    t.same(restarts, ['0', '0', '0', '0'], 'no stream container restarted');

    // CNI ADD against the new agents: a pod per node gets an address no running pod holds.
    await k.ok(['apply', '-f', '-'], topo.nodes.map((n) => pod(`after-${n.name}`, n.name, 'exec sleep 3600').replace('app: stream', 'app: after')).join(''));
    await k.ok(['wait', '--for=condition=Ready', ...topo.nodes.map((n) => `pod/after-${n.name}`), '--timeout=120s']);
    const all = (await k.ok(['get', 'pods', '-A', '-o', 'jsonpath={range .items[*]}{.status.podIP} {.spec.nodeName}{"\\n"}{end}'])).trim().split('\n').map((l) => l.split(' '));
    const ips = all.map(([ip]) => ip).filter(Boolean);
    t.equal(new Set(ips).size, ips.length, `${ips.length} pods, no address handed out twice`);
    for (const p of await podsOf(k, 'app=after')) {
      const block = (await k.ok(['get', 'node', p.node, '-o', 'jsonpath={.spec.podCIDR}'])).trim();
      t.ok(p.ip.startsWith(block.replace(/0\/24$/, '')), `${p.name} got ${p.ip} from ${p.node}'s block ${block}`);
    }
    const ping = await k(['exec', `after-${n1.name}`, '--', 'ping', '-c1', '-W2', rxIP.get('rx-far')!]);
    t.equal(ping.code, 0, 'a pod created after the restarts reaches a pod across segments');
    await sample('at the end');
    for (const app of ['stream', 'after']) await k.ok(['delete', 'pod', '-l', `app=${app}`, '--wait=false']);
  });

  await t.test('a pod reaches another Service by its short, namespace-qualified and full name', async (t) => {
    await k.ok(['create', 'namespace', 'other']);
    await k.ok(['apply', '-n', 'other', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata: {name: pong}
spec:
  replicas: 2
  selector: {matchLabels: {app: pong}}
  template:
    metadata: {labels: {app: pong}}
    spec:
      containers:
      - name: pong
        image: localhost/capstan/busybox:1
        command: [sh, -c, 'exec nc -ll -p 8080 -e echo pong']
---
apiVersion: v1
kind: Service
metadata: {name: pong}
spec:
  selector: {app: pong}
  ports: [{port: 80, targetPort: 8080}]
`);
    await k.ok(['rollout', 'status', '-n', 'other', 'deploy/pong', '--timeout=150s']);
    // A client pod in the Service's namespace (short name) and one elsewhere (qualified names).
    const client = (await k.ok(['get', 'pods', '-l', 'app=pinger', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    await k.ok(['run', '-n', 'other', 'client', '--image=localhost/capstan/busybox:1', '--', 'sleep', '3600']);
    await k.ok(['wait', '-n', 'other', '--for=condition=Ready', 'pod/client', '--timeout=120s']);
    const cases: [string[], string][] = [
      [['-n', 'other', 'client'], 'pong'],
      [[client], 'pong.other'],
      [[client], 'pong.other.svc.cluster.local'],
    ];
    for (const [where, name] of cases) {
      let last = '';
      await eventually(async () => {
        const r = await k(['exec', ...where, '--', 'sh', '-c', `nc -w 3 ${name} 80 </dev/null`]);
        last = r.stdout + r.stderr;
        return r.stdout.trim() === 'pong';
      }, 60_000, `${name}:80`).catch((e: Error) => { throw new Error(`${e.message}: ${last}`); });
      t.pass(`${name} answers through cluster DNS and the service proxy`);
    }
  });

  await t.test('a pod lists pods with its mounted token only when a Role allows it', async (t) => {
    await k.ok(['create', 'namespace', 'team']);
    await k.ok(['apply', '-n', 'team', '-f', '-'], `apiVersion: v1
kind: ServiceAccount
metadata: {name: reader}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: nobody}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader-reads-pods}
subjects: [{kind: ServiceAccount, name: reader, namespace: team}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
`);
    // The client in the pod is the host's kubectl (a static Go binary, mounted read-only):
    // busybox's wget offers no signature_algorithms in its TLS 1.2 ClientHello, so SHA-1 is
    // implied, which Node's OpenSSL 3 refuses at its default security level (alert 40).
    const kubectlPath = realpathSync(KUBECTL);
    const kubectlDir = dirname(kubectlPath);
    const KUBECTL_NAME = kubectlPath.slice(kubectlDir.length + 1);
    for (const sa of ['reader', 'nobody']) {
      await k.ok(['apply', '-n', 'team', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: ${sa}}
spec:
  serviceAccountName: ${sa}
  containers: [{name: c, image: localhost/capstan/busybox:1, command: [sleep, '3600'], volumeMounts: [{name: kubectl, mountPath: /opt/kubectl, readOnly: true}]}]
  volumes: [{name: kubectl, hostPath: {path: ${kubectlDir}, type: Directory}}]
`);
    }
    await k.ok(['wait', '-n', 'team', '--for=condition=Ready', 'pod/reader', 'pod/nobody', '--timeout=120s']);
    const apiIP = (await k.ok(['get', 'service', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    // Only what the pod has mounted: its token and the cluster CA (the server's certificate is checked).
    const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
    const listPods = (pod: string) => k(['exec', '-n', 'team', pod, '--', 'sh', '-c',
      `HOME=/tmp /opt/kubectl/${KUBECTL_NAME} --server https://${apiIP}:443 --certificate-authority ${sa}/ca.crt --token "$(cat ${sa}/token)" get --raw /api/v1/namespaces/team/pods`]);
    let allowed = { stdout: '', stderr: '', code: -1 };
    await eventually(async () => { allowed = await listPods('reader'); return allowed.code === 0; }, 60_000, 'the reader pod lists pods')
      .catch((e: Error) => { throw new Error(`${e.message}: ${allowed.stderr}`); });
    const list = JSON.parse(allowed.stdout) as { kind: string; items: { metadata: { name: string } }[] };
    t.equal(list.kind, 'PodList');
    t.same(list.items.map((i) => i.metadata.name).sort(), ['nobody', 'reader'], 'with its Role: the pods of its namespace');
    const refused = await listPods('nobody');
    t.not(refused.code, 0);
    t.match(refused.stderr, /\(Forbidden\)[^\n]*User "system:serviceaccount:team:nobody" cannot list resource "pods"/, 'without one: 403 Forbidden');
  });

  await t.test('a kubelet\'s credentials read the Secrets of its own pods, not those of another node\'s', async (t) => {
    await k.ok(['create', 'secret', 'generic', '-n', 'team', 'for-node-1', '--from-literal=k=v1']);
    await k.ok(['create', 'secret', 'generic', '-n', 'team', 'for-node-2', '--from-literal=k=v2']);
    for (const n of ['node-1', 'node-2']) {
      await k.ok(['apply', '-n', 'team', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: uses-${n}}
spec:
  nodeName: ${n}
  containers: [{name: c, image: localhost/capstan/busybox:1, command: [sleep, '3600'], env: [{name: K, valueFrom: {secretKeyRef: {name: for-${n}, key: k}}}]}]
`);
    }
    // node-1's own kubeconfig, through the host's loopback listener the printed one uses.
    const asNode1 = (args: string[]) => run(KUBECTL, ['--kubeconfig', join(dir, 'nodes', 'node-1', 'kubelet.conf'), '--server', server, ...args], { timeout: 30_000 })
      .then((r) => ({ code: 0, out: r.stdout }), (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, out: e.stderr ?? '' }));
    let own = { code: -1, out: '' };
    await eventually(async () => { own = await asNode1(['get', 'secret', '-n', 'team', 'for-node-1', '-o', 'jsonpath={.data.k}']); return own.code === 0; }, 30_000, 'node-1 reads its pod\'s Secret')
      .catch((e: Error) => { throw new Error(`${e.message}: ${own.out}`); });
    t.equal(Buffer.from(own.out, 'base64').toString(), 'v1', 'the Secret of a pod on node-1');
    const other = await asNode1(['get', 'secret', '-n', 'team', 'for-node-2']);
    t.not(other.code, 0);
    t.match(other.out, /forbidden: User "system:node:node-1" cannot get resource "secrets" in API group "" in the namespace "team": no relationship found between node 'node-1' and this object/, 'the Secret of a pod on node-2: Forbidden');
  });

  await t.test('a node removed: its block\'s route disappears from the others', async (t) => {
    const gone = topo.nodes[1];
    const block = (await k.ok(['get', 'node', gone.name, '-o', 'jsonpath={.spec.podCIDR}'])).trim();
    t.match(block, /^10\.244\.\d+\.0\/24$/);
    const routes = (ns: string) => execFileSync('ip', ['-n', ns, 'route', 'show', 'proto', '81'], { encoding: 'utf8' });
    const others = topo.nodes.filter((n) => n !== gone);
    for (const n of others) t.match(routes(n.netns), block, `${n.name} routes ${gone.name}'s block`);
    // Stop its capstan node first, or its kubelet would register the Node again.
    const proc = state!.processes.find((p) => p.name === gone.name)!;
    process.kill(proc.pid, 'SIGTERM');
    await eventually(() => !alive(proc.pid), 60_000, `${gone.name} stopped`);
    await k.ok(['delete', 'node', gone.name]);
    await eventually(() => others.every((n) => !routes(n.netns).includes(block)), 10_000, 'routes gone');
    t.pass(`${others.map((n) => n.name).join(' and ')} no longer route ${block}`);
  });

  await t.test('lab down removes everything, also after a crash', async (t) => {
    const pids = state!.processes.map((p) => p.pid);
    // node-1's capstan process and the control plane crash: node-1's containerd, shims and
    // pod are orphaned and must still go; node-2 and node-3 stop gracefully.
    const crashed = state!.processes.filter((p) => p.name === 'node-1' || p.name === 'control-plane');
    for (const p of crashed) process.kill(p.pid, 'SIGKILL');
    await eventually(() => !crashed.some((p) => alive(p.pid)), 5000, 'crashed processes gone');
    const n1 = topo.nodes[0].netns;
    const orphans = execFileSync('ip', ['netns', 'pids', n1], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
    t.ok(orphans.length > 0, `containerd and shims outlive node-1's crash (${orphans.length} processes in ${n1})`);
    pids.push(...orphans);
    await down();
    const left = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith(`cl-${topo.id}-`));
    t.same(left, [], 'no lab namespace');
    t.same(pids.filter(alive), [], 'no lab process');
    t.notOk(existsSync(dir), 'lab dir gone');
    t.notOk(execFileSync('cat', ['/proc/self/mountinfo'], { encoding: 'utf8' }).includes(dir), 'no mount under the lab dir');
    t.notOk(existsSync(`/sys/fs/cgroup${topo.nodes[0].cgroupRoot}`), 'no pod cgroup');
    const again = await down();
    t.equal(again.stderr, '', 'down again is a no-op');
  });
});
