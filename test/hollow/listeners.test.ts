// Hollow kubelet listeners: one port for every node address, picked free by default; an
// explicit port that is taken on one of the addresses fails with a clear message.
import t from 'tap';
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { listenOnAll } from '../../src/hollow/listeners.js';
import { maxHollowNodes, nodeInternalIP } from '../../src/hollow/addresses.js';

t.test('node addresses are loopback, distinct, and run out with a clear error', async (t) => {
  const all = Array.from({ length: maxHollowNodes }, (_, i) => nodeInternalIP(i));
  t.equal(new Set(all).size, maxHollowNodes, 'distinct');
  t.ok(all.every((ip) => /^127\.1\.\d+\.\d+$/.test(ip) && !ip.endsWith('.0') && !ip.endsWith('.255')), 'in 127.1.0.0/16, no .0 or .255');
  t.throws(() => nodeInternalIP(maxHollowNodes), /outside/);
});

t.test('one port on every address; connections arrive by address', async (t) => {
  const addresses = [nodeInternalIP(0), nodeInternalIP(1), nodeInternalIP(2)];
  const seen: string[] = [];
  const l = await listenOnAll(addresses, 0, (i, socket) => { socket.on('error', () => undefined); seen.push(`${i} ${socket.localAddress}`); socket.end('x'); });
  t.teardown(() => l.close());
  t.ok(l.port > 0);
  for (const host of [addresses[2], addresses[0]]) {
    await new Promise<void>((resolve, reject) => {
      const c = connect({ host, port: l.port }).on('data', () => { c.destroy(); resolve(); }).on('error', reject);
    });
  }
  t.same(seen, [`2 ${addresses[2]}`, `0 ${addresses[0]}`]);
});

t.test('an explicit port already taken on one address: a clear error and nothing left listening', async (t) => {
  const addresses = [nodeInternalIP(100), nodeInternalIP(101)];
  const squatter: Server = createServer();
  await new Promise<void>((r) => squatter.listen(0, addresses[1], () => r()));
  t.teardown(() => new Promise<void>((r) => squatter.close(() => r())));
  const port = (squatter.address() as AddressInfo).port;
  await t.rejects(listenOnAll(addresses, port, () => undefined), /cannot listen for the hollow kubelet API on 2 addresses at port \d+: .*EADDRINUSE/);
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, addresses[0], () => resolve()));
  await new Promise<void>((r) => probe.close(() => r()));
  t.pass('the first address was released again');
});
