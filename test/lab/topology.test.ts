// The lab's plan without root: names fit the kernel's limits, nodes go round-robin over the
// segments, addresses are unique and each node's gateway is its segment's router address.
import t from 'tap';
import { labTopology, labNamespaces } from '../../src/lab/index.js';

t.test('3 nodes over 2 segments', async (t) => {
  const topo = labTopology('ab12', 3, 2);
  t.same(topo.nodes.map((n) => [n.name, n.segment, n.ip]), [['node-1', 0, '10.77.0.11'], ['node-2', 1, '10.77.1.12'], ['node-3', 0, '10.77.0.13']]);
  t.same(topo.segments.map((s) => s.gateway), ['10.77.0.1', '10.77.1.1']);
  t.equal(topo.controlPlane.ip, '10.77.0.2');
  t.same(labNamespaces(topo), ['cl-ab12-cp', 'cl-ab12-n1', 'cl-ab12-n2', 'cl-ab12-n3', 'cl-ab12-r']);
});

t.test('names and addresses stay valid at the limits', async (t) => {
  const topo = labTopology('abcdef', 200, 250);
  const ifnames = [...topo.segments.map((s) => s.bridge), ...topo.nodes.map((n) => n.routerIf), topo.controlPlane.routerIf];
  t.ok(ifnames.every((n) => n.length <= 15), 'interface names ≤ 15 characters');
  t.equal(new Set(ifnames).size, ifnames.length, 'interface names unique in the router');
  const ips = [topo.controlPlane.ip, ...topo.nodes.map((n) => n.ip)];
  t.equal(new Set(ips).size, ips.length, 'addresses unique');
  t.ok(ips.every((ip) => ip.split('.').every((o) => Number(o) <= 254)), 'valid host addresses');
  t.ok(labNamespaces(topo).every((n) => n.startsWith('cl-abcdef-')), 'every namespace carries the lab prefix');
});

t.test('bad input is refused', async (t) => {
  t.throws(() => labTopology('zz', 1, 1));
  t.throws(() => labTopology('ab12', 0, 1));
  t.throws(() => labTopology('ab12', 3, 0));
  t.throws(() => labTopology('ab12', 201, 1));
});
