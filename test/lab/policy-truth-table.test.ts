// NetworkPolicy truth tables through a real multi-node lab: `capstan lab up --nodes 3
// --subnets 2`, six pods in three labelled namespaces made by kubelets and containerd, and
// each scenario applied with kubectl. Every (source pod, destination pod, protocol, port) is
// probed and compared with the independent oracle (policy-oracle.ts) over the pods and
// namespaces read back from the API. Pods: x/a, y/a, z/a on node-1; x/b, y/b on node-2 (the
// other segment: VXLAN); z/b on node-3 (node-1's segment: a direct route). Then updates
// while a connection is open, a ClusterIP judged at its endpoint after DNAT, and NodePorts
// from an "outside" namespace behind the lab's router judged against ipBlock.
//
// Busybox has no UDP echo server: the servers and probes are Node processes entered into
// each pod's network namespace (found through the pod's cgroup); the packets are the pods'.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import type { NetworkPolicy } from '../../src/api/kinds.js';
import type { LabNode } from '../../src/lab/index.js';
import { eventually } from '../helpers/kubectl.js';
import { inNs, newNamespace, type Namespace } from '../native/fixtures/netns.js';
import { Oracle } from '../network/policy-oracle.js';
import { openConnection, probe, type Flow } from '../network/policy-probe.js';
import { scenarios } from '../network/policy-scenarios.js';
import { NAMESPACES, podKey, probeMatrix, startPolicyLab } from './policy-lab.js';

const root = process.getuid?.() === 0;

// The outside client's two addresses: one in the allowed block, one not.
const OUTSIDE = { allowed: '10.77.250.2', other: '10.77.251.2', allowedBlock: '10.77.250.0/24' };

const asManifest = (np: NetworkPolicy) => JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: np.metadata, spec: np.spec });

