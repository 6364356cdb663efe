// NetworkPolicy on real nftables: two nodes as network namespaces joined by a link (pod
// blocks routed directly), six pods made with the CNI's own ops, each node's enforcer
// programming `ip capstan-policy` through the addon in its node. Every scenario probes every
// (source pod, destination pod, protocol, port) and compares with the independent oracle.
import t from 'tap';
import { execa } from 'execa';
import { resolve } from 'node:path';
import { logger } from '../../src/log/index.js';
import { createNetlink } from '../../src/netlink/index.js';
import { nodeNetworkOps, podNetworkOps, randomPodMac } from '../../src/network/index.js';
import { PolicyEnforcer, policyTable, POLICY_TABLE } from '../../src/network/policy/index.js';
import { createNftDriver, NftTable } from '../../src/nft/index.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { inNs, isRoot, newNamespace, type Namespace } from '../native/fixtures/netns.js';
import { Oracle } from './policy-oracle.js';
import { openConnection, probe, startServers, type Flow } from './policy-probe.js';
import { BLOCKS, NODES, PROBES, namespaces, pods, podIP, podName, scenarios } from './policy-scenarios.js';

const nl = createNetlink('addon');
const nft = createNftDriver('addon');
const quiet = logger('t', {}, () => undefined);

t.test('network policy truth tables on real nftables', { skip: !isRoot && 'needs root' }, async (t) => {
  const node: Record<string, Namespace> = {};
  for (const n of NODES) node[n] = await newNamespace(t, `np${n}`);
  const ip = (ns: Namespace, ...args: string[]) => execa('ip', ['-n', ns.name, ...args]);
  // The two nodes share a link; each routes the other's pod block through it.
  await ip(node.n1!, 'link', 'add', 'nodes0', 'type', 'veth', 'peer', 'name', 'nodes0', 'netns', node.n2!.name);
  for (const [i, n] of NODES.entries()) {
    addNodeUplink(node[n]!.name, `192.168.${240 + i}`);
    await ip(node[n]!, 'addr', 'add', `192.168.77.${i + 1}/24`, 'dev', 'nodes0');
    await ip(node[n]!, 'link', 'set', 'nodes0', 'up');
    await ip(node[n]!, 'route', 'add', BLOCKS[NODES[1 - i]!], 'via', `192.168.77.${2 - i}`);
    await nl.apply(node[n]!.path, nodeNetworkOps());
  }
  const podNs = new Map<string, Namespace>();
  for (const [i, p] of pods.entries()) {
    const ns = await newNamespace(t, `np${i}`);
    podNs.set(podName(p), ns);
    const ops = podNetworkOps({ podIP: podIP(p), hostVeth: `capnp${i}`, ifName: 'eth0', netns: ns.path, podMac: randomPodMac(), mtu: 1500 });
    await nl.apply(node[p.spec!.nodeName!]!.path, ops.host);
    await nl.apply(ns.path, ops.pod);
    await startServers(t, ns);
  }
  const enforcers = Object.fromEntries(NODES.map((n) => [n, new PolicyEnforcer(policyTable(nft, node[n]!.path), quiet, n)])) as Record<string, PolicyEnforcer>;
  t.teardown(async () => { for (const n of NODES) await enforcers[n]!.table.remove().catch(() => undefined); });
  const apply = async (policies: (typeof scenarios)[number]['policies']) => {
    for (const n of NODES) await enforcers[n]!.sync({ pods, namespaces, policies });
  };
  const denied = async () => {
    let n = 0;
    for (const e of Object.values(enforcers)) n += (await e.counts()).denied.reduce((s, d) => s + d.packets, 0);
    return n;
  };

  for (const s of scenarios) {
    await t.test(`scenario: ${s.name}`, async (t) => {
      await apply(s.policies);
      const oracle = new Oracle(namespaces, s.policies);
      const deniedBefore = await denied();
      const wrong: string[] = [];
      let allowed = 0, refused = 0;
      await Promise.all(pods.map(async (src) => {
        const targets = pods.filter((d) => d !== src);
        const flows: (Flow & { dst: (typeof pods)[number] })[] = targets.flatMap((dst) => PROBES.map((p) => ({ ip: podIP(dst), ...p, dst })));
        const answered = await probe(podNs.get(podName(src))!, flows.map(({ ip, protocol, port }) => ({ ip, protocol, port })));
        flows.forEach((f, i) => {
          const want = oracle.allowed({ ip: podIP(src), pod: src }, { ip: f.ip, pod: f.dst }, f.port, f.protocol);
          if (want) allowed++; else refused++;
          if (answered[i] !== want) wrong.push(`${podName(src)} → ${podName(f.dst)} ${f.protocol}/${f.port}: ${answered[i] ? 'answered' : 'no answer'}, oracle ${want ? 'allow' : 'deny'}`);
        });
      }));
      t.same(wrong, [], `${allowed} allowed and ${refused} refused flows as the oracle says`);
      // Positive evidence for the refusals: every refused flow was dropped (and counted) by a deny rule.
      if (refused) t.ok((await denied()) - deniedBefore >= refused, 'each refused flow hit a counted drop');
    });
  }

  await t.test('an open connection survives a policy that forbids new ones; new ones are refused', async (t) => {
    await apply([]);
    const xb = pods.find((p) => podName(p) === 'x/b')!, ya = podNs.get('y/a')!;
    const conn = await openConnection(t, ya, podIP(xb), 80);
    t.ok(await conn.say('before'), 'echo before the policy');
    await apply(scenarios.find((s) => s.name === 'default deny ingress in x')!.policies);
    t.ok(await conn.say('after'), 'the established connection still echoes (conntrack)');
    t.same(await probe(ya, [{ ip: podIP(xb), protocol: 'TCP', port: 80 }]), [false], 'a new connection is refused');
    await apply([]);
    t.same(await probe(ya, [{ ip: podIP(xb), protocol: 'TCP', port: 80 }]), [true], 'and allowed again once the policy is gone');
  });

  await t.test('Service traffic is judged after DNAT; the node itself always reaches its pods', async (t) => {
    // A stand-in for the proxy's DNAT in a table of this test's own: 10.96.0.10:80 → x/a:80 (on n1).
    const xa = pods.find((p) => podName(p) === 'x/a')!;
    const dnat = new NftTable(nft, { family: 'ip', name: `capstan-t-dnat` }, node.n1!.path);
    t.teardown(() => dnat.remove().catch(() => undefined));
    await dnat.apply([
      { op: 'addTable' },
      { op: 'addChain', chain: 'pre', base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'accept' } },
      { op: 'addRule', chain: 'pre', exprs: [{ kind: 'match', field: 'ip daddr', value: '10.96.0.10' }, { kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'dnat', addr: podIP(xa), port: 80 }] },
    ]);
    await apply([]);
    const vip: Flow = { ip: '10.96.0.10', protocol: 'TCP', port: 80 };
    t.same(await probe(podNs.get('y/a')!, [vip]), [true], 'through the ClusterIP without policy');
    await apply(scenarios.find((s) => s.name === 'default deny ingress in x')!.policies);
    t.same(await probe(podNs.get('y/a')!, [vip]), [false], 'the ClusterIP does not bypass x/a\'s policy');
    const fromNode = await inNs(node.n1!, process.execPath, ['-e', `require('node:net').connect(80, '${podIP(xa)}').on('connect', () => { console.log('ok'); process.exit(0); }).on('error', () => process.exit(1)); setTimeout(() => process.exit(2), 3000);`]);
    t.equal(fromNode.stdout.trim(), 'ok', 'the node (kubelet probes) still reaches x/a');
  });

  await t.test('egress policy also holds for traffic to the pod\'s own node', async (t) => {
    await startServers(t, node.n1!);
    const toNode: Flow = { ip: '192.168.77.1', protocol: 'TCP', port: 80 };
    await apply([]);
    t.same(await probe(podNs.get('y/a')!, [toNode]), [true], 'y/a reaches its node without policy');
    await apply(scenarios.find((s) => s.name === 'default deny egress in y')!.policies);
    t.same(await probe(podNs.get('y/a')!, [toNode]), [false], 'default deny egress in y: not even its own node');
    t.same(await probe(podNs.get('x/a')!, [toNode]), [true], 'x/a, not isolated, still does');
  });

  await t.test('counters per policy, resync on drift, reset removes the table', async (t) => {
    const s = scenarios.find((x) => x.name === 'union of two policies on one pod')!;
    await apply(s.policies);
    t.same(await probe(podNs.get('y/a')!, [{ ip: '10.244.2.2', protocol: 'TCP', port: 80 }]), [true]);
    const counts = await enforcers.n2!.counts();
    t.ok(counts.allowed.find((c) => c.policy === 'x/from-y-tcp80' && c.direction === 'ingress')!.packets >= 1, 'allowed packets counted for the policy that allowed them');
    t.equal(await enforcers.n2!.resync(), 'unchanged', 'no one else committed: nothing read back');
    // Drift: somebody deletes a rule of ours.
    const state = await enforcers.n2!.table.list();
    const rule = state.rules.find((r) => r.chain.startsWith('in-'))!;
    await enforcers.n2!.table.apply([{ op: 'deleteRule', chain: rule.chain, handle: rule.handle }]);
    t.equal(await enforcers.n2!.resync(), 'full', 'the resync sees the difference and rebuilds');
    t.same(await probe(podNs.get('y/a')!, [{ ip: '10.244.2.2', protocol: 'TCP', port: 80 }]), [true], 'enforced as before');
    t.equal(await enforcers.n2!.resync(), 'unchanged');
    const reset = resolve('dist/src/reset/network.js');
    const r = await inNs(node.n2!, process.execPath, ['--input-type=module', '-e', `import { removeNodeNetwork } from '${reset}'; console.log(JSON.stringify(removeNodeNetwork()));`]);
    t.equal(r.exitCode, 0, r.stderr);
    t.ok((JSON.parse(r.stdout) as string[]).includes(`nft table ip ${POLICY_TABLE}`), 'reset removes the policy table');
    t.not((await inNs(node.n2!, 'nft', ['list', 'table', 'ip', POLICY_TABLE])).exitCode, 0, 'gone');
  });
});
