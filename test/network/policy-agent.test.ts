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
});
