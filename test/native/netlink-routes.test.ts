// Addresses (v4 and v6) and routes with table, metric, protocol tag, type and replace/delete,
// read back identically through each driver.
import t from 'tap';
import { createNetlink, FakeNetlink, type Netlink } from '../../src/netlink/index.js';
import { isRoot, newNamespace } from './fixtures/netns.js';

async function behaviour(t: import('tap').Test, nl: Netlink, netns: string) {
  await nl.apply(netns, [
    { op: 'linkAddVeth', name: 'r0', peerName: 'r1', mtu: 1400 },
    { op: 'linkSet', name: 'r0', up: true, mtu: 1450, mac: '02:11:22:33:44:55' },
    { op: 'linkSet', name: 'r1', up: true },
    { op: 'addrAdd', dev: 'r0', address: '10.20.0.1/24' },
    { op: 'addrAdd', dev: 'r0', address: 'fd00:20::1/64', nodad: true },
    { op: 'routeAdd', dst: '10.30.0.0/24', via: '10.20.0.2', dev: 'r0', table: 100, metric: 50, protocol: 80 },
    { op: 'routeReplace', dst: '10.30.0.0/24', via: '10.20.0.3', dev: 'r0', table: 100, metric: 50, protocol: 80 },
    { op: 'routeAdd', dst: 'fd00:30::/64', via: 'fd00:20::2', dev: 'r0', protocol: 80 },
  ]);
  const links = await nl.links(netns);
  t.match(links.find((l) => l.name === 'r0'), { mtu: 1450, mac: '02:11:22:33:44:55', up: true }, 'link attributes changed');
  t.match(links.find((l) => l.name === 'r1'), { mtu: 1400 }, 'peer got the creation MTU');
  const v6 = await nl.addrs(netns, 6);
  t.ok(v6.some((a) => a.dev === 'r0' && a.address === 'fd00:20::1' && a.prefixLen === 64), 'IPv6 address');
  const v4 = await nl.addrs(netns, 4);
  t.ok(v4.some((a) => a.dev === 'r0' && a.address === '10.20.0.1' && a.prefixLen === 24), 'IPv4 address');
  const own4 = await nl.routes(netns, 4, { protocol: 80 });
  t.match(own4, [{ dst: '10.30.0.0/24', via: '10.20.0.3', dev: 'r0', table: 100, metric: 50 }], 'replace kept one route in table 100');
  const own6 = await nl.routes(netns, 6, { protocol: 80 });
  t.match(own6, [{ dst: 'fd00:30::/64', via: 'fd00:20::2', dev: 'r0' }], 'IPv6 route');
  await nl.apply(netns, [
    { op: 'routeDel', dst: '10.30.0.0/24', table: 100, metric: 50 },
    { op: 'addrDel', dev: 'r0', address: 'fd00:20::1/64' },
    { op: 'linkSet', name: 'r0', newName: 'renamed0', up: false },
  ]);
  t.same(await nl.routes(netns, 4, { protocol: 80 }), [], 'route deleted');
  t.notOk((await nl.addrs(netns, 6)).some((a) => a.address === 'fd00:20::1'), 'address deleted');
  t.match((await nl.links(netns)).find((l) => l.name === 'renamed0'), { up: false }, 'renamed and down');
}

// Reject routes: no next hop, the type read back as RTN_* (blackhole 6, unreachable 7,
// prohibit 8); replace changes the type in place; a typed delete matches only that type.
async function rejectRoutes(t: import('tap').Test, nl: Netlink, netns: string) {
  await nl.apply(netns, [
    { op: 'linkAddVeth', name: 'r0', peerName: 'r1' },
    { op: 'linkSet', name: 'r0', up: true },
    { op: 'addrAdd', dev: 'r0', address: '10.20.0.1/24' },
    { op: 'routeReplace', dst: '10.40.0.0/16', type: 'unreachable', protocol: 81 },
    { op: 'routeAdd', dst: '10.41.0.0/24', type: 'blackhole', protocol: 81 },
    { op: 'routeAdd', dst: '10.42.0.0/24', type: 'prohibit', table: 100, protocol: 81 },
    { op: 'routeAdd', dst: '10.43.0.0/24', type: 'unicast', via: '10.20.0.2', dev: 'r0', protocol: 81 },
  ]);
  const got = (await nl.routes(netns, 4, { protocol: 81 })).map((r) => ({ dst: r.dst, type: r.type, table: r.table, dev: r.dev, via: r.via }));
  t.same(got.sort((a, b) => (a.dst < b.dst ? -1 : 1)), [
    { dst: '10.40.0.0/16', type: 7, table: 254, dev: undefined, via: undefined },
    { dst: '10.41.0.0/24', type: 6, table: 254, dev: undefined, via: undefined },
    { dst: '10.42.0.0/24', type: 8, table: 100, dev: undefined, via: undefined },
    { dst: '10.43.0.0/24', type: 1, table: 254, dev: 'r0', via: '10.20.0.2' },
  ], 'each type read back, the reject ones without device or gateway');
  await nl.apply(netns, [
    { op: 'routeReplace', dst: '10.40.0.0/16', via: '10.20.0.2', dev: 'r0', protocol: 81 },
    { op: 'routeReplace', dst: '10.43.0.0/24', type: 'unreachable', protocol: 81 },
  ]);
  const after = await nl.routes(netns, 4, { protocol: 81 });
  t.match(after.find((r) => r.dst === '10.40.0.0/16'), { type: 1, dev: 'r0', via: '10.20.0.2' }, 'unreachable → unicast in place');
  t.match(after.find((r) => r.dst === '10.43.0.0/24'), { type: 7 }, 'unicast → unreachable in place');
  t.equal(after.filter((r) => r.dst === '10.43.0.0/24').length, 1, 'replaced, not added');
  const [wrong] = await nl.batch(netns, [{ op: 'routeDel', dst: '10.41.0.0/24', type: 'unreachable' }]);
  t.match(wrong, { status: 'error', code: 'ESRCH' }, 'a delete of another type does not match the blackhole route');
  await nl.apply(netns, [
    { op: 'routeDel', dst: '10.41.0.0/24', type: 'blackhole' },
    { op: 'routeDel', dst: '10.42.0.0/24', table: 100 },
    { op: 'routeDel', dst: '10.43.0.0/24', protocol: 81 },
  ]);
  t.same((await nl.routes(netns, 4, { protocol: 81 })).map((r) => r.dst), ['10.40.0.0/16'], 'typed and untyped deletes');
}

for (const impl of ['addon', 'ip', 'ip-batch'] as const) {
  t.test(`addresses and routes with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const ns = await newNamespace(t, 'rt');
    await behaviour(t, createNetlink(impl), ns.path);
  });
  t.test(`blackhole, unreachable and prohibit routes with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const ns = await newNamespace(t, 'rj');
    await rejectRoutes(t, createNetlink(impl), ns.path);
  });
}

for (const [name, run] of [['addresses and routes', behaviour], ['blackhole, unreachable and prohibit routes', rejectRoutes]] as const) {
  t.test(`${name} with the fake`, async (t) => {
    const fake = new FakeNetlink();
    fake.addNamespace('/run/netns/x');
    await run(t, createNetlink(fake), '/run/netns/x');
  });
}
