// The host address kube-apiserver and the kubelet choose by default: the default route's
// interface first, then any interface; never loopback or link-local.
import t from 'tap';
import type { NetworkInterfaceInfo } from 'node:os';
import { chooseHostAddress, defaultRouteInterfaces } from '../../src/util/host-address.js';

const route = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth1\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth2\t00000000\t0102A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0
eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth3\t00000000\t010200C0\t0002\t0\t0\t0\t00000000\t0\t0\t0
`;

const v4 = (address: string, internal = false): NetworkInterfaceInfo =>
  ({ address, netmask: '255.255.255.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal, cidr: `${address}/24` });
const v6 = (address: string): NetworkInterfaceInfo =>
  ({ address, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '00:00:00:00:00:00', internal: false, cidr: `${address}/64`, scopeid: 0 });

t.test('default routes: up ones only, lowest metric first', async (t) => {
  t.strictSame(defaultRouteInterfaces(route), ['eth0', 'eth2']);
  t.strictSame(defaultRouteInterfaces(''), []);
});

t.test('the default route\'s interface wins over the others', async (t) => {
  const ifs = { lo: [v4('127.0.0.1', true)], eth1: [v4('192.168.0.5')], eth0: [v6('2001:db8::5'), v4('169.254.3.3'), v4('192.0.2.5')] };
  t.equal(chooseHostAddress(['eth0', 'eth2'], ifs), '192.0.2.5', 'its first global IPv4 address');
  t.equal(chooseHostAddress([], ifs), '192.168.0.5', 'without a default route: the first global IPv4 address of any interface');
  t.equal(chooseHostAddress(['eth9'], ifs), '192.168.0.5', 'a default route through an interface without an address');
  t.equal(chooseHostAddress([], { lo: [v4('127.0.0.1', true)], x: [v4('169.254.1.1')] }), undefined, 'loopback and link-local only: none');
});
