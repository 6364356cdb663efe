// The proxy's pure parts: Services + slices → plans → nftables table / iptables chains, and
// the diff between tables. No root: the fake nft driver stands in for the kernel.
import t from 'tap';
import { buildPlans, type ProxyConfig } from '../../src/proxy/model.js';
import { desiredTable, genSet } from '../../src/proxy/nft/ruleset.js';
import { diffTables, diffTablesWith, fromTableState } from '../../src/proxy/nft/diff.js';
import { NftBackend } from '../../src/proxy/nft/backend.js';
import { iptablesRuleset, restoreInput } from '../../src/proxy/iptables/rules.js';
import { FakeNft, NftTable } from '../../src/nft/index.js';
import { mulberry32, testSeeds } from '../util/seeded.js';
import type { ServicePort, ServiceSpec } from 'kubernetes-types/core/v1.js';

const cfg: ProxyConfig = { nodeName: 'node-a', clusterCIDR: '10.244.0.0/16' };

export function svc(name: string, ip: string, extra: ServiceSpec = {}, ports: ServicePort[] = [{ name: 'http', port: 80, targetPort: 'web', protocol: 'TCP' }]) {
  return { metadata: { namespace: 'default', name }, spec: { clusterIP: ip, clusterIPs: [ip], ports, ...extra } };
}

type Ep = { ip: string; ready?: boolean; serving?: boolean; terminating?: boolean; node?: string };
export function slice(svcName: string, eps: Ep[], ports = [{ name: 'http', port: 8080, protocol: 'TCP' }], name = `${svcName}-abc`) {
  return {
    metadata: { namespace: 'default', name, labels: { 'kubernetes.io/service-name': svcName } },
    addressType: 'IPv4', ports,
    endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false }, nodeName: e.node ?? 'node-a' })),
  };
}

t.test('plans: ready endpoints, terminating only when none ready, named ports from the slice', async (t) => {
  const plans = buildPlans(
    [svc('web', '10.96.0.10'), svc('old', '10.96.0.11'), svc('none', '10.96.0.12'), svc('headless', 'None'), { metadata: { namespace: 'default', name: 'ext' }, spec: { type: 'ExternalName', externalName: 'x' } }],
    [
      slice('web', [{ ip: '10.244.1.2' }, { ip: '10.244.1.3', ready: false }, { ip: '10.244.1.4', ready: false, serving: true, terminating: true }]),
      slice('old', [{ ip: '10.244.2.2', ready: false, serving: true, terminating: true }, { ip: '10.244.2.3', ready: false, serving: false, terminating: true }]),
    ],
    cfg,
  );
  t.same(plans.map((p) => p.id), ['default/none:http/tcp', 'default/old:http/tcp', 'default/web:http/tcp']);
  const web = plans.find((p) => p.id.startsWith('default/web'))!;
  t.same(web.clusterEndpoints, [{ ip: '10.244.1.2', port: 8080 }], 'only the ready endpoint, at the slice port');
  t.same(plans.find((p) => p.id.startsWith('default/old'))!.clusterEndpoints, [{ ip: '10.244.2.2', port: 8080 }], 'serving+terminating when none is ready');
  const none = plans.find((p) => p.id.startsWith('default/none'))!;
  t.equal(none.hasEndpoints, false);
});

t.test('plans: traffic policies Local keep only this node\'s endpoints', async (t) => {
  const plans = buildPlans(
    [svc('web', '10.96.0.10', { type: 'NodePort', externalTrafficPolicy: 'Local', internalTrafficPolicy: 'Local' }, [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }])],
    [slice('web', [{ ip: '10.244.1.2' }, { ip: '10.244.9.2', node: 'node-b' }])],
    cfg,
  );
  t.same(plans[0]!.clusterEndpoints, [{ ip: '10.244.1.2', port: 8080 }]);
  t.same(plans[0]!.nodePortEndpoints, [{ ip: '10.244.1.2', port: 8080 }]);
  t.equal(plans[0]!.externalLocal, true);
  const remoteOnly = buildPlans([svc('web', '10.96.0.10', { internalTrafficPolicy: 'Local' })], [slice('web', [{ ip: '10.244.9.2', node: 'node-b' }])], cfg);
  const table = desiredTable(remoteOnly, cfg);
  t.ok(table.sets.get('drop-services')!.elements.size === 1, 'no local endpoint: dropped, not rejected');
  t.equal(table.sets.get('no-endpoint-services')!.elements.size, 0);
});

