// The installed plugin binary called the way containerd calls it, against an agent serving
// a node namespace: pod network shape, pings both ways, CHECK, DEL twice, VERSION, error
// JSON, concurrent ADDs, and the loopback plugin.
import t from 'tap';
import { createNetlink } from '../../src/netlink/index.js';
import { POD_ROUTE_PROTOCOL, SUPPORTED_VERSIONS } from '../../src/network/index.js';
import { isRoot, newNamespace, ping } from '../native/fixtures/netns.js';
import { NODE_IP, nodeNamespace, runPlugin, startAgent } from './fixtures.js';

const nl = createNetlink('addon');
const ARGS = 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0;K8S_POD_INFRA_CONTAINER_ID=c1';

t.test('ADD, CHECK, DEL, DEL again: the Calico-style pod network', { skip: !isRoot && 'needs root' }, async (t) => {
  const node = await nodeNamespace(t);
  const pod = await newNamespace(t, 'cnipod');
  const a = await startAgent(t, node, '10.77.1.0/24');

  const add = await runPlugin(a.plugin, a.env('ADD', 'c1', pod.path, ARGS), a.stdin());
  t.equal(add.code, 0, add.stdout);
  const veth = add.json.interfaces?.[0]?.name as string;
  t.match(veth, /^cap[0-9a-f]{11}$/);
  t.match(add.json, { cniVersion: '1.0.0', interfaces: [{ mac: 'ee:ee:ee:ee:ee:ee' }, { name: 'eth0', sandbox: pod.path }], ips: [{ address: '10.77.1.2/32', interface: 1 }] });

  const eth0 = (await nl.links(pod.path)).find((l) => l.name === 'eth0');
  t.ok(eth0?.up, 'eth0 up in the pod');
  t.equal(eth0?.mac, add.json.interfaces[1].mac, 'result MAC is the real one');
  t.ok((await nl.addrs(pod.path, 4)).some((x) => x.dev === 'eth0' && x.address === '10.77.1.2' && x.prefixLen === 32), 'pod /32');
  const podRoutes = await nl.routes(pod.path, 4, { table: 254 });
  t.ok(podRoutes.some((r) => r.dst === '169.254.1.1/32' && r.dev === 'eth0' && r.scope === 253), '169.254.1.1 dev eth0 scope link');
  t.ok(podRoutes.some((r) => r.dst === 'default' && r.via === '169.254.1.1' && r.dev === 'eth0'), 'default via 169.254.1.1');
  const host = (await nl.links(node.path)).find((l) => l.name === veth);
  t.equal(host?.mac, 'ee:ee:ee:ee:ee:ee');
  t.ok(host?.up);
  t.same((await nl.addrs(node.path, 4)).filter((x) => x.dev === veth), [], 'no address on the host side');
  t.equal(await nl.sysctl(node.path, `net/ipv4/conf/${veth}/proxy_arp`), '1');
  t.equal(await nl.sysctl(node.path, `net/ipv4/neigh/${veth}/proxy_delay`), '0');
  t.equal(await nl.sysctl(node.path, `net/ipv4/conf/${veth}/forwarding`), '1');
  t.same((await nl.routes(node.path, 4, { protocol: POD_ROUTE_PROTOCOL })).map((r) => [r.dst, r.dev]), [['10.77.1.2/32', veth]], 'host /32 route tagged as capstan\'s');
  t.ok(await ping(node, '10.77.1.2'), 'node pings the pod');
  t.ok(await ping(pod, NODE_IP), 'pod pings the node through proxy ARP');

  const check = await runPlugin(a.plugin, a.env('CHECK', 'c1', pod.path, ARGS), a.stdin({ prevResult: add.json }));
  t.same([check.code, check.stdout], [0, ''], 'CHECK passes');
  await nl.apply(pod.path, [{ op: 'routeDel', dst: 'default' }]);
  const broken = await runPlugin(a.plugin, a.env('CHECK', 'c1', pod.path, ARGS), a.stdin({ prevResult: add.json }));
  t.equal(broken.code, 1);
  t.match(broken.json, { code: 999, msg: /default route/ }, 'CHECK notices a missing route');

  const del = await runPlugin(a.plugin, a.env('DEL', 'c1', pod.path, ARGS), a.stdin());
  t.same([del.code, del.stdout], [0, '']);
  t.notOk((await nl.links(node.path)).some((l) => l.name === veth), 'host veth gone');
  t.notOk((await nl.links(pod.path)).some((l) => l.name === 'eth0'), 'eth0 gone');
  t.same(await nl.routes(node.path, 4, { protocol: POD_ROUTE_PROTOCOL }), [], 'route gone');
  const again = await runPlugin(a.plugin, a.env('DEL', 'c1', '', ARGS), a.stdin());
  t.same([again.code, again.stdout], [0, ''], 'second DEL with an empty CNI_NETNS succeeds');
  t.same(a.agent.ipam.list(), [], 'address released');
});

