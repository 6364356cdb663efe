// AdminNetworkPolicy / BaselineAdminNetworkPolicy without root: for every scenario, every
// (pod, pod, protocol, port) flow is judged three ways and compared with the independent
// oracle (admin-policy-oracle.ts): the agents' explanation (which tier and policy decided),
// and packets walked through the tables the enforcers commit on the fake driver (a full
// build, and incremental syncs through the scenarios in a random order, seed printed).
import t from 'tap';
import { FakeNft, NftTable, type TableState } from '../../src/nft/index.js';
import { computeAdminModel, POLICY_TABLE } from '../../src/network/policy/index.js';
import { PolicyEnforcer } from '../../src/network/policy/enforcer.js';
import { logger } from '../../src/log/index.js';
import type { Node } from '../../src/api/kinds.js';
import { AdminOracle } from './admin-policy-oracle.js';
import { adminScenarios, type AdminScenario } from './admin-policy-scenarios.js';
import { walk } from './nft-walk.js';
import { NODES, PROBES, namespaces, pods, podIP, podName } from './policy-scenarios.js';

const log = logger('t', {}, () => undefined);

async function enforcers() {
  return Object.fromEntries(await Promise.all(NODES.map(async (n) => {
    const table = new NftTable(new FakeNft(), { family: 'ip', name: POLICY_TABLE });
    return [n, { table, enforcer: new PolicyEnforcer(table, log, n, { retire: 'expiry' }) }] as const;
  })));
}

const input = (s: AdminScenario) => ({ pods, namespaces, policies: s.policies, admin: s.admin, baseline: s.baseline, nodes: [] as Node[] });

/** Every flow: the oracle against the tables (packets walked) and, when given, the explanations. */
function check(t: { same(a: unknown, b: unknown, m: string): unknown }, s: AdminScenario, tables: Record<string, TableState>, explain?: Record<string, PolicyEnforcer>): void {
  const oracle = new AdminOracle(namespaces, s.policies, s.admin, s.baseline);
  const wrong: string[] = [];
  let allowed = 0, denied = 0;
  for (const src of pods) for (const dst of pods) {
    if (src === dst) continue;
    for (const { protocol, port } of PROBES) {
      const proto = protocol.toLowerCase() as 'tcp' | 'udp';
      const want = oracle.allowed({ ip: podIP(src), pod: src }, { ip: podIP(dst), pod: dst }, port, protocol);
      const packet = { saddr: podIP(src), daddr: podIP(dst), protocol: proto, dport: port };
      const sn = src.spec!.nodeName!, dn = dst.spec!.nodeName!;
      const got = walk(tables[sn]!, packet, 'forward').verdict === 'accept' && (sn === dn || walk(tables[dn]!, packet, 'forward').verdict === 'accept');
      const flow = `${podName(src)} → ${podName(dst)} ${protocol}/${port}`;
      if (got !== want) wrong.push(`${flow}: table ${got}, oracle ${want}`);
      if (explain) {
        for (const [dir, pod, other, node] of [['egress', src, dst, sn], ['ingress', dst, src, dn]] as const) {
          const v = explain[node]!.explain(podIP(src), podIP(dst), port, proto)![dir]!;
          const by = v.decidedBy ? `${v.decidedBy.kind}/${v.decidedBy.policy}` : v.isolated ? 'NetworkPolicy' : 'default';
          const o = oracle.direction(pod, dir, { ip: podIP(other), pod: other }, port, protocol);
          if (by !== o.by || v.allowed !== o.allowed) wrong.push(`${flow} ${dir}: explain ${v.allowed} by ${by}, oracle ${o.allowed} by ${o.by}`);
        }
      }
      if (want) allowed++; else denied++;
    }
  }
  t.same(wrong, [], `${allowed} allowed, ${denied} denied flows agree`);
}

