// Kernel errors come back as errno + code with the failing op's index; later ops are
// skipped; bad arguments are TypeErrors before anything reaches the kernel.
import t from 'tap';
import { createNetlink, FakeNetlink, NetlinkError, type Netlink } from '../../src/netlink/index.js';
import { isRoot, newNamespace } from './fixtures/netns.js';

async function behaviour(t: import('tap').Test, nl: Netlink, netns: string) {
  const results = await nl.batch(netns, [
    { op: 'linkAddVeth', name: 'va', peerName: 'vb' },
    { op: 'linkDel', name: 'does-not-exist' },
    { op: 'linkSet', name: 'va', up: true },
  ]);
  t.match(results, [{ status: 'ok' }, { status: 'error', code: 'ENODEV', errno: 19 }, { status: 'skipped' }], 'per-op results');
  const err = await nl.apply(netns, [{ op: 'linkAddVeth', name: 'va', peerName: 'vc' }]).catch((e) => e);
  t.ok(err instanceof NetlinkError, 'apply throws NetlinkError');
  t.match(err, { code: 'EEXIST', errno: 17, index: 0, op: 'linkAddVeth' }, 'EEXIST for a duplicate link');
  const missing = await nl.apply(netns, [{ op: 'routeDel', dst: '10.99.0.0/24' }]).catch((e) => e);
  t.match(missing, { code: 'ESRCH', errno: 3 }, 'ESRCH for deleting a missing route');
  const cont = await nl.batch(netns, [{ op: 'linkDel', name: 'nope' }, { op: 'linkDel', name: 'va' }], { continueOnError: true });
  t.match(cont, [{ status: 'error' }, { status: 'ok' }], 'continueOnError runs the rest');
}

for (const impl of ['addon', 'ip', 'ip-batch'] as const) {
  t.test(`netlink errors with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const ns = await newNamespace(t, 'err');
    await behaviour(t, createNetlink(impl), ns.path);
  });
}

t.test('netlink errors with the fake', async (t) => {
  const fake = new FakeNetlink();
  fake.addNamespace('/run/netns/x');
  await behaviour(t, createNetlink(fake), '/run/netns/x');
});

t.test('addon: bad arguments are TypeErrors, not crashes', { skip: !isRoot && 'needs root' }, async (t) => {
  const nl = createNetlink('addon');
  const bad: unknown[] = [
    [{ op: 'explode' }],
    [{ op: 'addrAdd', dev: 'eth0', address: '300.1.1.1/24' }],
    [{ op: 'addrAdd', dev: 'eth0', address: '10.0.0.1/33' }],
    [{ op: 'linkAddVeth', name: 'x'.repeat(20), peerName: 'y' }],
    [{ op: 'linkSet', name: 'eth0', mac: 'not-a-mac' }],
    [{ op: 'linkAddVxlan', name: 'v', vni: 1 << 24 }],
    [{ op: 'sysctlWrite', path: '../../etc/passwd', value: 'x' }],
    [{ op: 'routeAdd', dst: '10.0.0.0/8', metric: -1 }],
    [{ op: 'routeAdd', dst: '10.0.0.0/8', type: 'nat' }],
    [{ op: 'routeAdd', dst: '10.0.0.0/8', type: 'unreachable', dev: 'lo' }],
    [{ op: 'routeAdd', dst: '10.0.0.0/8', type: 'blackhole', via: '127.0.0.2' }],
    [null],
    'not an array',
  ];
  for (const ops of bad) {
    await t.rejects(async () => nl.batch(null, ops as never), TypeError, `TypeError for ${JSON.stringify(ops)}`);
  }
  await t.rejects(async () => nl.batch('relative/path', [{ op: 'linkList' }]), TypeError, 'relative netns path');
  await t.rejects(nl.batch('/run/netns/capstan-t-missing-ns', [{ op: 'linkList' }]), { code: 'ENOENT', errno: 2 }, 'missing namespace: ENOENT');
});
