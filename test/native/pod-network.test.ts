// Calico-style pod networking built with each netlink driver: a veth into a fresh pod
// namespace renamed eth0, a /32, the 169.254.1.1 on-link routes and proxy ARP, then ping.
import t, { type Test } from 'tap';
import { createNetlink, type Netlink, type NetlinkOp } from '../../src/netlink/index.js';
import { isRoot, newNamespace, ping, type Namespace } from './fixtures/netns.js';

const POD_IP = '10.244.7.5';
const NODE_IP = '192.0.2.1';

/** Node side: a fake uplink (veth; no dummy links here) carrying a default route, so proxy ARP answers for 169.254.1.1. */
function nodeUplink(): NetlinkOp[] {
  return [
    { op: 'linkAddVeth', name: 'up0', peerName: 'up1' },
    { op: 'linkSet', name: 'up0', up: true },
    { op: 'linkSet', name: 'up1', up: true },
    { op: 'addrAdd', dev: 'up0', address: `${NODE_IP}/24` },
    { op: 'routeAdd', dst: 'default', via: '192.0.2.254', dev: 'up0', onlink: true },
  ];
}

function hostSide(pod: Namespace): NetlinkOp[] {
  return [
    { op: 'linkAddVeth', name: 'cali7', peerName: 'tmp7', peerNetns: pod.path, mac: 'ee:ee:ee:ee:ee:ee' },
    { op: 'sysctlWrite', path: 'net/ipv4/conf/cali7/proxy_arp', value: '1' },
    { op: 'sysctlWrite', path: 'net/ipv4/neigh/cali7/proxy_delay', value: '0' },
    { op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' },
    { op: 'linkSet', name: 'cali7', up: true },
    { op: 'routeAdd', dst: `${POD_IP}/32`, dev: 'cali7', scope: 'link', protocol: 80 },
  ];
}

function podSide(): NetlinkOp[] {
  return [
    { op: 'linkSet', name: 'tmp7', newName: 'eth0' },
    { op: 'linkSet', name: 'eth0', up: true },
    { op: 'addrAdd', dev: 'eth0', address: `${POD_IP}/32` },
    { op: 'routeAdd', dst: '169.254.1.1/32', dev: 'eth0', scope: 'link' },
    { op: 'routeAdd', dst: 'default', via: '169.254.1.1', dev: 'eth0' },
  ];
}

async function checkState(t: Test, nl: Netlink, node: Namespace | null, pod: Namespace | null) {
  const podLinks = await nl.links(pod && pod.path);
  const eth0 = podLinks.find((l) => l.name === 'eth0');
  t.ok(eth0?.up, 'eth0 exists in the pod namespace and is up');
  t.notOk(podLinks.some((l) => l.name === 'tmp7'), 'the temporary peer name is gone');
  const addrs = await nl.addrs(pod && pod.path, 4);
  t.ok(addrs.some((a) => a.dev === 'eth0' && a.address === POD_IP && a.prefixLen === 32), 'pod has its /32');
  const podRoutes = await nl.routes(pod && pod.path, 4, { table: 254 });
  t.ok(podRoutes.some((r) => r.dst === 'default' && r.via === '169.254.1.1' && r.dev === 'eth0'), 'default via 169.254.1.1');
  t.ok(podRoutes.some((r) => r.dst === '169.254.1.1/32' && r.scope === 253), '169.254.1.1 scope link');
  const own = await nl.routes(node && node.path, 4, { protocol: 80 });
  t.same(own.map((r) => [r.dst, r.dev]), [[`${POD_IP}/32`, 'cali7']], 'only our protocol-tagged route is found by tag');
  t.equal(await nl.sysctl(node && node.path, 'net/ipv4/conf/cali7/proxy_arp'), '1', 'proxy_arp set inside the node namespace');
  const cali = (await nl.links(node && node.path)).find((l) => l.name === 'cali7');
  t.equal(cali?.mac, 'ee:ee:ee:ee:ee:ee', 'host side MAC');
}

for (const impl of ['addon', 'ip', 'ip-batch'] as const) {
  t.test(`pod network setup with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const nl = createNetlink(impl);
    const node = await newNamespace(t, 'node');
    const pod = await newNamespace(t, 'pod');
    await nl.apply(node.path, [...nodeUplink(), ...hostSide(pod)]);
    await nl.apply(pod.path, podSide());
    await checkState(t, nl, node, pod);
    t.ok(await ping(pod, NODE_IP), 'pod pings the node through proxy ARP');
    t.ok(await ping(node, POD_IP), 'node pings the pod via its /32 route');
    // The sysctls landed in the node namespace: the caller's namespace has no cali7 at all.
    await t.rejects(nl.sysctl(null, 'net/ipv4/conf/cali7/proxy_arp'), { code: 'ENOENT' }, 'no cali7 sysctl in the caller namespace');
  });
}

t.test('pod network setup with the fake', async (t) => {
  const fake = createNetlink('fake');
  const driver = fake.driver as import('../../src/netlink/index.js').FakeNetlink;
  driver.addNamespace('/run/netns/node');
  driver.addNamespace('/run/netns/pod');
  const node = { name: 'node', path: '/run/netns/node' };
  const pod = { name: 'pod', path: '/run/netns/pod' };
  await fake.apply(node.path, [...nodeUplink(), ...hostSide(pod)]);
  await fake.apply(pod.path, podSide());
  await checkState(t, fake, node, pod);
});