/** Packets each pod chain of the nodes' policy tables dropped (`deny` counters), by node and chain. */
function dropped(nodes: LabNode[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const node of nodes) {
    const text = execFileSync('nsenter', [`--net=/run/netns/${node.netns}`, 'nft', 'list', 'table', 'ip', 'capstan-policy'], { encoding: 'utf8' });
    let chain = '';
    for (const line of text.split('\n')) {
      const c = /^\s*chain (\S+) \{/.exec(line);
      if (c) chain = c[1]!;
      const d = /counter packets (\d+) bytes \d+ drop comment "deny"/.exec(line);
      if (d) out.set(`${node.name}/${chain}`, Number(d[1]));
    }
  }
  return out;
}

/**
 * Drops between two readings. A policy change moves a pod to a new chain (its counters
 * start at 0) and the old one is deleted a while later: chains gone are left out, new
 * ones count from 0.
 */
function dropsBetween(before: Map<string, number>, after: Map<string, number>): number {
  let n = 0;
  for (const [chain, packets] of after) n += packets - (before.get(chain) ?? 0);
  return n;
}

/** From the outside namespace with source address `from`: does a TCP connection to ip:port get an echo within 1.5 s? */
async function outsideConnect(ns: Namespace, from: string, ip: string, port: number): Promise<boolean> {
  const r = await inNs(ns, process.execPath, ['-e', `const c = require('node:net').connect({ host: '${ip}', port: ${port}, localAddress: '${from}' });
    c.on('connect', () => c.write('ping')).on('data', () => process.exit(0)).on('error', () => process.exit(1)); setTimeout(() => process.exit(2), 1500);`]);
  return r.exitCode === 0;
}

t.test('NetworkPolicy truth tables in a 3-node lab on 2 subnets', { skip: root ? false : 'needs root', timeout: 600_000 }, async (t) => {
  const { k, topo, pods, namespaces, netns } = await startPolicyLab(t, 'capstan-lab-np-');
  const key = podKey;
  const [n1, , n3] = topo.nodes as [LabNode, LabNode, LabNode];
  const byKey = new Map(pods.map((p) => [key(p), p]));
  const ipOf = (k: string) => byKey.get(k)!.status!.podIP!;

  const setPolicies = async (policies: NetworkPolicy[]) => {
    await Promise.all(NAMESPACES.map((n) => k.ok(['delete', 'networkpolicy', '--all', '-n', n.name])));
    if (policies.length) await k.ok(['apply', '-f', '-'], policies.map(asManifest).join('\n'));
  };

  // The ipBlock scenario in lab addresses: node-1's pod block except y/a (the scenario's shape).
  const n1Block = (await k.ok(['get', 'node', 'node-1', '-o', 'jsonpath={.spec.podCIDR}'])).trim();
  const labScenarios = scenarios.map((s) => s.name !== 'ipBlock with except' ? s : {
    ...s, policies: s.policies.map((np) => ({ ...np, spec: { ...np.spec!, ingress: [{ from: [{ ipBlock: { cidr: n1Block, except: [`${ipOf('y/a')}/32`] } }] }] } })),
  });

  const matrix = (oracle: Oracle) => probeMatrix(pods, netns, oracle);

  for (const s of labScenarios) {
    await t.test(`scenario: ${s.name}`, async (t) => {
      await setPolicies(s.policies);
      const oracle = new Oracle(namespaces, s.policies);
      // The agents apply what kubectl wrote within moments; until then the old scenario's table holds.
      const round = async () => {
        const before = dropped(topo.nodes);
        const m = await matrix(oracle);
        return { ...m, drops: dropsBetween(before, dropped(topo.nodes)) };
      };
      let last = await round();
      const deadline = Date.now() + 30_000;
      while (last.wrong.length && Date.now() < deadline) last = await round();
      // A round during which the agents switched chains may lose counts with the old chain: once more, settled.
      if (!last.wrong.length && last.drops < last.refused) last = await round();
      t.same(last.wrong, [], `${last.allowed} allowed and ${last.refused} refused flows as the oracle says (same node, same segment, across VXLAN)`);
      if (last.refused) t.ok(last.drops >= last.refused, `every refused flow met a counted drop in a pod chain (${last.drops} drops)`);
    });
  }

  await t.test('policy updates while a connection is open (y/a@node-1 → x/b@node-2, across VXLAN)', async (t) => {
    await setPolicies([]);
    const ya = netns.get('y/a')!, za = netns.get('z/a')!;
    const xb: Flow = { ip: ipOf('x/b'), protocol: 'TCP', port: 80 };
    await eventually(async () => (await probe(ya, [xb]))[0]!, 30_000, 'no policy: y/a reaches x/b');
    const conn = await openConnection(t, ya, xb.ip, 80);
    t.ok(await conn.say('before'), 'echo before any policy');
    const np = (name: string, spec: Record<string, unknown>): NetworkPolicy => ({ metadata: { namespace: 'x', name }, spec: spec as unknown as NetworkPolicy['spec'] });
    await setPolicies([np('from-y', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }] }] })]);
    await eventually(async () => !(await probe(za, [xb]))[0], 30_000, 'the allowing update isolates x/b from z/a');
    t.ok(await conn.say('allowed'), 'the open connection survives an update that still allows it');
    t.same(await probe(ya, [xb]), [true], 'new connections from y/a still allowed');
    await setPolicies([np('deny', { podSelector: {}, policyTypes: ['Ingress'] })]);
    await eventually(async () => !(await probe(ya, [xb]))[0], 30_000, 'new connections from y/a refused after the forbidding update');
    t.same(await probe(ya, [xb]), [false], 'y/a: new attempts refused');
    t.ok(await conn.say('established'), 'the established connection lives on (conntrack, as Calico)');
  });

  await t.test('ClusterIP traffic is judged at the endpoint after DNAT', async (t) => {
    await setPolicies([]);
    await k.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'x', name: 'xb' },
      spec: { selector: { app: 'b' }, ports: [{ port: 8080, targetPort: 80, protocol: 'TCP' }] } }));
    const vip = (await k.ok(['get', 'svc', '-n', 'x', 'xb', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    const flow: Flow = { ip: vip, protocol: 'TCP', port: 8080 };
    const clients = ['y/a', 'z/a', 'y/b'];
    await eventually(async () => (await Promise.all(clients.map((c) => probe(netns.get(c)!, [flow])))).every((r) => r[0]), 30_000, 'every client reaches the ClusterIP');
    const policy = scenarios.find((s) => s.name === 'pod AND namespace')!.policies;
    await setPolicies(policy);
    const oracle = new Oracle(namespaces, policy);
    const want = clients.map((c) => oracle.allowed({ ip: ipOf(c), pod: byKey.get(c) }, { ip: ipOf('x/b'), pod: byKey.get('x/b') }, 80, 'TCP'));
    t.same(want, [true, false, false], 'the oracle: only y/a (pod a AND namespace y) reaches x/b:80');
    let got: boolean[] = [];
    await eventually(async () => {
      got = (await Promise.all(clients.map((c) => probe(netns.get(c)!, [flow])))).map((r) => r[0]!);
      return JSON.stringify(got) === JSON.stringify(want);
    }, 30_000, 'the ClusterIP verdicts match the endpoint\'s policy').catch(() => undefined);
    t.same(got, want, `through ${vip}:8080 (DNAT on node-1/node-2, endpoint x/b on node-2): y/a allowed, z/a and y/b refused`);
  });

  await t.test('NodePort from outside judged against ipBlock; the client address as the endpoint\'s node sees it', async (t) => {
    // An "outside" client behind the lab's router, two addresses; nothing routes off the machine.
    const outside = await newNamespace(t, 'np-out');
    const r = `/run/netns/${topo.routerNetns}`;
    const link = `vout${outside.name.slice(-4)}`;
    execFileSync('ip', ['-n', topo.routerNetns, 'link', 'add', link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', outside.name]);
    for (const [addr, gw] of [[OUTSIDE.allowed, '10.77.250.1'], [OUTSIDE.other, '10.77.251.1']] as const) {
      execFileSync('nsenter', [`--net=${r}`, 'ip', 'addr', 'add', `${gw}/24`, 'dev', link]);
      execFileSync('ip', ['-n', outside.name, 'addr', 'add', `${addr}/24`, 'dev', 'eth0']);
    }
    execFileSync('nsenter', [`--net=${r}`, 'ip', 'link', 'set', link, 'up']);
    execFileSync('ip', ['-n', outside.name, 'link', 'set', 'eth0', 'up']);
    execFileSync('ip', ['-n', outside.name, 'route', 'add', 'default', 'via', '10.77.250.1']);

    await setPolicies([]);
    const svc = (name: string, etp: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'z', name },
      spec: { type: 'NodePort', externalTrafficPolicy: etp, selector: { app: 'b' }, ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] } });
    await k.ok(['apply', '-f', '-'], [svc('local', 'Local'), svc('cluster', 'Cluster')].map((s) => JSON.stringify(s)).join('\n'));
    const nodePort = async (name: string) => Number((await k.ok(['get', 'svc', '-n', 'z', name, '-o', 'jsonpath={.spec.ports[0].nodePort}'])).trim());
    const local = await nodePort('local'), cluster = await nodePort('cluster');
    // z/b lives on node-3; node-1 forwards to it (same segment) with the source masqueraded.
    const cases = [
      { what: `node-3:${local} (Local)`, ip: n3.ip, port: local },
      { what: `node-3:${cluster} (Cluster, endpoint on this node)`, ip: n3.ip, port: cluster },
      { what: `node-1:${cluster} (Cluster, endpoint on node-3: SNAT to ${n1.ip})`, ip: n1.ip, port: cluster },
    ];
    const probeAll = () => Promise.all(cases.flatMap((c) => [OUTSIDE.allowed, OUTSIDE.other].map((from) => outsideConnect(outside, from, c.ip, c.port))));
    await eventually(async () => (await probeAll()).every(Boolean), 30_000, 'without policy every NodePort answers from both addresses');
    t.pass('without policy: every NodePort answers both outside addresses');

    const onlyBlock = (name: string, blocks: string[]): NetworkPolicy => ({ metadata: { namespace: 'z', name },
      spec: { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: blocks.map((cidr) => ({ ipBlock: { cidr } })) }] } as NetworkPolicy['spec'] });
    // Per case (node-3 Local, node-3 Cluster, node-1 Cluster) × (allowed, other) address.
    const expected = [[true, false, true, false, false, false], [true, false, true, false, true, true]];
    for (const [b, blocks] of [[OUTSIDE.allowedBlock], [OUTSIDE.allowedBlock, `${n1.ip}/32`]].entries()) {
      const policies = [onlyBlock('outside', blocks)];
      await setPolicies(policies);
      const oracle = new Oracle(namespaces, policies);
      const zb = { ip: ipOf('z/b'), pod: byKey.get('z/b') };
      // The client as the endpoint's node sees it: the outside address where the NodePort is
      // on the endpoint's node (judged in forward, before the masquerade in postrouting),
      // the forwarding node's address otherwise — as Calico without pre-DNAT host policy.
      const seenAs = (c: (typeof cases)[number], from: string) => (c.ip === n1.ip ? n1.ip : from);
      const want = cases.flatMap((c) => [OUTSIDE.allowed, OUTSIDE.other].map((from) => oracle.allowed({ ip: seenAs(c, from) }, zb, 80, 'TCP')));
      t.same(want, expected[b], 'the oracle, given the address each node sees');
      let got: boolean[] = [];
      await eventually(async () => JSON.stringify(got = await probeAll()) === JSON.stringify(want), 30_000, 'NodePort verdicts').catch(() => undefined);
      const label = cases.flatMap((c) => [OUTSIDE.allowed, OUTSIDE.other].map((from) => `${from} → ${c.what}`));
      const verdicts = (v: boolean[]) => v.map((x, i) => `${label[i]}: ${x ? 'answered' : 'dropped'}`);
      t.same(verdicts(got), verdicts(want), `ipBlock ${blocks.join(', ')}: the outside client judged by its own address on z/b's node, as ${n1.ip} through node-1`);
    }
  });
});