for (const s of adminScenarios) {
  t.test(`scenario: ${s.name}`, async (t) => {
    const e = await enforcers();
    for (const n of NODES) await e[n]!.enforcer.sync(input(s));
    const tables = Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await e[n]!.table.list()] as const)));
    check(t, s, tables, Object.fromEntries(NODES.map((n) => [n, e[n]!.enforcer])));
  });
}

t.test('explain names the admin rule that decided, and the Pass that handed over', async (t) => {
  const s = adminScenarios.find((x) => x.name === 'ANP Pass delegates to NetworkPolicy')!;
  const e = await enforcers();
  await e.n2!.enforcer.sync(input(s));
  // y/a (10.244.1.3) → x/b (10.244.2.2): Pass (team a), then the NetworkPolicy allows TCP 80.
  t.match(e.n2!.enforcer.explain('10.244.1.3', '10.244.2.2', 80, 'tcp'), { allowed: true, ingress: { passedBy: { kind: 'AdminNetworkPolicy', policy: 'pass-team-a', rule: 'to-np', action: 'Pass' }, allowedBy: ['x/from-y-a-80'] } });
  // z/a (10.244.1.4) → x/b: no Pass (team b), Deny at priority 20.
  t.match(e.n2!.enforcer.explain('10.244.1.4', '10.244.2.2', 80, 'tcp'), { allowed: false, ingress: { decidedBy: { kind: 'AdminNetworkPolicy', policy: 'deny-rest', rule: 'everyone', action: 'Deny' } } });
});

t.test('node peers: the addresses of the nodes a selector picks', async (t) => {
  const node = (name: string, ip: string, role: string): Node => ({ metadata: { name, labels: { role } }, status: { addresses: [{ type: 'InternalIP', address: ip }] } });
  const model = computeAdminModel({
    pods, namespaces, nodeName: 'n1', baseline: [],
    nodes: [node('n1', '192.168.50.1', 'control'), node('n2', '192.168.50.2', 'worker')],
    admin: [{ metadata: { name: 'no-control' }, spec: { priority: 0, subject: { namespaces: {} }, egress: [{ action: 'Deny', to: [{ nodes: { matchLabels: { role: 'control' } } }] }] } }],
  });
  const rules = model.pods.get('10.244.1.2')!.admin.egress!;
  const set = rules[0]!.peers.find((p) => 'set' in p) as { set: string };
  t.same(model.peerSets.get(set.set), ['192.168.50.1']);
});

t.test('incremental syncs through the scenarios in any order judge as the oracle', async (t) => {
  const seed = Number(process.env.SEED ?? Date.now() % 100000);
  t.comment(`seed ${seed}`);
  let rnd = seed;
  const next = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const e = await enforcers();
  const order = [...adminScenarios, ...adminScenarios].sort(() => next() - 0.5);
  for (const s of order) {
    for (const n of NODES) await e[n]!.enforcer.sync(input(s));
    const tables = Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await e[n]!.table.list()] as const)));
    check(t, s, tables);
  }
  // What is gone is collected (once the retired map elements lapsed), and the tables still judge the same.
  const collect = async () => { for (let i = 0; i < 3; i++) { await new Promise((r) => setTimeout(r, 20)); for (const n of NODES) await e[n]!.enforcer.collect(0); } };
  await collect();
  const last = order.at(-1)!;
  const tables = Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await e[n]!.table.list()] as const)));
  check(t, last, tables);
  // Back to no admin policy at all: no admin chain or set is left after collection.
  for (const n of NODES) await e[n]!.enforcer.sync({ pods, namespaces, policies: [], admin: [], baseline: [], nodes: [] });
  await collect();
  const left = (await e.n1!.table.list());
  t.same(left.chains.filter((c) => /^[ab](in|eg)-/.test(c.name)).map((c) => c.name), [], 'no admin chain left');
  t.same(left.sets.filter((x) => x.name.startsWith('anp')).map((x) => x.name), [], 'no admin set left');
});
