// A full sync reads the proxy's table back only when someone else changed it: nftables'
// change notifications show which commits touched the table. Real nftables in a namespace
// this test creates: a commit to another table costs no read-back; an element or a rule
// deleted with `nft` behind the proxy's back is noticed and repaired.
import t from 'tap';
import { buildPlans, type ProxyConfig } from '../../src/proxy/model.js';
import { NftBackend, TABLE_NAME } from '../../src/proxy/nft/backend.js';
import { AddonNft, NftTable, type TableRef } from '../../src/nft/index.js';
import { inNs, isRoot, newNamespace, type Namespace } from '../native/fixtures/netns.js';

const cfg: ProxyConfig = { nodeName: 'node-a', clusterCIDR: '10.244.0.0/16' };
const svc = (name: string, ip: string) => ({ metadata: { namespace: 'default', name }, spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', port: 80, protocol: 'TCP' as const }] } });
const slice = (svcName: string, ips: string[]) => ({
  metadata: { namespace: 'default', name: `${svcName}-abc`, labels: { 'kubernetes.io/service-name': svcName } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-b' })),
});

/** The addon, counting the read-backs of the proxy's table. */
class CountingAddon extends AddonNft {
  readBacks = 0;
  override listColumns(netns: string | null, table: TableRef) {
    this.readBacks++;
    return super.listColumns(netns, table);
  }
}

async function nft(ns: Namespace, ...args: string[]): Promise<string> {
  const r = await inNs(ns, 'nft', args);
  if (r.exitCode !== 0) throw new Error(`nft ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

t.test('a full sync reads back only after a foreign change to the table, and repairs it', { skip: !isRoot && 'needs root' }, async (t) => {
  const ns = await newNamespace(t, 'pnotify');
  const driver = new CountingAddon();
  const backend = new NftBackend(driver, cfg, ns.path, TABLE_NAME, { retire: 'expiry' });
  t.teardown(() => backend.close());
  const services = [svc('a', '10.96.0.10'), svc('b', '10.96.0.11')];
  let plans = buildPlans(services, [slice('a', ['10.244.1.2', '10.244.1.3']), slice('b', ['10.244.2.2'])], cfg);
  await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 1, 'the first full sync looks at the kernel (no table yet)');

  // Our own partial sync, then a commit to another table of the namespace.
  plans = buildPlans(services, [slice('a', ['10.244.1.2', '10.244.1.4']), slice('b', ['10.244.2.2'])], cfg);
  await backend.sync(plans, { full: false });
  await nft(ns, 'add', 'table', 'ip', 'capstan-t-other');
  let r = await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 1, 'our own commits and another table\'s: no read-back');
  t.equal(r.operations, 0, 'nothing to do');

  // The kernel's set GC frees the elements the partial sync retired: no commit of ours, and
  // the next commit elsewhere must not be blamed on our table.
  await new Promise((r) => setTimeout(r, 2500));
  await nft(ns, 'add', 'chain', 'ip', 'capstan-t-other', 'c');
  r = await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 1, 'after the set GC: still no read-back');

  // An element deleted behind the proxy's back.
  await nft(ns, 'delete', 'element', 'ip', TABLE_NAME, 'cluster-ips', '{ 10.96.0.11 }');
  t.notMatch(await nft(ns, 'list', 'set', 'ip', TABLE_NAME, 'cluster-ips'), /10\.96\.0\.11/, 'deleted by nft');
  r = await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 2, 'the table is read back');
  t.ok(r.operations > 0, 'and repaired');
  t.match(await nft(ns, 'list', 'set', 'ip', TABLE_NAME, 'cluster-ips'), /10\.96\.0\.11/, 'the element is back');

  // A rule deleted behind the proxy's back.
  const table = new NftTable(driver, { family: 'ip', name: TABLE_NAME }, ns.path);
  const before = (await table.list()).rules.filter((x) => x.chain === 'services');
  t.ok(before.length > 0, 'the services chain has rules');
  await nft(ns, 'delete', 'rule', 'ip', TABLE_NAME, 'services', 'handle', String(before[0]!.handle));
  r = await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 3, 'read back again');
  t.ok(r.operations > 0, 'and repaired');
  t.equal((await table.list()).rules.filter((x) => x.chain === 'services').length, before.length, 'the rule is back');

  // Nothing changed since the repair: the next full sync is a partial one again.
  await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 3, 'quiet again');

  // After close(), the next full sync subscribes again and reads back (it saw nothing meanwhile).
  backend.close();
  await nft(ns, 'delete', 'element', 'ip', TABLE_NAME, 'cluster-ips', '{ 10.96.0.10 }');
  r = await backend.sync(plans, { full: true });
  t.equal(driver.readBacks, 4, 'read back after close()');
  t.match(await nft(ns, 'list', 'set', 'ip', TABLE_NAME, 'cluster-ips'), /10\.96\.0\.10/, 'the element deleted meanwhile is back');
});

t.test('a batch naming a stale generation is sent again, and reports the generation it made', { skip: !isRoot && 'needs root' }, async (t) => {
  const ns = await newNamespace(t, 'pgen');
  const driver = new AddonNft();
  const table = new NftTable(driver, { family: 'ip', name: 'capstan-t-gen' }, ns.path);
  const monitor = driver.monitor(ns.path, table.table);
  t.teardown(() => monitor.close());
  // Commits from another writer racing ours: each of ours still reports exactly its own generation.
  const foreign = (async () => { for (let i = 0; i < 15; i++) await nft(ns, 'add', 'table', 'ip', `capstan-t-race${i}`); })();
  const ours: number[] = [];
  for (let i = 0; i < 15; i++) {
    const a = await table.apply([{ op: 'addTable' }, { op: 'addChain', chain: `c${i}` }]);
    ours.push(a!.generation);
  }
  await foreign;
  const { lost, touched } = await monitor.drain();
  t.notOk(lost);
  t.same(touched.map((x) => x.generation), ours, 'the commits that touched the table are exactly ours, by generation');
  t.ok(touched.every((x) => x.other && x.sets.length === 0), 'chains, no elements');
});
