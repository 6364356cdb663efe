// The addon keeps per-environment state only: it loads and works in worker threads as well
// as on the main thread, concurrently, and a worker exiting does not disturb the others.
import t from 'tap';
import { Worker } from 'node:worker_threads';
import { createNetlink } from '../../src/netlink/index.js';
import { isRoot, newNamespace } from './fixtures/netns.js';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const addon = require(workerData.addon);
addon.netlinkBatch(workerData.netns, [{ op: 'linkList' }]).then((r) => parentPort.postMessage(r[0].links.map((l) => l.name)));
`;

t.test('addon in worker threads', { skip: !isRoot && 'needs root' }, async (t) => {
  const ns = await newNamespace(t, 'wrk');
  const nl = createNetlink('addon');
  await nl.apply(ns.path, [{ op: 'linkAddVeth', name: 'w0', peerName: 'w1' }]);
  const addon = new URL('../../../build/Release/capstan.node', import.meta.url).pathname;
  const runs = Array.from({ length: 3 }, () => new Promise<string[]>((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { addon, netns: ns.path } });
    w.once('message', (names) => { resolve(names); void w.terminate(); });
    w.once('error', reject);
  }));
  const mainThread = nl.links(ns.path);
  for (const names of await Promise.all(runs)) t.same([...names].sort(), ['lo', 'w0', 'w1'], 'a worker lists the namespace');
  t.same((await mainThread).map((l) => l.name).sort(), ['lo', 'w0', 'w1'], 'the main thread at the same time');
});
