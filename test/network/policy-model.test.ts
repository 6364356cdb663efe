// The policy model and its nftables form without root: every scenario's flows, judged from
// the two nodes' models (egress where the source lives, ingress where the destination
// lives), against the independent oracle; and incremental transactions applied on the fake
// driver in several orders always give the table a full build gives.
import t from 'tap';
import { FakeNft, NftTable, type TableState } from '../../src/nft/index.js';
import {
  canonicalTable, changeOps, collectOps, computeModel, desiredPolicy, explainFlow, IncrementalModel, policyOps, subtractBlocks, updateDesired, POLICY_TABLE,
  type PolicyModel,
} from '../../src/network/policy/index.js';
import { collectable, forgetGarbage, LIVE_MS } from '../../src/network/policy/ruleset.js';
import { PolicyEnforcer } from '../../src/network/policy/enforcer.js';
import { logger } from '../../src/log/index.js';
import { FakeClock, formatCidr, parseCidr } from '../../src/util/index.js';
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
      const order = [...scenarios].sort(() => next() - 0.5);
      for (const s of order) {
        // Pods come and go too: a random subset each step.
        const podList = pods.filter(() => next() > 0.2);
        const desired = desiredPolicy(computeModel({ pods: podList, namespaces, policies: s.policies, nodeName: node }));
        await table.apply(policyOps(prev, desired));
        prev = desired;
        t.equal(canonicalTable(await table.list()), await fullState(s.policies, node, podList), `${node} round ${round}: after ${s.name}`);
      }
      t.same(policyOps(prev, prev!), [], 'no change, no ops');
    }
  }
});

t.test('a pod joining a selector is elements, not a rule', async (t) => {
  const s = scenarios.find((x) => x.name === 'pod OR namespace')!;
  const before = desiredPolicy(computeModel({ pods: pods.filter((p) => podName(p) !== 'y/b'), namespaces, policies: s.policies, nodeName: 'n2' }));
  const after = desiredPolicy(computeModel({ pods, namespaces, policies: s.policies, nodeName: 'n2' }));
  const ops = policyOps(before, after);
  t.ok(ops.length > 0 && ops.every((o) => o.op === 'addElements'), `only element adds: ${ops.map((o) => o.op).join(', ')}`);
  t.ok(ops.every((o) => o.op === 'addElements' && o.elements.every((e) => e.key[0] === '10.244.2.3')), 'all of them y/b\'s address');
});

t.test('the incremental model follows label changes of pods and namespaces', async (t) => {
  const im = new IncrementalModel('n2');
  const s = scenarios.find((x) => x.name === 'allow from namespaces of team a')!;
  const run = (ns: typeof namespaces, podList: typeof pods) => {
    im.update({ pods: podList, namespaces: ns, policies: s.policies });
    const model = structuredClone(im.current());
    t.same(sortedModel(model), sortedModel(computeModel({ pods: podList, namespaces: ns, policies: s.policies, nodeName: 'n2' })));
    return model;
  };
  const before = run(namespaces, pods);
  const relabelled = namespaces.map((n) => (n.metadata.name === 'y' ? { metadata: { name: 'y', labels: { team: 'b' } } } : n));
  const after = run(relabelled, pods);
  t.not(JSON.stringify([...after.peerSets]), JSON.stringify([...before.peerSets]), 'namespace y left the peer set');
  const moved = pods.map((p) => (podName(p) === 'x/b' ? { ...p, metadata: { ...p.metadata, labels: { app: 'c' } } } : p));
  t.same(run(relabelled, moved).pods.find((p) => p.key === 'x/b')?.ingress, undefined, 'x/b relabelled out of the policy: not isolated');
});

