// Pod network setup, addon vs `ip` commands, side by side in one run: for each pod a veth
// pair into a fresh namespace (renamed eth0), the /32 address, two routes in the pod, the
// host /32 route and the proxy-ARP/forwarding sysctls. Namespace creation is not timed.
//   node dist/bench/netlink-podsetup.js [pods=200]
import { createNetlink, type Netlink, type NetlinkOp } from '../src/netlink/index.js';
import { addNamespace, removeNamespace, type BenchNamespace } from './lib/netns.js';
import { fmtMs, fmtRatio, summarize, timeMs } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, Recorder, runIfMain, type Progress } from './lib/suite.js';
import { command, root } from './lib/prereq.js';
import { loadavg } from 'node:os';

let PODS = 200;

function podOps(i: number, pod: BenchNamespace): { host: NetlinkOp[]; pod: NetlinkOp[] } {
  const ip = `10.244.${i >> 8}.${i & 255}`;
  const host = `cali${i}`, tmp = `tmp${i}`;
  return {
    host: [
      { op: 'linkAddVeth', name: host, peerName: tmp, peerNetns: pod.path, mac: 'ee:ee:ee:ee:ee:ee' },
      { op: 'linkSet', name: host, up: true },
      { op: 'routeAdd', dst: `${ip}/32`, dev: host, scope: 'link', protocol: 80 },
      { op: 'sysctlWrite', path: `net/ipv4/conf/${host}/proxy_arp`, value: '1' },
      { op: 'sysctlWrite', path: `net/ipv4/neigh/${host}/proxy_delay`, value: '0' },
    ],
    pod: [
      { op: 'linkSet', name: tmp, newName: 'eth0' },
      { op: 'linkSet', name: 'eth0', up: true },
      { op: 'addrAdd', dev: 'eth0', address: `${ip}/32` },
      { op: 'routeAdd', dst: '169.254.1.1/32', dev: 'eth0', scope: 'link' },
      { op: 'routeAdd', dst: 'default', via: '169.254.1.1', dev: 'eth0' },
    ],
  };
}

async function setupPod(nl: Netlink, node: BenchNamespace, i: number, pod: BenchNamespace): Promise<void> {
  const ops = podOps(i, pod);
  await nl.apply(node.path, ops.host);
  await nl.apply(pod.path, ops.pod);
}

async function main(progress: Progress) {
  const impls = { addon: createNetlink('addon'), ip: createNetlink('ip'), 'ip-batch': createNetlink('ip-batch') };
  const node = await addNamespace();
  const samples: Record<keyof typeof impls, number[]> = { addon: [], ip: [], 'ip-batch': [] };
  try {
    await impls.addon.apply(node.path, [
      { op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' },
      { op: 'linkAddVeth', name: 'up0', peerName: 'up1' },
      { op: 'linkSet', name: 'up0', up: true },
      { op: 'routeAdd', dst: 'default', dev: 'up0', scope: 'link' },
    ]);
    for (let i = 0; i < PODS; i++) {
      if (i % 10 === 0) progress(`pod ${i + 1}/${PODS}`);
      // Alternate which driver goes first so drift in the machine hits both alike.
      const names = Object.keys(impls) as (keyof typeof impls)[];
      const order = names.map((_, k) => names[(k + i) % names.length]!);
      for (const impl of order) {
        const idx = 3 * i + names.indexOf(impl);
        const pod = await addNamespace();
        samples[impl].push(await timeMs(() => setupPod(impls[impl], node, idx, pod)));
        await removeNamespace(pod);
      }
    }
  } finally {
    await removeNamespace(node);
  }
  const a = summarize(samples.addon), b = summarize(samples.ip), c = summarize(samples['ip-batch']);
  const body = `Per pod: veth into a fresh namespace renamed eth0, /32, two pod routes, host /32 route, proxy_arp and proxy_delay sysctls, links up (10 operations; the addon sends them as 2 batches; the fallback runs 10 \`ip\`/\`sysctl\` processes, or with \`ip -batch\` 2 \`ip -batch\` and 2 \`sysctl\` processes). ${PODS} pods per driver, interleaved. Load from other work on this shared 2-core VM (load average ${loadavg()[0]!.toFixed(1)} at the end) inflates every column, the tails most.

${table(['driver', 'p50', 'p99', 'mean', 'max'], [
    ['addon (2 batches)', fmtMs(a.p50), fmtMs(a.p99), fmtMs(a.mean), fmtMs(a.max)],
    ['ip commands', fmtMs(b.p50), fmtMs(b.p99), fmtMs(b.mean), fmtMs(b.max)],
    ['ip -batch', fmtMs(c.p50), fmtMs(c.p99), fmtMs(c.mean), fmtMs(c.max)],
    ['ratio ip/addon', fmtRatio(b.p50, a.p50), fmtRatio(b.p99, a.p99), fmtRatio(b.mean, a.mean), ''],
    ['ratio ip -batch/addon', fmtRatio(c.p50, a.p50), fmtRatio(c.p99, a.p99), fmtRatio(c.mean, a.mean), ''],
  ])}
`;
  const rec = new Recorder();
  const figure = 'pod network setup';
  const addon = rec.metric({ figure, system: 'capstan addon', unit: 'ms', samples: samples.addon });
  for (const [impl, name] of [['ip', 'ip commands'], ['ip-batch', 'ip -batch']] as const) {
    const m = rec.metric({ figure, system: name, baseline: true, unit: 'ms', samples: samples[impl] });
    rec.ratio(addon, m, 'p50');
    rec.ratio(addon, m, 'p99');
  }
  return rec.output(writeReport('netlink-podsetup', 'Pod network setup: addon vs ip commands', body));
}

export const suite = defineSuite({
  name: 'netlink',
  title: 'Pod network setup: addon vs ip commands',
  params: { full: { pods: 200 }, quick: { pods: 10 } },
  requires: [root, command('ip', 'iproute2')],
  fromArgv: (argv, full) => ({ pods: Number(argv[0] ?? full.pods) }),
  run: (p, progress) => { PODS = p.pods; return main(progress); },
});
runIfMain(import.meta.url, suite);
