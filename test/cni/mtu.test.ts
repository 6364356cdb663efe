// The pods' MTU by default: the default route's device, less VXLAN's 50 bytes unless the
// node never encapsulates.
import t from 'tap';
import { createNetlink, FakeNetlink } from '../../src/netlink/index.js';
import { autoPodMTU } from '../../src/network/mtu.js';

t.test('pod MTU follows the uplink and the encapsulation mode', async (t) => {
  const netlink = createNetlink('fake');
  const fake = netlink.driver as FakeNetlink;
  fake.addNamespace('/run/netns/node');
  const ns = '/run/netns/node';
  t.equal(await autoPodMTU(netlink, ns, 'CrossSubnet'), 1450, 'no default route: 1500 assumed, less the VXLAN header');
  await netlink.apply(ns, [
    { op: 'linkAddVeth', name: 'eth0', peerName: 'peer0', mtu: 9000 },
    { op: 'linkSet', name: 'eth0', up: true },
    { op: 'addrAdd', dev: 'eth0', address: '10.77.0.11/24' },
    { op: 'routeAdd', dst: 'default', via: '10.77.0.1', dev: 'eth0' },
  ]);
  t.equal(await autoPodMTU(netlink, ns, 'CrossSubnet'), 8950, 'CrossSubnet may encapsulate');
  t.equal(await autoPodMTU(netlink, ns, 'Always'), 8950);
  t.equal(await autoPodMTU(netlink, ns, 'Never'), 9000, 'Never: the uplink\'s own MTU');
});
