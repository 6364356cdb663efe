// ADD/DEL/CHECK against the in-memory netlink fake: results, idempotence, error replies,
// a pod replaced by a newer sandbox, and the GC pass. No root needed.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNetlink, FakeNetlink } from '../../src/netlink/index.js';
import { logger } from '../../src/log/index.js';
import { IPAM, collectGarbage, handleRequest, parseCidr, type CNIHandlerContext } from '../../src/network/index.js';

const quiet = logger('test', {}, () => undefined);

function setup(t: { teardown(fn: () => void): void }, podCIDR: string | null = '10.9.0.0/24') {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-cnih-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const netlink = createNetlink('fake');
  const fake = netlink.driver as FakeNetlink;
  fake.addNamespace('/run/netns/node');
  const ctx: CNIHandlerContext = { netlink, ipam: new IPAM(dir), hostNetns: '/run/netns/node', podCIDR: () => (podCIDR ? parseCidr(podCIDR) : undefined), mtu: 1500, log: quiet };
  return { ctx, fake, netlink };
}

const stdin = (o: Record<string, unknown> = {}) => Buffer.from(JSON.stringify({ cniVersion: '1.0.0', name: 'capstan', type: 'capstan', ...o }));
function call(ctx: CNIHandlerContext, command: string, id: string, netns: string, o: Record<string, unknown> = {}, args = '') {
  return handleRequest(ctx, { env: { CNI_COMMAND: command, CNI_CONTAINERID: id, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_ARGS: args }, stdin: stdin(o) });
}
const json = (s: string) => JSON.parse(s) as Record<string, any>;

t.test('ADD returns a 1.0.0 result and builds the pod network; CHECK passes; DEL twice succeeds', async (t) => {
  const { ctx, fake, netlink } = setup(t);
  fake.addNamespace('/run/netns/p1');
  const add = await call(ctx, 'ADD', 'c1', '/run/netns/p1', {}, 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=web');
  t.equal(add.code, 0, add.stdout);
  const r = json(add.stdout);
  t.equal(r.cniVersion, '1.0.0');
  t.match(r.interfaces, [{ name: /^cap[0-9a-f]{11}$/, mac: 'ee:ee:ee:ee:ee:ee' }, { name: 'eth0', sandbox: '/run/netns/p1' }]);
  t.same(r.ips, [{ address: '10.9.0.2/32', interface: 1 }]);
  t.same(r.routes, [{ dst: '0.0.0.0/0', gw: '169.254.1.1' }]);
  const hostVeth = r.interfaces[0].name as string;
  t.ok((await netlink.routes('/run/netns/node', 4, { protocol: 80 })).some((x) => x.dst === '10.9.0.2/32' && x.dev === hostVeth));
  t.ok((await netlink.addrs('/run/netns/p1', 4)).some((a) => a.dev === 'eth0' && a.address === '10.9.0.2'));
  t.equal((await call(ctx, 'CHECK', 'c1', '/run/netns/p1')).code, 0, 'CHECK passes');
  t.same(await call(ctx, 'DEL', 'c1', '/run/netns/p1'), { code: 0, stdout: '' });
  t.notOk((await netlink.links('/run/netns/node')).some((l) => l.name === hostVeth), 'host veth gone');
  t.same(await call(ctx, 'DEL', 'c1', ''), { code: 0, stdout: '' }, 'second DEL with an empty netns');
  t.equal(ctx.ipam.list().length, 0);
});

t.test('older CNI versions get ips[].version', async (t) => {
  const { ctx, fake } = setup(t);
  fake.addNamespace('/run/netns/p1');
  const r = json((await call(ctx, 'ADD', 'c1', '/run/netns/p1', { cniVersion: '0.4.0' })).stdout);
  t.same(r.ips, [{ version: '4', address: '10.9.0.2/32', interface: 1 }]);
});

t.test('error replies', async (t) => {
  const { ctx, fake } = setup(t, null);
  fake.addNamespace('/run/netns/p1');
  const noBlock = await call(ctx, 'ADD', 'c1', '/run/netns/p1');
  t.equal(noBlock.code, 1);
  t.match(json(noBlock.stdout), { cniVersion: '1.0.0', code: 11, msg: /podCIDR/ }, 'no block yet: try again later');
  t.match(json((await call(ctx, 'ADD', 'c1', '/run/netns/p1', { cniVersion: '0.4.0', podCIDR: 'x' })).stdout), { cniVersion: '0.4.0', code: 7 });
  t.match(json((await call(ctx, 'CHECK', 'nope', '/run/netns/p1', { podCIDR: '10.9.0.0/24' })).stdout), { code: 3 }, 'CHECK of an unknown container');
  t.match(json((await call(ctx, 'ADD', 'c2', '/run/netns/gone', { podCIDR: '10.9.0.0/24' })).stdout), { code: 999, details: /ENOENT/ }, 'kernel failure');
  t.equal(ctx.ipam.list().length, 0, 'a failed ADD releases its address');
  const bad = await handleRequest(ctx, { env: { CNI_COMMAND: 'ADD' }, stdin: Buffer.from('not json') });
  t.match(json(bad.stdout), { code: 4 }, 'environment is checked first');
});

t.test('a newer sandbox of the same pod takes the veth name over; the old DEL leaves it alone', async (t) => {
  const { ctx, fake, netlink } = setup(t);
  fake.addNamespace('/run/netns/p1');
  fake.addNamespace('/run/netns/p2');
  const args = 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=web';
  const first = json((await call(ctx, 'ADD', 'old', '/run/netns/p1', {}, args)).stdout);
  const second = await call(ctx, 'ADD', 'new', '/run/netns/p2', {}, args);
  t.equal(second.code, 0, second.stdout);
  const veth = first.interfaces[0].name;
  t.equal(json(second.stdout).interfaces[0].name, veth, 'same name');
  t.equal((await call(ctx, 'DEL', 'old', '')).code, 0);
  t.ok((await netlink.links('/run/netns/node')).some((l) => l.name === veth), 'the new sandbox keeps its veth');
  t.equal((await call(ctx, 'CHECK', 'new', '/run/netns/p2')).code, 0, 'and its network checks out');
});

t.test('GC reclaims records of sandboxes the runtime no longer has, after the grace period', async (t) => {
  const { ctx, fake, netlink } = setup(t);
  for (const p of ['p1', 'p2', 'p3']) fake.addNamespace(`/run/netns/${p}`);
  for (const [i, p] of ['p1', 'p2', 'p3'].entries()) t.equal((await call(ctx, 'ADD', `c${i + 1}`, `/run/netns/${p}`)).code, 0);
  const now = Date.now();
  const gctx = { ipam: ctx.ipam, netlink, hostNetns: ctx.hostNetns, log: quiet };
  t.same(await collectGarbage(gctx, async () => ['c1'], now, 60_000), [], 'young records are kept');
  const gone = await collectGarbage(gctx, async () => ['c1'], now + 61_000, 60_000);
  t.same(gone.map((a) => a.containerID).sort(), ['c2', 'c3']);
  t.same(ctx.ipam.list().map((a) => a.containerID), ['c1']);
  t.equal((await netlink.routes('/run/netns/node', 4, { protocol: 80 })).length, 1, 'their veths and routes went too');
});
