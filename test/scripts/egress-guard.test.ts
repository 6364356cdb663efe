// The test runner's egress guard (scripts/egress-guard.mjs), its real nftables rules in a
// world of namespaces of our own (test/helpers/fake-uplink.ts): packets to documentation
// addresses go out of the fake machine's uplink — none of them can leave this machine — and
// must be recorded; loopback, local and pod-side traffic, and sockets outside the watched
// cgroup, must not.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Guard from '../../scripts/egress-guard.mjs';
import { eventually } from '../helpers/kubectl.js';
import { fakeUplinkWorld } from '../helpers/fake-uplink.js';

const guardURL = pathToFileURL(fileURLToPath(new URL('../../../scripts/egress-guard.mjs', import.meta.url))).href;
const guard = (await import(guardURL)) as typeof Guard;
const why = guard.unavailable();
const TABLE_PREFIX_RE = new RegExp(guard.TABLE_PREFIX);

t.test('the egress guard records what leaves through the uplink, and only that', { skip: why ?? false, timeout: 60_000 }, async (t) => {
  const { id, h, p } = fakeUplinkWorld(t);
  const uplinks = guard.defaultRouteInterfaces(h);
  t.same(uplinks, ['up0'], 'the uplink is found as the default routes\' interface');
  const cgroup = guard.makeCgroup(`capstan-egress-test-${id}`);
  t.teardown(() => cgroup.remove());
  const table = guard.tableName();
  guard.installGuard({ table, uplinks, cgroup, netns: h });
  t.teardown(() => guard.removeGuard({ table, netns: h }));

  // One UDP datagram per line; bash's /dev/udp connects a socket and writes.
  const send = (netns: string, targets: string[], inCgroup: boolean) => execFileSync('nsenter', [`--net=/run/netns/${netns}`, 'bash', '-c',
    [...(inCgroup ? [`echo $$ > ${cgroup.dir}/cgroup.procs`] : []), ...targets.map((a) => `{ echo x > /dev/udp/${a}/9; } 2>/dev/null || true`)].join('\n')]);

  // Not counted: loopback, h's own address, the pod link — from the watched cgroup;
  // and a socket outside it, even through the uplink; and a pod talking to h and, forwarded,
  // to the other pod.
  send(h, ['127.0.0.1', '::1', '203.0.113.1', '172.31.0.2'], true);
  send(h, ['198.51.100.8'], false);
  send(p, ['172.31.0.1', '172.31.0.6'], false);
  // Counted: through the uplink from the watched cgroup (routed and on-link, IPv4 and IPv6),
  // and forwarded out of it from the pod (whatever its cgroup).
  send(h, ['198.51.100.7', '198.51.100.7', '2001:db8:ffff::7', '203.0.113.2'], true);
  send(p, ['198.51.100.9'], false);

  let seen: Guard.Egress = { packets: 0, destinations: [] };
  await eventually(() => { seen = guard.readEgress({ table, netns: h }); return seen.packets >= 5; }, 10_000, 'five packets recorded');
  t.same(seen.destinations.map((d) => `${d.address} ${d.packets}`).sort(),
    ['198.51.100.7 2', '198.51.100.9 1', '2001:db8:ffff::7 1', '203.0.113.2 1'], 'each destination that left, with its packet count');
  t.equal(seen.packets, 5, 'the total counts exactly those');
  t.ok(seen.destinations.every((d) => d.bytes > 0), 'bytes are counted too');

  guard.removeGuard({ table, netns: h });
  const left = execFileSync('nsenter', [`--net=/run/netns/${h}`, 'nft', 'list', 'tables'], { encoding: 'utf8' });
  t.notMatch(left, table, 'the table is gone after removal');
  cgroup.remove();
  t.notOk(existsSync(cgroup.dir), 'the cgroup is gone');
});


// The runner itself, run inside h (whose default route is the fake uplink): a test that
// sends one datagram to a documentation address fails the run, one that stays on loopback
// does not; either way the runner's table and cgroup are gone afterwards.
t.test('scripts/test.mjs reports a packet that left as a failed result', { skip: why ?? false, timeout: 120_000 }, async (t) => {
  const { h } = fakeUplinkWorld(t);
  const repo = fileURLToPath(new URL('../../../', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'capstan-egress-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const runner = (target: string) => {
    const file = join(dir, `send-${target.replace(/\W/g, '-')}.test.mjs`);
    writeFileSync(file, `import { createSocket } from 'node:dgram';
const s = createSocket('udp4');
s.send('x', 9, ${JSON.stringify(target)}, () => { s.close(); console.log('TAP version 14\\nok 1 - sent\\n1..1'); });
`);
    const r = spawnSync('nsenter', [`--net=/run/netns/${h}`, process.execPath, 'scripts/test.mjs', file], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, lines: r.stdout.trimEnd().split('\n') };
  };
  const tables = () => execFileSync('nsenter', [`--net=/run/netns/${h}`, 'nft', 'list', 'tables'], { encoding: 'utf8' });
  const ours = () => readdirSync(guard.ownCgroupDir()).filter((e) => e.startsWith('capstan-test-'));
  const before = ours();

  const out = runner('198.51.100.7');
  t.match(out.lines.join('\n'), /^not ok - no packet left the machine: 1 packet\(s\) out of up0 to 198\.51\.100\.7 \(1 packet\)$/m, 'the guard names the destination');
  t.equal(out.lines.at(-1), '1 passed, 1 failed', 'and counts as a failed test in the summary');
  t.equal(out.code, 1, 'the run fails');

  const local = runner('127.0.0.1');
  t.match(local.lines.join('\n'), /^ok - no packet left the machine \(watched up0\)$/m);
  t.equal(local.lines.at(-1), '2 passed, 0 failed');
  t.equal(local.code, 0);

  t.notMatch(tables(), TABLE_PREFIX_RE, 'no guard table left in the namespace');
  t.same(ours(), before, 'no runner cgroup left');
});