t.test('the same objects in any order give the same table', async (t) => {
  const services = [svc('a', '10.96.0.1'), svc('b', '10.96.0.2', { sessionAffinity: 'ClientIP' }), svc('c', '10.96.0.3', { type: 'NodePort' }, [{ name: 'http', port: 80, nodePort: 30001, protocol: 'TCP' }])];
  const slices = [slice('a', [{ ip: '10.244.0.5' }, { ip: '10.244.0.4' }]), slice('b', [{ ip: '10.244.0.6' }]), slice('c', [{ ip: '10.244.0.7' }]), slice('a', [{ ip: '10.244.0.8' }], undefined, 'a-second')];
  const ref = diffTables(undefined, desiredTable(buildPlans(services, slices, cfg), cfg));
  for (const order of [[2, 0, 1], [1, 2, 0]]) {
    const s2 = order.map((i) => services[i]!);
    const sl2 = [...slices].reverse();
    t.same(diffTables(undefined, desiredTable(buildPlans(s2, sl2, cfg), cfg)), ref);
  }
});

const lapse = () => new Promise((r) => setTimeout(r, 60)); // retired elements expire after 50 ms

t.test('incremental: an endpoint change adds elements and deletes none; a service deletion leaves no trace', async (t) => {
  const driver = new FakeNft();
  const backend = new NftBackend(driver, cfg);
  const services = [svc('web', '10.96.0.10'), svc('aff', '10.96.0.20', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })];
  const slices = (second: string) => [slice('web', [{ ip: '10.244.0.2' }, { ip: second }]), slice('aff', [{ ip: '10.244.0.9' }])];
  const r1 = await backend.sync(buildPlans(services, slices('10.244.0.3'), cfg), { full: true });
  t.ok(r1.operations > 10, 'first sync builds the table');
  const same = await backend.sync(buildPlans(services, slices('10.244.0.3'), cfg), { full: true });
  t.equal(same.operations, 0, 'read back matches desired: a full resync sends nothing');
  // Nobody committed since: the ruleset generation says so and the resync reads nothing back.
  let lists = 0;
  const list = driver.list.bind(driver);
  driver.list = async (ns, ref) => { lists++; return list(ns, ref); };
  await backend.sync(buildPlans(services, slices('10.244.0.3'), cfg), { full: true });
  t.equal(lists, 0, 'an untouched ruleset is not read back');
  await new NftTable(driver, { family: 'ip', name: 'someone-else' }).apply([{ op: 'addTable' }]);
  await backend.sync(buildPlans(services, slices('10.244.0.3'), cfg), { full: true });
  t.equal(lists, 1, 'after anyone else\'s commit it is');
  driver.list = list;

  const table = new NftTable(driver, { family: 'ip', name: 'capstan-proxy' });
  const before = driver.transactions;
  const applied: string[] = [];
  const apply = driver.apply.bind(driver);
  driver.apply = async (ns, ref, ops) => { applied.push(...ops.map((o) => o.op)); return apply(ns, ref, ops); };
  const plans2 = buildPlans(services, slices('10.244.0.4'), cfg);
  const r2 = await backend.sync(plans2, { full: false });
  driver.apply = apply;
  t.equal(driver.transactions, before + 1, 'one transaction');
  t.same([...new Set(applied)], ['addTable', 'addElements'], 'element additions only: nothing is deleted, flushed or validated');
  // The web service's endpoint data moved to generation 1 (both slots), the old two slots
  // were retired, the old endpoint's hairpin pair retired and the new one's added. Its
  // verdict (goto lb-2) did not change and stays where it is.
  t.equal(r2.operations, 7);
  const web = plans2.find((p) => p.id.startsWith('default/web'))!;
  t.same(backend.genOf(web), { verdict: 0, data: 1 }, 'the endpoint data lives in the other generation now');
  await lapse();
  const listed = await table.list();
  t.same(listed.sets.find((s) => s.name === genSet('endpoints', 1))!.elements.map((e) => e.data).sort(), [['10.244.0.2', 8080], ['10.244.0.4', 8080]]);
  t.same(listed.sets.find((s) => s.name === genSet('endpoints', 0))!.elements, [], 'the old generation\'s elements lapsed');

  // Drift: an element and a rule deleted by hand come back at the next full sync.
  const rule = listed.rules.find((r) => r.chain === 'services')!;
  await table.apply([{ op: 'deleteRule', chain: 'services', handle: rule.handle }, { op: 'deleteElements', set: genSet('serviceIPs', 0), keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], elements: [{ key: ['10.96.0.10', 'tcp', 80] }] }]);
  const repaired = await backend.sync(plans2, { full: true });
  t.ok(repaired.operations > 0);
  t.same(diffTables(fromTableState(await table.list()), desiredTable(plans2, cfg, backend.genOf)), [], 'repaired');

  await backend.sync(buildPlans([services[0]!], [slice('web', [{ ip: '10.244.0.2' }, { ip: '10.244.0.4' }])], cfg), { full: false });
  t.ok(backend.pendingCollect, 'the affinity chains wait for collect()');
  await lapse();
  t.ok(await backend.collect(), 'collected once the verdict pointing at them lapsed');
  t.notOk(backend.pendingCollect);
  const after = JSON.stringify(await table.list());
  t.notMatch(after, '10.96.0.20', 'no element mentions the deleted service');
  t.notMatch(after, '10.244.0.9', 'nor its endpoint');
  const affHash = buildPlans([services[1]!], [], cfg)[0]!.hash;
  t.notMatch(after, affHash, 'nor any chain of it');
  t.notMatch(after, 'aff-', 'its affinity sets are gone');
});