t.test('VERSION and error results', { skip: !isRoot && 'needs root' }, async (t) => {
  const node = await nodeNamespace(t);
  const pod = await newNamespace(t, 'cnipod');
  const a = await startAgent(t, node, '10.77.2.0/24');
  const v = await runPlugin(a.plugin, { CNI_COMMAND: 'VERSION' }, '{"cniVersion":"1.0.0"}');
  t.same([v.code, v.json], [0, { cniVersion: '1.0.0', supportedVersions: [...SUPPORTED_VERSIONS] }], 'the C plugin and the agent agree on versions');
  const cases: [string, Record<string, string>, string, number][] = [
    ['bad JSON', a.env('ADD', 'e1', pod.path), `{"agentSocket": "${a.socket}", "cniVersion":`, 6],
    ['unknown version', a.env('ADD', 'e1', pod.path), a.stdin({ cniVersion: '2.0.0' }), 1],
    ['invalid podCIDR', a.env('ADD', 'e1', pod.path), a.stdin({ podCIDR: '300.0.0.0/8' }), 7],
    ['delegated ipam', a.env('ADD', 'e1', pod.path), a.stdin({ ipam: { type: 'host-local' } }), 2],
    ['no CNI_NETNS on ADD', a.env('ADD', 'e1', ''), a.stdin(), 4],
    ['bad CNI_COMMAND', a.env('FROB', 'e1', pod.path), a.stdin(), 4],
    ['CHECK of an unknown container', a.env('CHECK', 'nobody', pod.path), a.stdin(), 3],
  ];
  for (const [name, env, stdin, code] of cases) {
    const r = await runPlugin(a.plugin, env, stdin);
    t.equal(r.code, 1, `${name}: exit 1`);
    t.match(r.json, { code, msg: String }, `${name}: code ${code}`);
  }
  t.same(a.agent.ipam.list(), [], 'failed calls allocate nothing');
  t.same((await nl.links(pod.path)).map((l) => l.name), ['lo'], 'and create nothing');
});

t.test('20 concurrent ADDs get 20 distinct addresses', { skip: !isRoot && 'needs root' }, async (t) => {
  const node = await nodeNamespace(t);
  const a = await startAgent(t, node, '10.77.3.0/24');
  const pods = await Promise.all(Array.from({ length: 20 }, () => newNamespace(t, 'cnipod')));
  const results = await Promise.all(pods.map((p, i) => runPlugin(a.plugin, a.env('ADD', `k${i}`, p.path, `K8S_POD_NAMESPACE=ns;K8S_POD_NAME=p${i}`), a.stdin())));
  t.same(results.map((r) => r.code), results.map(() => 0), 'all succeed');
  const ips = results.map((r) => r.json.ips?.[0]?.address as string);
  t.equal(new Set(ips).size, 20, 'distinct');
  t.equal((await nl.routes(node.path, 4, { protocol: POD_ROUTE_PROTOCOL })).length, 20, 'one host route each');
  t.ok(await ping(pods[7]!, ips[3]!.replace('/32', '')), 'pod to pod on the node');
  const dels = await Promise.all(pods.map((p, i) => runPlugin(a.plugin, a.env('DEL', `k${i}`, p.path), a.stdin())));
  t.same(dels.map((r) => r.code), dels.map(() => 0));
  t.same(a.agent.ipam.list(), []);
  t.same(await nl.routes(node.path, 4, { protocol: POD_ROUTE_PROTOCOL }), []);
});

t.test('the loopback plugin sets lo up', { skip: !isRoot && 'needs root' }, async (t) => {
  const node = await nodeNamespace(t);
  const pod = await newNamespace(t, 'cnipod');
  await createNetlink('addon').apply(pod.path, [{ op: 'linkSet', name: 'lo', up: false }]);
  const a = await startAgent(t, node, '10.77.4.0/24');
  // containerd's own loopback config names no socket: the plugin finds the agent's beside itself.
  const conf = JSON.stringify({ cniVersion: '0.3.1', name: 'cni-loopback', type: 'loopback' });
  const r = await runPlugin(`${a.binDir}/loopback`, a.env('ADD', 'l1', pod.path), conf);
  t.equal(r.code, 0, r.stdout);
  t.match(r.json, { cniVersion: '0.3.1', interfaces: [{ name: 'lo' }], ips: [{ version: '4', address: '127.0.0.1/8', interface: 0 }] });
  t.ok((await nl.links(pod.path)).find((l) => l.name === 'lo')?.up, 'lo is up');
  t.equal((await runPlugin(`${a.binDir}/loopback`, a.env('DEL', 'l1', ''), conf)).code, 0, 'DEL');
});