/** The table with generations folded: generation-1 chains and elements under generation-0 names, garbage chains and sets dropped. */
function folded(state: TableState): string {
  const gen0 = (name: string) => name.replace(/^(in|eg)1-/, '$1-').replace(/-pods-1$/, '-pods');
  const live = new Set(state.sets.flatMap((s) => s.elements.map((e) => (e.verdict && 'chain' in e.verdict ? e.verdict.chain : undefined)).filter(Boolean)));
  const podChain = (name: string) => /^(in|eg)1?-/.test(name);
  const keep = (name: string) => !podChain(name) || live.has(name);
  const looked = new Set(state.rules.filter((r) => keep(r.chain)).flatMap((r) => r.exprs.map((e) => (e.kind === 'lookup' ? e.set : undefined))));
  const sets = state.sets.filter((s) => /-pods(-1)?$/.test(s.name) || looked.has(s.name)).map((s) => ({
    ...s,
    elements: /-pods(-1)?$/.test(s.name)
      ? (s.name.endsWith('-1') ? [] : [...s.elements, ...state.sets.find((x) => x.name === `${s.name}-1`)!.elements])
        .map((e) => ({ ...e, verdict: e.verdict && 'chain' in e.verdict ? { ...e.verdict, chain: gen0(e.verdict.chain!) } : e.verdict }))
      : s.elements,
  }));
  return canonicalTable({
    ...state, sets,
    chains: state.chains.filter((c) => keep(c.name)).map((c) => ({ ...c, name: gen0(c.name) })),
    rules: state.rules.filter((r) => keep(r.chain)).map((r) => ({ ...r, chain: gen0(r.chain) })),
  } as TableState);
}

/** A model with its lists in a fixed order (the incremental one keeps insertion order of its own). */
const sortedModel = (m: PolicyModel) => ({
  pods: m.pods,
  peerSets: [...m.peerSets].sort(([a], [b]) => a.localeCompare(b)),
  tupleSets: [...m.tupleSets].map(([k, v]) => [k, v.map((x) => x.join()).sort()] as const).sort(([a], [b]) => a.localeCompare(b)),
});

t.test('the incremental model and generation switches reach what a full build enforces, in any order of changes', async (t) => {
  const seed = Number(process.env.SEED ?? Date.now() % 100000);
  t.comment(`seed ${seed}`);
  let rnd = seed;
  const next = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const node of NODES) {
    for (const retire of ['expiry', 'delete'] as const) {
      const clock = new FakeClock();
      const table = new NftTable(new FakeNft(clock), { family: 'ip', name: POLICY_TABLE });
      const im = new IncrementalModel(node);
      // Objects are reused between steps unless changed, as a lister hands them out.
      const copies = new Map(pods.map((p) => [podName(p), p]));
      im.update({ pods: [], namespaces, policies: [] });
      const desired = desiredPolicy(im.current());
      await table.apply(policyOps(undefined, desired));
      let switched = 0, collected = 0;
      for (let step = 0; step < 30; step++) {
        const s = scenarios[Math.floor(next() * scenarios.length)]!;
        if (next() < 0.3) { const k = podName(pods[Math.floor(next() * pods.length)]!); copies.set(k, structuredClone(copies.get(k)!)); }
        const podList = pods.filter(() => next() > 0.2).map((p) => copies.get(podName(p))!);
        const changes = im.update({ pods: podList, namespaces, policies: s.policies });
        const model = im.current();
        t.same(sortedModel(model), sortedModel(computeModel({ pods: podList, namespaces, policies: s.policies, nodeName: node })), `step ${step}: the incremental model equals one computed afresh`);
        const { before, keys } = updateDesired(desired, model, changes, clock.now());
        const ops = changeOps(before, desired, keys, retire);
        if (ops.length) await table.apply(ops);
        switched += ops.filter((o) => o.op === 'addElements' && o.expiresMs === 1).length;
        if (retire === 'expiry') t.notOk(ops.some((o) => o.op === 'deleteElements' && /-pods/.test(o.set)), `step ${step}: map elements retired, never deleted`);
        clock.step(5); // retired elements lapse
        const full = folded(await fullTable(desiredPolicy(computeModel({ pods: podList, namespaces, policies: s.policies, nodeName: node }))));
        t.equal(folded(await table.list()), full, `${node} ${retire} step ${step}: after ${s.name}`);
        if (next() < 0.5) {
          clock.step(3000);
          const gone = collectable(desired, clock.now(), 2500);
          if (gone.chains.length || gone.sets.length) { await table.apply(collectOps(gone)); forgetGarbage(desired, gone); collected += gone.chains.length; }
          t.equal(folded(await table.list()), full, 'the same after the collection');
        }
        t.equal(canonicalTable(await table.list()), canonicalTable(await fullTable(desired)), 'the kernel holds exactly the desired state (what a resync compares)');
      }
      t.ok(collected > 0, `${node} ${retire}: garbage chains collected (${collected})`);
      if (retire === 'expiry') t.ok(switched > 0, `${node}: elements retired by expiry (${switched})`);
    }
  }
});

async function fullTable(desired: ReturnType<typeof desiredPolicy>) {
  const table = new NftTable(new FakeNft(), { family: 'ip', name: POLICY_TABLE });
  await table.apply(policyOps(undefined, desired));
  return table.list();
}