t.test('SCTP ports get the same treatment (where the kernel has SCTP the packets match them)', async (t) => {
  const services = [svc('sig', '10.96.0.30', {}, [{ name: 'sig', port: 3868, protocol: 'SCTP' }])];
  const plans = buildPlans(services, [slice('sig', [{ ip: '10.244.0.7' }], [{ name: 'sig', port: 3868, protocol: 'SCTP' }])], cfg);
  t.equal(plans[0]?.protocol, 'sctp');
  const table = desiredTable(plans, cfg);
  t.ok(table.sets.get(genSet('serviceIPs', 0))!.elements.has('10.96.0.30|sctp|3868'), 'dispatch element keyed with sctp');
  t.same([...table.sets.get(genSet('endpoints', 0))!.elements.values()].map((e) => e.data), [['10.244.0.7', 3868]]);
  t.match([...iptablesRuleset(plans, cfg).nat.values()].flat().join('\n'), /-p sctp .*--dport 3868/);
});

t.test('iptables: kube-proxy structure, only changed chains rewritten', async (t) => {
  const services = [svc('web', '10.96.0.10', { type: 'NodePort' }, [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }]), svc('none', '10.96.0.12')];
  const r1 = iptablesRuleset(buildPlans(services, [slice('web', [{ ip: '10.244.0.2' }, { ip: '10.244.0.3' }])], cfg), cfg);
  const svcRules = [...r1.nat].find(([c]) => c.startsWith('KUBE-SVC-'))![1];
  t.match(svcRules.join('\n'), /! -s 10\.244\.0\.0\/16 -d 10\.96\.0\.10\/32 .* -j KUBE-MARK-MASQ/);
  t.match(svcRules.join('\n'), /--probability 0\.5000000000 -j KUBE-SEP-/);
  t.match(r1.filter.get('KUBE-SERVICES')!.join('\n'), /-d 10\.96\.0\.12\/32 .* -j REJECT/);
  const r2 = iptablesRuleset(buildPlans(services, [slice('web', [{ ip: '10.244.0.2' }, { ip: '10.244.0.4' }])], cfg), cfg);
  const input = restoreInput(r1, r2);
  t.notMatch(input, /^:KUBE-SERVICES /m, 'KUBE-SERVICES unchanged, not rewritten');
  t.match(input, /^-X KUBE-SEP-/m, 'the removed endpoint chain is deleted');
  t.match(input, /--to-destination 10\.244\.0\.4:8080/);
  t.notMatch(input, /filter/, 'filter table untouched');
  t.equal(restoreInput(r2, r2), '', 'no change, no restore');
});

