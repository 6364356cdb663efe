// The network agent enforcing NetworkPolicy from a real API server: kubectl applies and
// edits policies and namespace labels, the agent (addon nftables in its node's namespace)
// follows; /metrics counts per policy; `capstan policy explain` answers from the agent.
import t from 'tap';
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Registry } from 'prom-client';
import { clientsetFromKubeconfig, resources } from '../../src/client/index.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startHealthServer } from '../../src/cli/health-server.js';
import { explainQuery } from '../../src/cli/policy.js';
import { logger } from '../../src/log/index.js';
import { createNetlink } from '../../src/netlink/index.js';
import { NetworkAgent, podNetworkOps, randomPodMac } from '../../src/network/index.js';
import { createNftDriver } from '../../src/nft/index.js';
import type { Pod } from '../../src/api/kinds.js';
import { startAPIServer } from '../helpers/api.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { isRoot, newNamespace, type Namespace } from '../native/fixtures/netns.js';
import { probe, startServers, type Flow } from './policy-probe.js';

/** Probes until the answer is `want` (the agent applies asynchronously); the last answer. */
async function until(ns: Namespace, flow: Flow, want: boolean, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  let got = !want;
  while (Date.now() < deadline && got !== want) got = (await probe(ns, [flow], 1000))[0]!;
  return got;
}

