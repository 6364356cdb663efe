// Outgoing NAT (Calico's natOutgoing) with real nftables and real namespaces. Node "n" has
// 10.0.9.11/24 towards namespace "o" (10.0.9.1), which has no route to pod addresses — like
// the lab's control plane or a LAN. Two pods on n made with the CNI's own ops; the agent runs
// standalone (--pod-cidr) with --cluster-cidr 10.244.0.0/16 over the addon.
import t from 'tap';
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { logger } from '../../src/log/index.js';
import { createNetlink } from '../../src/netlink/index.js';
import { NetworkAgent, nodeNetworkOps, podNetworkOps, randomPodMac } from '../../src/network/index.js';
import { createNftDriver } from '../../src/nft/index.js';
import { inNs, isRoot, newNamespace, ping, spawnInNs, type Namespace } from '../native/fixtures/netns.js';

const nl = createNetlink('addon');
const nft = createNftDriver('addon');
const ip = (ns: Namespace, ...args: string[]) => execa('ip', ['-n', ns.name, ...args]);
const nftList = async (ns: Namespace) => (await inNs(ns, 'nft', ['-a', 'list', 'table', 'ip', 'capstan-nat']));

/** A TCP server in `ns` on port 7070 that answers each connection with the peer's address. */
async function peerEcho(t: { teardown(fn: () => unknown): void }, ns: Namespace, address: string): Promise<void> {
  const script = `require('node:net').createServer((c) => c.end(c.remoteAddress)).listen(7070, process.argv[1], () => console.log('listening'));`;
  const child = spawnInNs(t, ns, process.execPath, ['-e', script, address]);
  await new Promise<void>((res, rej) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('listening')) res(); });
    void child.then((r) => rej(new Error(`echo server exited: ${r.stderr}`)));
  });
}

/** From `ns`: the address the server at `address`:7070 saw us as ('' when no connection). */
async function seenAs(ns: Namespace, address: string): Promise<string> {
  const script = `const c = require('node:net').connect({ host: process.argv[1], port: 7070 }); let s = '';
    c.on('data', (d) => s += d).on('end', () => { console.log(s); process.exit(0); }).on('error', (e) => { console.log(''); process.exit(0); });
    setTimeout(() => { console.log(''); process.exit(0); }, 3000).unref();`;
  return (await inNs(ns, process.execPath, ['-e', script, address])).stdout.trim();
}

t.test('pods reach addresses outside the cluster CIDR with the node\'s address; pod to pod keeps its own; reset removes the table', { skip: !isRoot && 'needs root' }, async (t) => {
  const o = await newNamespace(t, 'nato');
  const n = await newNamespace(t, 'natn');
  const pods = [await newNamespace(t, 'natp1'), await newNamespace(t, 'natp2')];
  const podIPs = ['10.244.1.2', '10.244.1.3'];
  await ip(o, 'link', 'add', 'o-n', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', n.name);
  await ip(o, 'addr', 'add', '10.0.9.1/24', 'dev', 'o-n');
  await ip(o, 'link', 'set', 'o-n', 'up');
  await ip(n, 'addr', 'add', '10.0.9.11/24', 'dev', 'eth0');
  await ip(n, 'link', 'set', 'eth0', 'up');
  // A node has a default route (proxy ARP answers for the pods' gateway only with one).
  await ip(n, 'route', 'add', 'default', 'via', '10.0.9.1');
  for (const [i, pod] of pods.entries()) {
    const p = podNetworkOps({ podIP: podIPs[i]!, hostVeth: `capnat${i}`, ifName: 'eth0', netns: pod.path, podMac: randomPodMac(), mtu: 1500 });
    await nl.apply(n.path, [...nodeNetworkOps(), ...p.host]);
    await nl.apply(pod.path, p.pod);
  }
  await peerEcho(t, o, '10.0.9.1');
  await peerEcho(t, pods[1]!, podIPs[1]!);

  t.equal(await seenAs(pods[0]!, podIPs[1]!), podIPs[0], 'pod to pod works before the agent runs');
  t.equal(await seenAs(pods[0]!, '10.0.9.1'), '', 'without outgoing NAT the outside never answers the pod (no route back to 10.244.0.0/16)');

  const dir = mkdtempSync(join(tmpdir(), 'capstan-nat-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const agent = (natOutgoing: boolean) => new NetworkAgent({
    netlink: nl, nft, hostNetns: n.path, stateDir: dir, socket: join(dir, 'cni.sock'), podCIDR: '10.244.1.0/24', clusterCIDR: '10.244.0.0/16',
    natOutgoing, mtu: 1500, log: logger('t', {}, () => undefined),
  });
  const a1 = agent(true);
  await a1.start();
  await a1.stop();
  const listed = await nftList(n);
  t.equal(listed.exitCode, 0, 'table ip capstan-nat exists in the node\'s namespace');
  t.match(listed.stdout, /chain postrouting \{ # handle \d+\s+type nat hook postrouting priority srcnat; policy accept;\s+ip saddr 10\.244\.0\.0\/16 ip daddr != 10\.244\.0\.0\/16 masquerade # handle \d+\s+\}/,
    'one srcnat rule: from the pool, to outside the pool, masquerade');

  t.ok(await ping(pods[0]!, '10.0.9.1'), 'the pod pings the outside address');
  t.equal(await seenAs(pods[0]!, '10.0.9.1'), '10.0.9.11', 'the outside sees the node\'s address');
  t.equal(await seenAs(pods[0]!, podIPs[1]!), podIPs[0], 'another pod sees the pod\'s own address');

  const a2 = agent(true);
  await a2.start();
  await a2.stop();
  t.equal((await nftList(n)).stdout, listed.stdout, 'a restarted agent adopts the table: same rule, same handle');

  // `capstan reset`'s node cleanup, run inside the node's namespace as it runs on a node.
  const reset = resolve('dist/src/reset/network.js');
  const r = await inNs(n, process.execPath, ['--input-type=module', '-e', `import { removeNodeNetwork } from '${reset}'; console.log(JSON.stringify(removeNodeNetwork()));`]);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(JSON.parse(r.stdout) as string[], ['nft table ip capstan-nat'], 'reset names the table it removed');
  t.not((await nftList(n)).exitCode, 0, 'the table is gone after reset');
  t.equal(await seenAs(pods[0]!, '10.0.9.1'), '', 'and the pod is not masqueraded any more');

  const a3 = agent(true);
  await a3.start();
  await a3.stop();
  t.equal((await nftList(n)).exitCode, 0, 'installed again by the next start');
  const a4 = agent(false);
  await a4.start();
  await a4.stop();
  t.not((await nftList(n)).exitCode, 0, 'an agent started with --nat-outgoing=false removes it');
});
