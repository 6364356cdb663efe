// `capstan lab up --nodes 3 --subnets 2` end to end: a Deployment spread over the nodes, every
// pod pings every other pod, the kernel's path is direct within a segment and VXLAN across,
// and `capstan lab down` leaves no namespace, process or file behind.
import t from 'tap';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { readState, type LabState } from '../../src/lab/index.js';

const run = promisify(execFile);
const root = process.getuid?.() === 0;

const alive = (pid: number) => { try { process.kill(pid, 0); return existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' })); } catch { return false; } };

t.test('capstan lab: 3 nodes on 2 subnets', { skip: root ? false : 'needs root', timeout: 300_000 }, async (t) => {
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
  const k = kubectlFor(t, state!.kubeconfig!, { netns: topo.controlPlane.netns });

  const nodes = (await k.ok(['get', 'nodes', '--no-headers'])).trim().split('\n');
  t.equal(nodes.filter((l) => / Ready /.test(l)).length, 3, 'all nodes Ready');

  await t.test('pods on every node reach each other; direct within a segment, VXLAN across', async (t) => {
    await k.ok(['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata: {name: pinger}
spec:
  replicas: 3
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
    let pods: { name: string; ip: string; node: string }[] = [];
    await eventually(async () => {
      pods = (await k.ok(['get', 'pods', '-l', 'app=pinger', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.spec.nodeName}{"\\n"}{end}']))
        .trim().split('\n').map((l) => l.split(' ')).map(([name, ip, node]) => ({ name, ip, node }));
      return pods.length === 3 && pods.every((p) => p.ip);
    }, 30_000, 'three pods with IPs');
    t.same(pods.map((p) => p.node).sort(), ['node-1', 'node-2', 'node-3'], 'one pod per node');

    // Counters in the router: VXLAN (UDP 4789) routed between segments, and what is bridged
    // within a segment (port to port: the same-segment pair's direct traffic).
    const r = topo.routerNetns;
    const nft = (args: string[], input?: string) => execFileSync('nsenter', [`--net=/run/netns/${r}`, 'nft', ...args], { encoding: 'utf8', input });
    nft(['-f', '-'], [
      'table ip lab {', ' chain counts {', '  type filter hook forward priority 0; policy accept;', '  udp dport 4789 counter', ' }', '}',
      'table bridge lab {', ' chain counts {', '  type filter hook forward priority 0; policy accept;', '  udp dport 4789 counter', '  ip protocol icmp counter', ' }', '}', ''].join('\n'));
    const counters = (family: string) => [...nft(['list', 'table', family, 'lab']).matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
    for (const a of pods) {
      for (const b of pods) {
        if (a === b) continue;
        const ping = await k(['exec', a.name, '--', 'ping', '-c1', '-W2', b.ip]);
        t.equal(ping.code, 0, `ICMP ${a.node} → ${b.node} (${b.ip})`);
        const tcp = await k(['exec', a.name, '--', 'sh', '-c', `nc -w 2 ${b.ip} 8080 </dev/null`]);
        t.equal(tcp.stdout.trim(), 'pong', `TCP ${a.node} → ${b.node} (${b.ip}:8080)`);
      }
    }

    const [routedVxlan] = counters('ip'), [bridgedVxlan, bridgedIcmp] = counters('bridge');
    t.ok(routedVxlan > 0, `UDP 4789 routed between segments by the router (${routedVxlan} packets)`);
    t.equal(bridgedVxlan, 0, 'no VXLAN within a segment');
    t.ok(bridgedIcmp > 0, `ICMP bridged within a segment, unencapsulated (${bridgedIcmp} packets)`);

    const nodeOf = new Map(topo.nodes.map((n) => [n.name, n]));
    for (const a of pods) {
      for (const b of pods) {
        if (a === b) continue;
        const na = nodeOf.get(a.node)!, nb = nodeOf.get(b.node)!;
        const route = execFileSync('ip', ['-n', na.netns, 'route', 'get', b.ip], { encoding: 'utf8' });
        if (na.segment === nb.segment) t.match(route, new RegExp(`via ${nb.ip.replace(/\./g, '\\.')} dev eth0`), `${a.node} → ${b.node}: direct (same segment)`);
        else t.match(route, /dev vxlan\.capstan/, `${a.node} → ${b.node}: VXLAN (across segments)`);
      }
    }
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
