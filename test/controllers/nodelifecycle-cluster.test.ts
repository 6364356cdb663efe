// The node controllers and hollow nodes against a real API server, seen through kubectl:
// nodes Ready with pod CIDRs, bound pods Running, a node that stops heartbeating goes
// NotReady with the unreachable taint and its pods are evicted; back again, the taint goes.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { clientsetFromKubeconfig } from '../../src/client/index.js';
import { startHollowNodes } from '../../src/hollow/index.js';
import { logger } from '../../src/log/index.js';

const quiet = logger('test', {}, () => undefined);

t.test('hollow nodes under nodeipam and nodelifecycle', async (t) => {
  // Evicted 2 s after the taint: the tolerations DefaultTolerationSeconds gives new pods.
  const server = await startAPIServer(t, { defaultTolerationSeconds: { notReady: 2, unreachable: 2 } });
  const kubeconfig = writeAdminKubeconfig(server.dir, server.pki, `https://127.0.0.1:${server.port}`);
  const cm = await startControllerManager(['--kubeconfig', kubeconfig, '--controllers', 'nodeipam,nodelifecycle', '--leader-elect', 'false',
    '--node-monitor-grace-period', '3s', '--pod-eviction-timeout', '2s', '--secure-port', '0']);
  t.teardown(() => cm.stop());
  const clients = clientsetFromKubeconfig(kubeconfig, 'hollow-test');
  t.teardown(() => clients.close());
  const hollow = await startHollowNodes({ clients, count: 3, heartbeatIntervalMs: 1000, terminationDelayMs: 200, log: quiet });
  t.teardown(() => hollow.stop());
  const k = kubectlFor(t, kubeconfig);

  let wide = '';
  await eventually(async () => {
    wide = await k.ok(['get', 'nodes', '-o', 'wide']);
    return wide.split('\n').filter((l) => / Ready /.test(l)).length === 3;
  }, 20_000, 'three Ready nodes');
  t.match(wide, /hollow-0\s+Ready\s+<none>\s+\S+\s+v1\.32\.0-capstan-hollow\s+127\.1\.0\.1\s/);
  t.match(wide, /Hollow Node \(capstan\)\s+6\.1\.0-hollow\s+hollow:\/\/1/);
  let cidrs: string[] = [];
  await eventually(async () => {
    cidrs = (await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.spec.podCIDR}{"\\n"}{end}'])).split('\n').filter(Boolean);
    return cidrs.length === 3;
  }, 20_000, 'pod CIDRs');
  t.same([...cidrs].sort(), ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24']);

  const pods = [0, 1, 2].flatMap((n) => [0, 1].map((i) => `---
apiVersion: v1
kind: Pod
metadata: {name: web-${n}-${i}, labels: {app: web}}
spec:
  nodeName: hollow-${n}
  terminationGracePeriodSeconds: 2
  containers: [{name: nginx, image: nginx:1.27}]
`)).join('');
  await k.ok(['apply', '-f', '-'], pods);
  let podsWide = '';
  await eventually(async () => {
    podsWide = await k.ok(['get', 'pods', '-o', 'wide']);
    return podsWide.split('\n').filter((l) => /1\/1\s+Running/.test(l)).length === 6;
  }, 20_000, 'six Running pods');
  const cidrOf = Object.fromEntries((await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.podCIDR}{"\\n"}{end}'])).trim().split('\n').map((l) => l.split('=')));
  for (const n of [0, 1, 2]) {
    const prefix = cidrOf[`hollow-${n}`].replace(/0\/24$/, '');
    for (const i of [0, 1]) t.match(podsWide, new RegExp(`web-${n}-${i}\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+${prefix.replace(/\./g, '\\.')}\\d+\\s+hollow-${n}\\s`), `web-${n}-${i} runs on hollow-${n} with an address from its block`);
  }

  hollow.stopHeartbeat('hollow-1');
  let node1 = '';
  await eventually(async () => {
    node1 = await k.ok(['get', 'node', 'hollow-1']);
    return /hollow-1\s+NotReady/.test(node1);
  }, 15_000, 'hollow-1 NotReady');
  const taints = await k.ok(['get', 'node', 'hollow-1', '-o', 'jsonpath={range .spec.taints[*]}{.key}:{.effect}{"\\n"}{end}']);
  t.match(taints, 'node.kubernetes.io/unreachable:NoExecute');
  t.match(taints, 'node.kubernetes.io/unreachable:NoSchedule');
  t.match(await k.ok(['get', 'node', 'hollow-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].message}']), 'Kubelet stopped posting node status.');
  t.match(await k.ok(['get', 'nodes']), /hollow-0\s+Ready/, 'the others stay Ready');

  await eventually(async () => !/web-1-/.test(await k.ok(['get', 'pods'])), 20_000, 'pods on hollow-1 evicted');
  const left = await k.ok(['get', 'pods', '-o', 'wide']);
  t.equal(left.split('\n').filter((l) => /1\/1\s+Running/.test(l)).length, 4, 'pods elsewhere keep running');
  const events = await k.ok(['get', 'events', '-A']);
  t.match(events, /NodeNotReady/);
  t.match(events, /TaintManagerEviction\s+pod\/web-1-0/);

  hollow.resumeHeartbeat('hollow-1');
  await eventually(async () => /hollow-1\s+Ready/.test(await k.ok(['get', 'node', 'hollow-1'])), 15_000, 'hollow-1 Ready again');
  await eventually(async () => (await k.ok(['get', 'node', 'hollow-1', '-o', 'jsonpath={.spec.taints}'])).trim() === '', 15_000, 'taints removed');
});
