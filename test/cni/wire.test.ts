// Config and environment validation (CNI error codes), the plugin↔agent wire format, and
// the pod network's netlink shape.
import t from 'tap';
import { CNIError, CNI_ERROR, encodeRequest, parseArgs, parseEnv, parseNetConf, parseRequest, hostVethName, podNetworkOps, POD_ROUTE_PROTOCOL } from '../../src/network/index.js';

const conf = (o: Record<string, unknown>) => Buffer.from(JSON.stringify({ cniVersion: '1.0.0', name: 'capstan', type: 'capstan', ...o }));

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e instanceof CNIError ? e.code : -1;
  }
}

t.test('network config errors carry the spec codes', async (t) => {
  const cases: [string, Buffer, number | undefined][] = [
    ['valid', conf({ mtu: 1450, podCIDR: '10.1.0.0/24' }), undefined],
    ['not JSON', Buffer.from('{nope'), CNI_ERROR.decode],
    ['not an object', Buffer.from('[1]'), CNI_ERROR.decode],
    ['unknown version', conf({ cniVersion: '9.9.9' }), CNI_ERROR.incompatibleVersion],
    ['no name', conf({ name: '' }), CNI_ERROR.invalidConfig],
    ['other type', conf({ type: 'bridge' }), CNI_ERROR.invalidConfig],
    ['delegated ipam', conf({ ipam: { type: 'host-local' } }), CNI_ERROR.unsupportedField],
    ['bad podCIDR', conf({ podCIDR: '10.1.0.5/24' }), CNI_ERROR.invalidConfig],
    ['bad mtu', conf({ mtu: 'big' }), CNI_ERROR.invalidConfig],
    ['loopback', conf({ type: 'loopback' }), undefined],
  ];
  for (const [name, input, code] of cases) t.equal(codeOf(() => parseNetConf(input)), code, name);
});

t.test('environment errors are code 4', async (t) => {
  const env = { CNI_COMMAND: 'ADD', CNI_CONTAINERID: 'abc', CNI_NETNS: '/run/netns/x', CNI_IFNAME: 'eth0' };
  t.equal(codeOf(() => parseEnv(env)), undefined);
  t.equal(codeOf(() => parseEnv({ ...env, CNI_COMMAND: 'FROB' })), CNI_ERROR.invalidEnvironment);
  t.equal(codeOf(() => parseEnv({ ...env, CNI_CONTAINERID: '' })), CNI_ERROR.invalidEnvironment);
  t.equal(codeOf(() => parseEnv({ ...env, CNI_IFNAME: 'a-very-long-interface-name' })), CNI_ERROR.invalidEnvironment);
  t.equal(codeOf(() => parseEnv({ ...env, CNI_NETNS: '' })), CNI_ERROR.invalidEnvironment, 'ADD needs a netns');
  t.equal(codeOf(() => parseEnv({ ...env, CNI_COMMAND: 'DEL', CNI_NETNS: '' })), undefined, 'DEL does not');
  t.same(parseArgs('IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0'), { IgnoreUnknown: '1', K8S_POD_NAMESPACE: 'default', K8S_POD_NAME: 'web-0' });
});

t.test('wire format round trip', async (t) => {
  const req = { pid: 42, env: { CNI_COMMAND: 'ADD', CNI_ARGS: 'A=1;B=2' }, stdin: Buffer.from('{"x":"a\\n\\nb"}\n\n') };
  const back = parseRequest(encodeRequest(req));
  t.equal(back.pid, 42);
  t.same(back.env, req.env);
  t.equal(back.stdin.toString(), req.stdin.toString(), 'blank lines in the body survive');
  t.equal(codeOf(() => parseRequest(Buffer.from('OTHER 2\n\n{}'))), CNI_ERROR.incompatibleVersion, 'an old plugin binary is told apart');
});

t.test('host veth names and the pod network operations', async (t) => {
  const name = hostVethName({ namespace: 'default', name: 'web' }, 'c1');
  t.match(name, /^cap[0-9a-f]{11}$/);
  t.equal(name, hostVethName({ namespace: 'default', name: 'web' }, 'c2'), 'stable per pod, not per sandbox');
  t.not(name, hostVethName({ namespace: 'other', name: 'web' }, 'c1'));
  t.match(hostVethName({}, 'c1'), /^cap[0-9a-f]{11}$/, 'container ID without pod names');
  const ops = podNetworkOps({ podIP: '10.1.0.7', hostVeth: name, ifName: 'eth0', netns: '/run/netns/p', podMac: '02:00:00:00:00:01', mtu: 1450 });
  t.match(ops.host[0], { op: 'linkAddVeth', name, peerName: 'eth0', peerNetns: '/run/netns/p', mac: 'ee:ee:ee:ee:ee:ee', mtu: 1450 });
  t.match(ops.host.at(-1), { op: 'routeReplace', dst: '10.1.0.7/32', dev: name, protocol: POD_ROUTE_PROTOCOL });
  t.ok(ops.host.some((o) => o.op === 'sysctlWrite' && o.path === `net/ipv4/conf/${name}/proxy_arp` && o.value === '1'));
  t.ok(ops.host.findIndex((o) => o.op === 'linkSet' && o.up) < ops.host.findIndex((o) => o.op === 'routeReplace'), 'link up before its route');
  t.same(ops.pod.map((o) => o.op), ['linkSet', 'addrAdd', 'routeAdd', 'routeAdd']);
  t.match(ops.pod[3], { dst: 'default', via: '169.254.1.1', dev: 'eth0' });
});
