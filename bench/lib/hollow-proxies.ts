// N hollow nodes' service proxies in one process (bench/network-programming.ts starts several,
// each with its own range of node indexes):
// each a real Proxier with its own client and watches, syncing into the in-memory nftables
// driver. Prints one JSON line per event on stdout:
//   {"ready":N}                                 every proxy has made its first sync
//   {"programmed":ip,"node":i,"at":epochMs}     node i committed a live endpoint with address ip
//   {"retired":ip,"node":i,"at":epochMs}        node i retired it
//   {"cpu":{"user":µs,"system":µs}}             answer to "cpu" on stdin
// Usage: node dist/bench/lib/hollow-proxies.js <kubeconfig> <count> <watched ip,...> [minSyncMs] [firstNode]
import { createInterface } from 'node:readline';
import { clientsetFromKubeconfig } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { HollowProxy } from '../../src/proxy/hollow.js';
import { DYING_MS } from '../../src/proxy/nft/ruleset.js';
import type { NftOp } from '../../src/nft/index.js';

const [kubeconfig, countArg, watchArg, minSyncArg, firstArg] = process.argv.slice(2);
if (!kubeconfig || !countArg) throw new Error('usage: hollow-proxies.js <kubeconfig> <count> <watched ip,...> [minSyncMs] [firstNode]');
const count = Number(countArg);
const first = Number(firstArg ?? 0);
const watched = new Set((watchArg ?? '').split(',').filter(Boolean));
const log = logger('hollow-proxy'); // the bench sets CAPSTAN_LOG_LEVEL=warn: thousands of proxies
const emit = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
/** performance.now() → wall-clock ms, the clock the bench stamps readiness with. */
const wall = (at: number) => performance.timeOrigin + at;

/** The watched addresses a transaction adds as live endpoints, and those it retires. */
function endpointChanges(ops: readonly NftOp[]): { added: Set<string>; retired: Set<string> } {
  const added = new Set<string>(), retired = new Set<string>();
  for (const op of ops) {
    if (op.op !== 'addElements' || !op.set.startsWith('endpoints-')) continue;
    for (const el of op.elements) {
      const expires = el.expiresMs ?? op.expiresMs;
      const ip = el.data?.[0];
      if (typeof ip === 'string' && watched.has(ip)) (expires === undefined || expires >= DYING_MS ? added : retired).add(ip);
    }
  }
  return { added, retired };
}

const proxies: HollowProxy[] = [];
for (let i = first; i < first + count; i++) {
  proxies.push(new HollowProxy({
    nodeName: `hollow-proxy-${i}`,
    clients: clientsetFromKubeconfig(kubeconfig, `capstan-hollow-proxy/${i}`),
    log,
    clusterCIDR: '10.244.0.0/16',
    ...(minSyncArg ? { minSyncPeriodMs: Number(minSyncArg) } : {}),
    onApplied: (ops, at) => {
      const { added, retired } = endpointChanges(ops);
      for (const ip of added) emit({ programmed: ip, node: i, at: wall(at) });
      for (const ip of retired) emit({ retired: ip, node: i, at: wall(at) });
    },
  }));
}
// Start in batches: a thousand initial lists and watches at once only queue in the API server.
for (let i = 0; i < proxies.length; i += 50) await Promise.all(proxies.slice(i, i + 50).map((p) => p.start()));
emit({ ready: count });

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'cpu') emit({ cpu: process.cpuUsage() });
});
const stop = async () => {
  await Promise.all(proxies.map((p) => p.stop()));
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());