class CountingNft extends FakeNft {
  failures = 0;
  override async apply(...args: Parameters<FakeNft['apply']>): ReturnType<FakeNft['apply']> {
    try { return await super.apply(...args); } catch (e) { this.failures++; throw e; }
  }
}

for (const seed of testSeeds([7], 1)) for (const retire of ['expiry', 'delete'] as const) t.test(`incremental steps always land on the table a full sync would build (random changes, elements retired by ${retire}, seed ${seed}; SEED=${seed} replays it)`, async (t) => {
  const driver = new CountingNft();
  const backend = new NftBackend(driver, cfg, null, undefined, { retire });
  let deletes = 0;
  const apply = driver.apply.bind(driver);
  driver.apply = async (ns, ref, ops) => { deletes += ops.filter((o) => o.op === 'deleteElements').length; return apply(ns, ref, ops); };
  const table = new NftTable(driver, { family: 'ip', name: 'capstan-proxy' });
  const next = mulberry32(seed);
  const rnd = (n: number) => Math.floor(next() * n) % n;
  const mk = (i: number, gen: number) => {
    const eps = Array.from({ length: 1 + rnd(4) }, (_, e) => ({ ip: `10.244.${i}.${(gen * 7 + e) % 250}`, ip2: 0 })).map(({ ip }) => ({ ip: rnd(5) ? ip : '10.244.99.1', port: 8080 }));
    const local = eps.slice(0, rnd(eps.length + 1));
    const kind = rnd(4);
    return buildPlans([svc(`s${i}`, `10.96.1.${i}`, {
      ...(kind === 1 ? { sessionAffinity: 'ClientIP' } : {}),
      ...(kind === 2 ? { type: 'NodePort', externalTrafficPolicy: 'Local' } : {}),
      ...(kind === 3 ? { type: 'NodePort' } : {}),
    }, [{ name: 'http', port: 80, nodePort: 30000 + i, protocol: rnd(2) ? 'TCP' : 'UDP' }])], [slice(`s${i}`, [
      ...eps.filter((e) => !local.includes(e)).map((e) => ({ ip: e.ip, node: 'node-b' })),
      ...local.map((e) => ({ ip: e.ip })),
    ])], cfg);
  };
  const current = new Map<number, ReturnType<typeof buildPlans>>();
  for (let i = 0; i < 12; i++) current.set(i, mk(i, 0));
  await backend.sync([...current.values()].flat(), { full: true });
  let maxOps = 0;
  for (let step = 1; step <= 60; step++) {
    const i = rnd(14);
    const old = current.get(i) ?? [];
    if (rnd(6) === 0) current.delete(i); else current.set(i, mk(i, step));
    const plans = [...current.values()].flat();
    const before = driver.transactions;
    // Every other step names what changed, as the proxier does; the rest make the backend find it.
    const now = current.get(i) ?? [];
    const changed = { plans: now, removed: old.filter((p) => !now.some((q) => q.id === p.id)).map((p) => p.id) };
    const r = await backend.sync(plans, step % 2 ? { full: false, changed } : { full: false });
    maxOps = Math.max(maxOps, r.operations);
    t.ok(driver.transactions <= before + 1, `step ${step}: at most one transaction`);
    await lapse();
    if (!(await backend.collect())) { t.fail(`step ${step}: collect refused`); return; }
    // Load-balancing chains stay while unused (they cost nothing); anything else unwanted is a leak.
    const drift = diffTablesWith(fromTableState(await table.list()), desiredTable(plans, cfg, backend.genOf), { keepUnwanted: true });
    const leaked = [...drift.unwanted.chains.filter((c) => !/^lb(np)?-\d+$/.test(c)), ...drift.unwanted.sets];
    if (drift.ops.length || leaked.length) { t.fail(`step ${step}: incremental state differs from full: ${JSON.stringify(drift).slice(0, 400)}`); return; }
  }
  t.equal(driver.failures, 0, 'no incremental transaction was refused (no silent fallback to a full sync)');
  if (retire === 'expiry') t.equal(deletes, 0, 'no element was deleted'); else t.ok(deletes > 0, 'elements were deleted');
  t.pass(`60 random steps, largest transaction ${maxOps} operations`);
});
