// The hook in the network agent: with clients and a node name, the agent runs the routes
// manager on its own Node informer (fake netlink, FakeClientset; no root).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClientset, resources } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { createNetlink, FakeNetlink, RTN } from '../../src/netlink/index.js';
import { NetworkAgent } from '../../src/network/index.js';
import { ANNOTATION_TUNNEL_MAC, ROUTE_PROTOCOL, vtepMac } from '../../src/network/routes/index.js';
import { node } from './cluster.js';

t.test('the agent publishes its VTEP, routes to the other nodes, and makes its block and the cluster CIDR unreachable', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-routes-agent-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const netlink = createNetlink('fake');
  const kernel = netlink.driver as FakeNetlink;
  kernel.addNamespace('/run/netns/n1');
  await netlink.apply('/run/netns/n1', [{ op: 'linkAddVeth', name: 'eth0', peerName: 'peer0' }, { op: 'addrAdd', dev: 'eth0', address: '10.0.1.11/24' }]);
  const clients = new FakeClientset();
  clients.seed(resources.nodes, node('n1', '10.0.1.11', '10.244.1.0/24'), node('n2', '10.0.1.12', '10.244.2.0/24'));
  const agent = new NetworkAgent({
    netlink, hostNetns: '/run/netns/n1', stateDir: dir, socket: join(dir, 'cni.sock'), clients, nodeName: 'n1', mtu: 1500,
    encapsulation: 'Always', clusterCIDR: '10.244.0.0/16', log: logger('t', {}, () => undefined),
  });
  t.teardown(() => agent.stop());
  await agent.start();
  const deadline = Date.now() + 3000;
  const n1 = () => clients.get(resources.nodes, undefined, 'n1')!;
  while (Date.now() < deadline && !n1().metadata.annotations?.[ANNOTATION_TUNNEL_MAC]) await new Promise((r) => setTimeout(r, 20));
  t.equal(n1().metadata.annotations?.[ANNOTATION_TUNNEL_MAC], vtepMac('n1'), 'VTEP MAC published on the own Node');
  const ours = async (type: number) => (await netlink.routes('/run/netns/n1', 4, { protocol: ROUTE_PROTOCOL })).filter((r) => r.type === type);
  t.same((await ours(RTN.unicast)).map((r) => [r.dst, r.dev]), [], 'n2 has published nothing: no tunnel route yet');
  t.same((await ours(RTN.unreachable)).map((r) => [r.dst, r.dev]), [['10.244.1.0/24', undefined], ['10.244.0.0/16', undefined]],
    'its own block and (with a cluster CIDR) n2\'s, not yet routed, are unreachable');
  await clients.resource(resources.nodes).patch(undefined, 'n2', 'merge', { metadata: { annotations: { [ANNOTATION_TUNNEL_MAC]: vtepMac('n2'), 'capstan.io/vxlan-tunnel-addr': '10.244.2.1' } } });
  const until = Date.now() + 3000;
  let routes: string[][] = [];
  while (Date.now() < until && !routes.length) {
    routes = (await ours(RTN.unicast)).map((r) => [r.dst, r.via!, r.dev!]);
    await new Promise((r) => setTimeout(r, 20));
  }
  t.same(routes, [['10.244.2.0/24', '10.244.2.1', 'vxlan.capstan']], '--encapsulation Always: through the tunnel even on the same subnet');
});

t.test('an invalid cluster CIDR is refused at start-up', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-routes-agent-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clients = new FakeClientset();
  t.teardown(() => clients.close());
  t.throws(() => new NetworkAgent({
    netlink: createNetlink('fake'), hostNetns: null, stateDir: dir, socket: join(dir, 'cni.sock'), clients, nodeName: 'n1', mtu: 1500,
    clusterCIDR: '10.244.0.1/16', log: logger('t', {}, () => undefined),
  }), /invalid cluster CIDR 10\.244\.0\.1\/16/);
});
