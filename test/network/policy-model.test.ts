// The policy model and its nftables form without root: every scenario's flows, judged from
// the two nodes' models (egress where the source lives, ingress where the destination
// lives), against the independent oracle; and incremental transactions applied on the fake
// driver in several orders always give the table a full build gives.
import t from 'tap';
import { FakeNft, NftTable } from '../../src/nft/index.js';
import { canonicalTable, computeModel, desiredPolicy, explainFlow, newModelCache, policyOps, subtractBlocks, POLICY_TABLE } from '../../src/network/policy/index.js';
import { formatCidr, parseCidr } from '../../src/util/index.js';
import { Oracle } from './policy-oracle.js';
import { NODES, PROBES, namespaces, pods, podIP, podName, scenarios } from './policy-scenarios.js';

t.test('except blocks are cut out of an ipBlock exactly', async (t) => {
  const cut = (cidr: string, except: string[]) => subtractBlocks(parseCidr(cidr)!, except.map((x) => parseCidr(x)!)).map(formatCidr);
  t.same(cut('10.0.0.0/16', []), ['10.0.0.0/16']);
  t.same(cut('10.0.0.0/30', ['10.0.0.1/32']), ['10.0.0.0/32', '10.0.0.2/31']);
  t.same(cut('10.0.0.0/16', ['10.0.0.0/16']), []);
  t.same(cut('10.0.0.0/24', ['10.0.0.0/25', '10.0.0.128/26']), ['10.0.0.192/26']);
  t.same(cut('10.0.0.0/24', ['10.1.0.0/24']), ['10.0.0.0/24'], 'an except outside the block changes nothing');
});

for (const s of scenarios) {
  t.test(`scenario: ${s.name}`, async (t) => {
    const oracle = new Oracle(namespaces, s.policies);
    const models = Object.fromEntries(NODES.map((n) => [n, computeModel({ pods, namespaces, policies: s.policies, nodeName: n })]));
    const wrong: string[] = [];
    let allowed = 0, denied = 0;
    for (const src of pods) {
      for (const dst of pods) {
        if (src === dst) continue;
        for (const { protocol, port } of PROBES) {
          const proto = protocol.toLowerCase() as 'tcp' | 'udp';
          const out = explainFlow(models[src.spec!.nodeName!]!, podIP(src), podIP(dst), port, proto);
          const inn = explainFlow(models[dst.spec!.nodeName!]!, podIP(src), podIP(dst), port, proto);
          const got = (out.egress?.allowed ?? true) && (inn.ingress?.allowed ?? true);
          const want = oracle.allowed({ ip: podIP(src), pod: src }, { ip: podIP(dst), pod: dst }, port, protocol);
          if (got !== want) wrong.push(`${podName(src)} → ${podName(dst)} ${protocol}/${port}: model ${got}, oracle ${want}`);
          if (want) allowed++; else denied++;
        }
      }
    }
    t.same(wrong, [], `${allowed} allowed, ${denied} denied flows agree`);
  });
}

t.test('explain names the policies that allow, and those that refuse together', async (t) => {
  const s = scenarios.find((x) => x.name === 'union of two policies on one pod')!;
  const model = computeModel({ pods, namespaces, policies: s.policies, nodeName: 'n2' });
  const ok = explainFlow(model, '10.244.1.3', '10.244.2.2', 80, 'tcp');
  t.match(ok, { allowed: true, ingress: { pod: 'x/b', isolated: true, allowedBy: ['x/from-y-tcp80'] } });
  const no = explainFlow(model, '10.244.1.4', '10.244.2.2', 80, 'tcp');
  t.match(no, { allowed: false, ingress: { isolated: true, allowedBy: [], policies: ['x/from-y-tcp80', 'x/from-z-udp81'] } });
  t.match(explainFlow(model, '10.244.1.2', '10.244.1.4', 80, 'tcp'), { enforcedHere: false });
});

async function fullState(policies: (typeof scenarios)[number]['policies'], node: string, podList = pods) {
  const table = new NftTable(new FakeNft(), { family: 'ip', name: POLICY_TABLE });
  await table.apply(policyOps(undefined, desiredPolicy(computeModel({ pods: podList, namespaces, policies, nodeName: node }))));
  return canonicalTable(await table.list());
}

t.test('incremental transactions reach the full build\'s table, in any order of changes', async (t) => {
  const seed = Number(process.env.SEED ?? Date.now() % 100000);
  t.comment(`seed ${seed}`);
  let rnd = seed;
  const next = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const node of NODES) {
    for (let round = 0; round < 4; round++) {
      const table = new NftTable(new FakeNft(), { family: 'ip', name: POLICY_TABLE });
      let prev: ReturnType<typeof desiredPolicy> | undefined;
      const cache = newModelCache();
      const order = [...scenarios].sort(() => next() - 0.5);
      for (const s of order) {
        // Pods come and go too: a random subset each step.
        const podList = pods.filter(() => next() > 0.2);
        const cached = computeModel({ pods: podList, namespaces, policies: s.policies, nodeName: node }, cache);
        t.same(cached, computeModel({ pods: podList, namespaces, policies: s.policies, nodeName: node }), 'a model from the per-policy cache equals one computed afresh');
        const desired = desiredPolicy(cached);
        await table.apply(policyOps(prev, desired));
        prev = desired;
        t.equal(canonicalTable(await table.list()), await fullState(s.policies, node, podList), `${node} round ${round}: after ${s.name}`);
      }
      t.same(policyOps(prev, prev!), [], 'no change, no ops');
    }
  }
});

t.test('a pod joining a selector is one element, not a rule', async (t) => {
  const s = scenarios.find((x) => x.name === 'pod OR namespace')!;
  const before = desiredPolicy(computeModel({ pods: pods.filter((p) => podName(p) !== 'y/b'), namespaces, policies: s.policies, nodeName: 'n2' }));
  const after = desiredPolicy(computeModel({ pods, namespaces, policies: s.policies, nodeName: 'n2' }));
  t.same(policyOps(before, after), [{ op: 'addElements', set: [...after.sets.keys()][0], keyType: ['ipv4_addr'], elements: [{ key: ['10.244.2.3'] }] }]);
});

t.test('the per-policy cache follows label changes of pods and namespaces', async (t) => {
  const cache = newModelCache();
  const s = scenarios.find((x) => x.name === 'allow from namespaces of team a')!;
  const run = (ns: typeof namespaces, podList: typeof pods) => {
    const cached = computeModel({ pods: podList, namespaces: ns, policies: s.policies, nodeName: 'n2' }, cache);
    t.same(cached, computeModel({ pods: podList, namespaces: ns, policies: s.policies, nodeName: 'n2' }));
    return cached;
  };
  const before = run(namespaces, pods);
  const relabelled = namespaces.map((n) => (n.metadata.name === 'y' ? { metadata: { name: 'y', labels: { team: 'b' } } } : n));
  const after = run(relabelled, pods);
  t.not(JSON.stringify([...after.peerSets]), JSON.stringify([...before.peerSets]), 'namespace y left the peer set');
  const moved = pods.map((p) => (podName(p) === 'x/b' ? { ...p, metadata: { ...p.metadata, labels: { app: 'c' } } } : p));
  t.same(run(relabelled, moved).pods.find((p) => p.key === 'x/b')?.ingress, undefined, 'x/b relabelled out of the policy: not isolated');
});
