// The test run's egress guard: an nftables table of its own that records every packet a test
// sends off the machine — out of an interface of a default route — by destination address.
// Locally sent packets count when their socket belongs to the run's cgroup (the machine has
// traffic of its own on the same interface); forwarded ones (from test namespaces and pods)
// always count. It only counts: it never drops, and it touches no other table.
// Shared by scripts/test.mjs and the guard's own test (test/scripts/egress-guard.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';

export const TABLE_PREFIX = 'capstan-test-egress';
/** nft resolves `socket cgroupv2` paths under this directory. */
const NFT_CGROUP_BASE = '/sys/fs/cgroup';

function run(cmd, args, { netns, input } = {}) {
  const [file, argv] = netns ? ['nsenter', [`--net=/run/netns/${netns}`, cmd, ...args]] : [cmd, args];
  return execFileSync(file, argv, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Why the guard cannot run here, or null. */
export function unavailable() {
  if (process.getuid?.() !== 0) return 'needs root (nftables, cgroups)';
  try { run('nft', ['--version']); } catch { return 'nft is not installed'; }
  const mount = cgroup2Mount();
  if (!mount) return 'no cgroup2 hierarchy is mounted';
  if (relative(NFT_CGROUP_BASE, mount).startsWith('..')) return `cgroup2 is mounted at ${mount}, outside ${NFT_CGROUP_BASE} where nft looks`;
  return null;
}

export function cgroup2Mount() {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [pre, post] = line.split(' - ');
    if (post?.startsWith('cgroup2 ')) return pre.split(' ')[4];
  }
  return null;
}

/** This process's cgroup2 path ("/" or "/a/b"). */
function ownCgroup2() {
  const line = readFileSync('/proc/self/cgroup', 'utf8').split('\n').find((l) => l.startsWith('0::'));
  return line ? line.slice(3) : '/';
}

/** The directory of this process's cgroup2, where makeCgroup() makes new ones. */
export function ownCgroupDir() {
  return join(cgroup2Mount(), ownCgroup2());
}

/**
 * A new cgroup2 under this process's own, for a tree of processes to be matched by. `nft` is
 * its path as `socket cgroupv2` takes it, `level` its depth below the hierarchy's root.
 */
export function makeCgroup(name) {
  const mount = cgroup2Mount();
  const parentRel = ownCgroup2();
  const rel = join(parentRel, name);
  const dir = join(mount, rel);
  mkdirSync(dir);
  return {
    dir,
    parent: join(mount, parentRel),
    nft: relative(NFT_CGROUP_BASE, dir),
    level: rel.split('/').filter(Boolean).length,
    /** Moves `pid` (default: this process) in; its children from now on start inside. */
    enter(pid = process.pid) { writeFileSync(join(dir, 'cgroup.procs'), String(pid)); },
    /** Moves every process still inside (also in sub-cgroups) back to the parent and removes the cgroup. */
    remove() { removeTree(dir, join(mount, parentRel)); },
  };
}

function removeTree(dir, parent) {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeTree(join(dir, e.name), parent);
  for (let tries = 0; tries < 20; tries++) {
    let pids = [];
    try { pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean); } catch { return; }
    for (const p of pids) { try { writeFileSync(join(parent, 'cgroup.procs'), p); } catch { /* exited */ } }
    try { rmdirSync(dir); return; } catch (e) { if (e.code === 'ENOENT') return; if (e.code !== 'EBUSY') throw e; }
  }
  rmdirSync(dir);
}

/** The interfaces of the default routes (IPv4 and IPv6, multipath included) in `netns` or here. */
export function defaultRouteInterfaces(netns) {
  const devs = new Set();
  for (const family of ['-4', '-6']) {
    let routes = [];
    try { routes = JSON.parse(run('ip', ['-j', family, 'route', 'show', 'default'], { netns }) || '[]'); } catch { /* no IPv6 */ }
    for (const r of routes) {
      if (r.dev) devs.add(r.dev);
      for (const h of r.nexthops ?? []) if (h.dev) devs.add(h.dev);
    }
  }
  return [...devs].sort();
}

export function tableName() {
  return `${TABLE_PREFIX}-${randomBytes(3).toString('hex')}`;
}

const quote = (s) => JSON.stringify(String(s));

/**
 * The guard's table. Counting sets (one element per destination, with its own counter)
 * record what left; the named counter `total` also counts what a full set could not record.
 */
export function egressRuleset({ table, uplinks, cgroup }) {
  if (!uplinks.length) throw new Error('no uplink interface to watch');
  const oif = `oifname { ${uplinks.map(quote).join(', ')} }`;
  return `table inet ${table} {
  counter total { }
  set dst4 { type ipv4_addr; size 65535; flags dynamic; }
  set dst6 { type ipv6_addr; size 65535; flags dynamic; }
  chain record {
    update @dst4 { ip daddr counter }
    update @dst6 { ip6 daddr counter }
    counter name "total"
  }
  chain output {
    type filter hook output priority 0; policy accept;
    ${oif} socket cgroupv2 level ${cgroup.level} ${quote(cgroup.nft)} jump record
  }
  chain forward {
    type filter hook forward priority 0; policy accept;
    ${oif} jump record
  }
}
`;
}

export function installGuard({ table, uplinks, cgroup, netns }) {
  run('nft', ['-f', '-'], { netns, input: egressRuleset({ table, uplinks, cgroup }) });
}

/** What left so far: one entry per destination address, and the total packet count. */
export function readEgress({ table, netns }) {
  const out = JSON.parse(run('nft', ['-j', 'list', 'table', 'inet', table], { netns }));
  const destinations = [];
  let packets = 0;
  for (const o of out.nftables) {
    if (o.set && (o.set.name === 'dst4' || o.set.name === 'dst6')) {
      for (const e of o.set.elem ?? []) {
        const el = e.elem ?? e;
        destinations.push({ address: el.val, packets: el.counter?.packets ?? 0, bytes: el.counter?.bytes ?? 0 });
      }
    }
    if (o.counter && o.counter.name === 'total') packets = o.counter.packets;
  }
  return { packets, destinations: destinations.sort((a, b) => b.packets - a.packets) };
}

export function removeGuard({ table, netns }) {
  try { run('nft', ['delete', 'table', 'inet', table], { netns }); } catch (e) {
    if (!/No such file or directory/.test(String(e.stderr ?? e.message))) throw e;
  }
}

/**
 * For the test runner: a cgroup the caller's process tree moves into and the table watching
 * it in this namespace. Returns { skip } with the reason when it cannot run here.
 */
export function startGuard() {
  const why = unavailable();
  if (why) return { skip: why };
  const uplinks = defaultRouteInterfaces();
  if (!uplinks.length) return { skip: 'no default route: no interface to watch' };
  let cgroup;
  try {
    cgroup = makeCgroup(`capstan-test-${process.pid}-${randomBytes(3).toString('hex')}`);
  } catch (e) {
    return { skip: `cannot make the run's cgroup: ${e.message}` };
  }
  const table = tableName();
  try {
    installGuard({ table, uplinks, cgroup });
    cgroup.enter();
  } catch (e) {
    removeGuard({ table });
    cgroup.remove();
    return { skip: `cannot install the guard: ${String(e.stderr || e.message).trim()}` };
  }
  let stopped = false;
  return {
    table, uplinks, cgroup,
    read: () => readEgress({ table }),
    /** Idempotent and synchronous, so it also runs from an 'exit' handler. */
    stop() {
      if (stopped) return;
      stopped = true;
      try { cgroup.remove(); } finally { removeGuard({ table }); }
    },
  };
}