t.test('kubectl-applied policies are enforced by the agent', { skip: !isRoot && 'needs root' }, async (t) => {
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const kubectl = kubectlFor(t, kubeconfig);
  const clients = clientsetFromKubeconfig(kubeconfig, 'test');
  t.teardown(() => clients.close());
  await kubectl.ok(['apply', '-f', '-'], `
apiVersion: v1
kind: Namespace
metadata: {name: x, labels: {team: a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: "y", labels: {team: a}}
`);
  const node = await newNamespace(t, 'npagent');
  addNodeUplink(node.name, '192.168.239');
  const nl = createNetlink('addon');
  const made: Record<string, { ns: Namespace; ip: string }> = {};
  for (const [i, [ns, name, ip]] of ([['x', 'server', '10.244.1.2'], ['y', 'client', '10.244.1.3']] as const).entries()) {
    const pns = await newNamespace(t, `npa${i}`);
    const ops = podNetworkOps({ podIP: ip, hostVeth: `capnpa${i}`, ifName: 'eth0', netns: pns.path, podMac: randomPodMac(), mtu: 1500 });
    await nl.apply(node.path, ops.host);
    await nl.apply(pns.path, ops.pod);
    await startServers(t, pns);
    const pod = await clients.resource(resources.pods).create(ns, { metadata: { name, labels: { app: name } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'none', ports: [{ name: 'http', containerPort: 80 }] }] } } as Pod);
    await clients.resource(resources.pods).updateStatus({ ...pod, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } });
    made[`${ns}/${name}`] = { ns: pns, ip };
  }
  const dir = mkdtempSync(join(tmpdir(), 'capstan-npagent-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const registry = new Registry();
  const agent = new NetworkAgent({
    netlink: nl, nft: createNftDriver('addon'), hostNetns: node.path, stateDir: dir, socket: join(dir, 'cni.sock'), podCIDR: '10.244.1.0/24',
    clients, nodeName: 'n1', mtu: 1500, registry, log: logger('t', {}, () => undefined),
  });
  await agent.start();
  t.teardown(() => agent.stop());
  const health = await startHealthServer({ address: '127.0.0.1', port: 0, registry, ready: () => true, debug: { '/debug/policy/explain': (q) => explainQuery(agent, q) } });
  t.teardown(() => health.server.close());
  const client = made['y/client']!, server = made['x/server']!;
  const http: Flow = { ip: server.ip, protocol: 'TCP', port: 80 };
  const metric = async (name: string, policy: string) => {
    const text = await registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`policy="${policy}"`) && l.includes('direction="ingress"'));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const explain = (...args: string[]) => execa(process.execPath, [resolve('bin/capstan.js'), 'policy', 'explain', ...args, '--agent', `http://127.0.0.1:${health.port}`], { reject: false });

  t.equal(await until(client.ns, http, true), true, 'no policy: the client reaches the server');
  await kubectl.ok(['apply', '-f', '-'], 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: x}\nspec: {podSelector: {}}\n');
  t.equal(await until(client.ns, http, false), false, 'default deny ingress in x: refused');
  t.ok(await metric('capstan_network_policy_denied_packets_total', 'deny') > 0, 'the drops are counted against the isolating policy');
  const denied = await explain('y/client', 'x/server', '80');
  t.equal(denied.exitCode, 3);
  t.match(denied.stdout, /10\.244\.1\.3 -> 10\.244\.1\.2 TCP\/80: denied\n\s+egress of y\/client: not isolated.*\n\s+ingress of x\/server: denied; no rule of x\/deny allows it/);

  await kubectl.ok(['apply', '-f', '-'], `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: from-team-a, namespace: x}
spec:
  podSelector: {matchLabels: {app: server}}
  ingress: [{from: [{namespaceSelector: {matchLabels: {team: a}}}], ports: [{port: http}]}]
`);
  t.equal(await until(client.ns, http, true), true, 'allowed from namespaces of team a, on the named port');
  t.ok(await metric('capstan_network_policy_allowed_packets_total', 'from-team-a') > 0, 'allowed packets counted for the policy');
  const allowed = await explain('y/client', 'x/server', '80');
  t.equal(allowed.exitCode, 0, allowed.stderr);
  t.match(allowed.stdout, /TCP\/80: allowed\n.*\n\s+ingress of x\/server: allowed by x\/from-team-a/);
  t.equal((await explain('y/client', 'x/server', '81')).exitCode, 3, 'the named port is 80 only');

  await kubectl.ok(['label', 'namespace', 'y', 'team=b', '--overwrite']);
  t.equal(await until(client.ns, http, false), false, 'relabelling the client\'s namespace out of the selector refuses it again');
  await kubectl.ok(['delete', 'netpol', '-n', 'x', 'deny', 'from-team-a']);
  t.equal(await until(client.ns, http, true), true, 'policies deleted: allowed');

  // AdminNetworkPolicy and BaselineAdminNetworkPolicy, served by the API server, through kubectl.
  const adminMetric = async (kind: string, policy: string, action: string) => {
    const text = await registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith('capstan_admin_network_policy_packets_total{') && l.includes(`kind="${kind}"`) && l.includes(`policy="${policy}"`) && l.includes(`action="${action}"`));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  await kubectl.ok(['apply', '-f', '-'], `
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {matchLabels: {team: a}}}
  ingress: [{name: no-team-b, action: Deny, from: [{namespaces: {matchLabels: {team: b}}}]}]
`);
  t.equal(await until(client.ns, http, false), false, 'BaselineAdminNetworkPolicy: refused where no NetworkPolicy selects');
  t.ok(await adminMetric('BaselineAdminNetworkPolicy', 'default', 'Deny') > 0, 'the baseline\'s drops are counted for it');
  const base = await explain('y/client', 'x/server', '80');
  t.equal(base.exitCode, 3);
  t.match(base.stdout, /ingress of x\/server: denied by BaselineAdminNetworkPolicy default rule no-team-b \(Deny\)/);

  await kubectl.ok(['apply', '-f', '-'], `
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: allow-y-web}
spec:
  priority: 10
  subject: {pods: {namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: x}}, podSelector: {matchLabels: {app: server}}}}
  ingress: [{name: web, action: Allow, from: [{namespaces: {matchLabels: {kubernetes.io/metadata.name: "y"}}}], ports: [{namedPort: http}]}]
`);
  t.equal(await until(client.ns, http, true), true, 'an AdminNetworkPolicy Allow overrides the baseline');
  t.ok(await adminMetric('AdminNetworkPolicy', 'allow-y-web', 'Allow') > 0, 'its allowed packets are counted for it');
  const admitted = await explain('y/client', 'x/server', '80');
  t.equal(admitted.exitCode, 0, admitted.stderr);
  t.match(admitted.stdout, /ingress of x\/server: allowed by AdminNetworkPolicy allow-y-web rule web \(Allow\)/);
  t.match(await kubectl.ok(['get', 'anp']), /NAME\s+PRIORITY\s+AGE\nallow-y-web\s+10\s/, 'kubectl get anp prints the priority');

  await kubectl.ok(['apply', '-f', '-'], `
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: deny-y-first}
spec:
  priority: 5
  subject: {namespaces: {}}
  ingress: [{action: Deny, from: [{pods: {namespaceSelector: {matchLabels: {team: b}}, podSelector: {matchLabels: {app: client}}}}]}]
`);
  t.equal(await until(client.ns, http, false), false, 'a lower priority number is judged first: its Deny wins');
  t.match((await explain('y/client', 'x/server', '80')).stdout, /denied by AdminNetworkPolicy deny-y-first rule ingress\[0\] \(Deny\)/);

  // Validated as upstream's CRDs validate them.
  const refused = async (yaml: string, message: RegExp, what: string) => {
    const r = await kubectl(['apply', '-f', '-'], yaml);
    t.not(r.code, 0, what);
    t.match(r.stderr, message, what);
  };
  await refused('apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: too-high}\nspec: {priority: 1001, subject: {namespaces: {}}}\n',
    /spec.priority: Invalid value: 1001: spec.priority in body should be less than or equal to 1000/, 'priority above 1000');
  await refused('apiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata: {name: second}\nspec: {subject: {namespaces: {}}}\n',
    /Only one baseline admin network policy with metadata.name="default" can be created in the cluster/, 'a baseline not named default');
  const rules = Array.from({ length: 101 }, (_, i) => `{name: r${i}, action: Deny, from: [{namespaces: {}}]}`).join(', ');
  await refused(`apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: many}\nspec: {priority: 1, subject: {namespaces: {}}, ingress: [${rules}]}\n`,
    /spec.ingress: Too many: 101: must have at most 100 items/, '101 ingress rules');
  await refused('apiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata: {name: default}\nspec: {subject: {namespaces: {}}, ingress: [{action: Pass, from: [{namespaces: {}}]}]}\n',
    /spec.ingress\[0\].action: Unsupported value: "Pass"/, 'Pass in the baseline');

  await kubectl.ok(['delete', 'anp', 'allow-y-web', 'deny-y-first']);
  await kubectl.ok(['delete', 'banp', 'default']);
  t.equal(await until(client.ns, http, true), true, 'admin policies deleted: allowed');
});
