// Addresses (v4 and v6) and routes with table, metric, protocol tag and replace/delete,
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

for (const impl of ['addon', 'ip', 'ip-batch'] as const) {
  t.test(`addresses and routes with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const ns = await newNamespace(t, 'rt');
    await behaviour(t, createNetlink(impl), ns.path);
  });
}

t.test('addresses and routes with the fake', async (t) => {
  const fake = new FakeNetlink();
  fake.addNamespace('/run/netns/x');
  await behaviour(t, createNetlink(fake), '/run/netns/x');
});
