// A verdict map in the service-proxy shape DNATs a service address to a server in another
// namespace: client ns → node ns (nftables table here) → server ns. Checked with a real TCP
// exchange, for the addon and the nft -f fallback.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNetlink } from '../../src/netlink/index.js';
import { createNftDriver, NftTable } from '../../src/nft/index.js';
import { PYTHON, inNs, isRoot, newNamespace, spawnInNs } from './fixtures/netns.js';
import { proxyTableOps } from './fixtures/nft-tables.js';

const SERVER = `import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', 8080)); s.listen()
while True:
    c, _ = s.accept(); c.sendall(b'hello from server\\n'); c.close()`;

const CLIENT = `import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
print(c.recv(100).decode().strip())`;

for (const impl of ['addon', 'nft'] as const) {
  t.test(`verdict-map DNAT to another namespace with ${impl}`, { skip: !isRoot && 'needs root' }, async (t) => {
    const nl = createNetlink('addon');
    const client = await newNamespace(t, 'cli');
    const node = await newNamespace(t, 'node');
    const server = await newNamespace(t, 'srv');
    await nl.apply(node.path, [
      { op: 'linkAddVeth', name: 'n0', peerName: 'c0', peerNetns: client.path },
      { op: 'linkAddVeth', name: 'n1', peerName: 's0', peerNetns: server.path },
      { op: 'linkSet', name: 'n0', up: true },
      { op: 'linkSet', name: 'n1', up: true },
      { op: 'addrAdd', dev: 'n0', address: '10.0.3.1/24' },
      { op: 'addrAdd', dev: 'n1', address: '10.0.4.1/24' },
      { op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' },
    ]);
    for (const [ns, dev, ip, gw] of [[client, 'c0', '10.0.3.2/24', '10.0.3.1'], [server, 's0', '10.0.4.2/24', '10.0.4.1']] as const) {
      await nl.apply(ns.path, [
        { op: 'linkSet', name: dev, up: true },
        { op: 'addrAdd', dev, address: ip },
        { op: 'routeAdd', dst: 'default', via: gw, dev },
      ]);
    }
    spawnInNs(t, server, PYTHON, ['-c', SERVER]);

    const table = new NftTable(createNftDriver(impl), { family: 'ip', name: 'capstan' }, node.path);
    await table.apply(proxyTableOps('10.96.0.10', 80, [{ ip: '10.0.4.2', port: 8080 }]));

    let reply = '';
    for (let attempt = 0; attempt < 20 && !reply; attempt++) {
      const r = await inNs(client, PYTHON, ['-c', CLIENT, '10.96.0.10', '80']);
      reply = String(r.stdout).trim();
      if (!reply) await sleep(100);
    }
    t.equal(reply, 'hello from server', 'connection to the service address reaches the server');

    // Take the service out of the map: the same connection must now fail.
    await table.apply([{ op: 'flushSet', set: 'service-ips', map: true }]);
    const after = await inNs(client, PYTHON, ['-c', CLIENT, '10.96.0.10', '80']);
    t.not(String(after.stdout).trim(), 'hello from server', 'no DNAT once the map element is gone');
  });
}