t.test('a one-policy edit in a large cluster is elements of the pods it selects: no rule, no chain, no delete', async (t) => {
  const world = (port: number) => Array.from({ length: 500 }, (_, i) => ({
    metadata: { namespace: 'x', name: `p${i}` },
    spec: { podSelector: { matchLabels: { app: i === 0 ? 'b' : `none${i}` } }, ingress: [{ ports: [{ port: i === 0 ? port : 9000 }] }] },
  })) as unknown as (typeof scenarios)[number]['policies'];
  const policies = world(80);
  const im = new IncrementalModel('n2');
  im.update({ pods, namespaces, policies });
  const desired = desiredPolicy(im.current());
  const edited = [world(81)[0]!, ...policies.slice(1)];
  const changes = im.update({ pods, namespaces, policies: edited });
  t.same([...changes.pods], ['10.244.2.2'], 'only x/b (app=b on n2) changed');
  const { before, keys } = updateDesired(desired, im.current(), changes, 0);
  const ops = changeOps(before, desired, keys, 'expiry');
  t.same(ops, [
    { op: 'addElements', set: 'in-10.244.2.2-xpp', keyType: ['inet_proto', 'inet_service'], elements: [{ key: ['tcp', 81], timeoutMs: LIVE_MS, expiresMs: LIVE_MS }] },
    { op: 'addElements', set: 'in-10.244.2.2-xpp', keyType: ['inet_proto', 'inet_service'], elements: [{ key: ['tcp', 80] }], timeoutMs: LIVE_MS, expiresMs: 1 },
  ], 'the new port added to x/b\'s set, the old one retired');
  t.same(changeOps(...(() => { const c = im.update({ pods, namespaces, policies: edited }); const u = updateDesired(desired, im.current(), c, 0); return [u.before, desired, u.keys] as const; })(), 'expiry'), [], 'the same lists again: nothing to do');
  const ranged = [{ ...policies[0]!, spec: { ...policies[0]!.spec, ingress: [{ ports: [{ port: 80, endPort: 90 }] }] } }, ...policies.slice(1)] as typeof policies;
  const u = updateDesired(desired, im.current(), im.update({ pods, namespaces, policies: ranged }), 0);
  t.same(changeOps(u.before, desired, u.keys, 'expiry').map((o) => o.op), ['addElements', 'addChain', ...Array(7).fill('addRule'), 'addElements', 'addElements'],
    'a port range no set holds: the pod\'s chain in its other generation (five set lookups, the range, the drop), its element, the old one retired');
});

t.test('a restarted agent adopts a table whose generations moved, garbage and all', async (t) => {
  const nft = new FakeNft();
  const table = () => new NftTable(nft, { family: 'ip', name: POLICY_TABLE });
  const quiet = logger('t', {}, () => undefined);
  const policies = (name: string) => scenarios.find((x) => x.name === name)!.policies;
  const a = new PolicyEnforcer(table(), quiet, 'n2');
  t.equal((await a.sync({ pods, namespaces, policies: policies('default deny ingress in x') })).mode, 'full');
  // An ipBlock is a rule of the pod chain, not an element: x/b's chain moves to generation 1.
  const block = [{ metadata: { namespace: 'x', name: 'block' }, spec: { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.244.1.0/24' } }] }] } }] as unknown as ReturnType<typeof policies>;
  t.equal((await a.sync({ pods, namespaces, policies: block })).mode, 'partial');
  const moved = await table().list();
  t.ok(moved.chains.some((c) => c.name === 'in1-10.244.2.2') && moved.chains.some((c) => c.name === 'in-10.244.2.2'), 'x/b in generation 1, its old chain waiting to be collected');
  await new Promise((r) => setTimeout(r, 20)); // the retired element lapses (1 ms) before the restart
  const b = new PolicyEnforcer(table(), quiet, 'n2');
  const before = nft.transactions;
  t.equal((await b.sync({ pods, namespaces, policies: block })).mode, 'unchanged', 'the new enforcer adopts it');
  t.equal(nft.transactions, before + 3, 'nothing written but its expiry probe (three transactions in a scratch table)');
  t.ok(await b.collect(0) > 0, 'the adopted garbage is collected');
  t.notOk((await table().list()).chains.some((c) => c.name === 'in-10.244.2.2'), 'the old chain is gone');
  t.equal(await b.resync(), 'unchanged');
});
