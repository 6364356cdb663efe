// The addon's UDP thread (native/dns_udp.cc) answering prebuilt replies off the event loop:
// the same bytes as the slow path, counted in the metrics, and never an answer older than
// the Zone (a change clears its table before the change's turn ends).
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import * as dnsPacket from 'dns-packet';
import { Registry } from 'prom-client';
import { Forwarder } from '../../src/dns/forward.js';
import { DNSMetrics } from '../../src/dns/metrics.js';
import { nativeDns } from '../../src/dns/native-udp.js';
import { PrebuiltAnswers } from '../../src/dns/prebuilt.js';
import { Resolver } from '../../src/dns/resolver.js';
import { DNSServer } from '../../src/dns/server.js';
import { Zone, type RR } from '../../src/dns/zone.js';
import { logger } from '../../src/log/index.js';

const D = 'cluster.local';
const WEB = `web.default.svc.${D}`;

function setWeb(zone: Zone, ip: string): void {
  zone.set('service/default/web', [
    { name: WEB, type: 'A', class: 'IN', ttl: 30, data: ip } as RR,
    { name: `_http._tcp.${WEB}`, type: 'SRV', class: 'IN', ttl: 30, data: { priority: 0, weight: 100, port: 80, target: WEB } } as RR,
  ]);
}

function start(udp: 'native' | 'dgram', cacheSize = 10_000) {
  const zone = new Zone(D);
  setWeb(zone, '10.96.0.1');
  const cache = new PrebuiltAnswers(cacheSize);
  const registry = new Registry();
  const server = new DNSServer({
    zone, resolver: new Resolver(zone, { pods: 'insecure', ttl: 30 }), forwarder: new Forwarder({ upstreams: [], timeoutMs: 100 }),
    metrics: new DNSMetrics(registry, () => cache.size, () => zone.size), cache, synced: () => true, log: logger('dns', {}, () => undefined), udp,
  });
  return { zone, cache, registry, server };
}

function query(id: number, name: string, type = 'A', edns?: { size: number; do?: boolean }): Buffer {
  return dnsPacket.encode({
    id, type: 'query', flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type: type as 'A', class: 'IN' }],
    additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: edns.size, flags: edns.do ? dnsPacket.DNSSEC_OK : 0 } as unknown as dnsPacket.Answer] : [],
  });
}

async function client(t: Test, port: number) {
  const sock: Socket = createSocket('udp4');
  t.teardown(() => sock.close());
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  const waiting = new Map<number, (m: Buffer) => void>();
  sock.on('message', (m) => { waiting.get(m.readUInt16BE(0))?.(m); waiting.delete(m.readUInt16BE(0)); });
  return (msg: Buffer) => new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to query ${msg.readUInt16BE(0)}`)), 3000);
    waiting.set(msg.readUInt16BE(0), (m) => { clearTimeout(timer); resolve(m); });
    sock.send(msg, port, '127.0.0.1');
  });
}

async function answeredByAddon(registry: Registry): Promise<number> {
  const m = await registry.getSingleMetric('capstan_dns_request_duration_seconds')!.get();
  return (m.values as { metricName?: string; labels: Record<string, unknown>; value: number }[]).find((v) => v.metricName === 'capstan_dns_request_duration_seconds_count' && v.labels.proto === 'udp')?.value ?? 0;
}

t.test('the addon has the DNS path', async (t) => {
  t.ok(nativeDns(), 'build/Release/capstan.node exports DnsTable and DnsUdp');
  const { server } = start('native');
  t.equal(server.udpPath, 'native', 'servers use it by default');
  const n = nativeDns()!;
  t.throws(() => n.socket('127.0.0.1', 0, {} as never, () => undefined, { plainUdpSize: 512, serverUdpSize: 1232, slowOptions: [], buckets: [] }), /DnsTable/, 'a table that is not a DnsTable is a TypeError');
  t.throws(() => n.socket('not-an-ip', 0, n.table(), () => undefined, { plainUdpSize: 512, serverUdpSize: 1232, slowOptions: [], buckets: [] }), /not an IP address/);
});

t.test('the addon thread answers with the slow path\'s bytes, the query\'s ID and letter case', async (t) => {
  const { server, cache, registry } = start('native');
  await server.listen([{ host: '127.0.0.1', port: 0 }]);
  t.teardown(() => server.close());
  const { server: slow } = start('dgram', 0);
  const ask = await client(t, server.bound.udp[0].port);
  const shapes: [string, string, { size: number; do?: boolean }?][] = [
    [WEB, 'A'], [WEB, 'TXT'], [`_http._tcp.${WEB}`, 'SRV'], [`nosuch.default.svc.${D}`, 'A'], [WEB, 'A', { size: 4096, do: true }], [WEB, 'A', { size: 700 }],
  ];
  let id = 1;
  for (const [name, type, edns] of shapes) await ask(query(id++, name, type, edns)); // misses: answered on the event loop, then prebuilt
  t.equal(cache.size, shapes.length);
  const before = await answeredByAddon(registry);
  let asked = 0;
  for (let round = 0; round < 5; round++) {
    for (const [name, type, edns] of shapes) {
      const cased = round % 2 ? name.toUpperCase() : name.split('').map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
      const msg = query(id++, cased, type, edns);
      const got = await ask(msg);
      asked++;
      t.same(got, await slow.handle(msg, false), `${cased} ${type}${edns ? ` EDNS ${edns.size}` : ''}: the slow path's bytes`);
    }
  }
  t.equal(await answeredByAddon(registry) - before, asked, 'every one of them answered by the addon thread (its histogram count)');
  const requests = await registry.getSingleMetric('capstan_dns_requests_total')!.get();
  t.ok((requests.values.find((v) => v.labels.type === 'SRV' && v.labels.proto === 'udp')?.value ?? 0) >= 5, 'its queries are counted by type');
  const responses = await registry.getSingleMetric('capstan_dns_responses_total')!.get();
  t.ok((responses.values.find((v) => v.labels.rcode === 'NXDOMAIN')?.value ?? 0) >= 5, 'and its replies by rcode');
});

t.test('after a Zone change no query gets the old answer, from the table or the thread', async (t) => {
  const { server, zone, registry } = start('native');
  await server.listen([{ host: '127.0.0.1', port: 0 }]);
  t.teardown(() => server.close());
  const ask = await client(t, server.bound.udp[0].port);
  const address = async (id: number) => ((dnsPacket.decode(await ask(query(id, WEB))).answers![0] as { data: string }).data);
  let id = 1;
  let stale = 0;
  const hitsBefore = await answeredByAddon(registry);
  for (let i = 2; i < 202; i++) {
    const ip = `10.96.${i >> 8}.${i & 255}`;
    setWeb(zone, ip); // synchronous: the addon's table is cleared before this returns
    for (let k = 0; k < 3; k++) if ((await address(id++)) !== ip) stale++; // the first a miss, then prebuilt again
  }
  t.equal(stale, 0, 'no stale answer in 600 queries across 200 changes');
  t.ok(await answeredByAddon(registry) - hitsBefore >= 300, 'the later queries of each change came from the addon thread');
});

t.test('many queries at once from several clients: each its own reply', async (t) => {
  const { server } = start('native');
  await server.listen([{ host: '127.0.0.1', port: 0 }]);
  t.teardown(() => server.close());
  const port = server.bound.udp[0].port;
  const asks = await Promise.all([1, 2, 3].map(() => client(t, port)));
  await asks[0](query(1, WEB));
  const replies = await Promise.all(Array.from({ length: 600 }, (_, i) => asks[i % 3](query(100 + i, i % 2 ? WEB.toUpperCase() : WEB))));
  t.ok(replies.every((r, i) => r.readUInt16BE(0) === 100 + i && dnsPacket.decode(r).questions![0].name === (i % 2 ? WEB.toUpperCase() : WEB)), 'IDs and question case per query');
});

t.test('close frees the port and stops the thread; a query after close gets nothing', async (t) => {
  const { server } = start('native');
  await server.listen([{ host: '127.0.0.1', port: 0 }]);
  const port = server.bound.udp[0].port;
  const ask = await client(t, port);
  await ask(query(1, WEB));
  await server.close();
  await t.rejects(ask(query(2, WEB)), /no reply/);
  const again = start('native').server;
  await again.listen([{ host: '127.0.0.1', port }]);
  t.teardown(() => again.close());
  t.equal(again.bound.udp[0].port, port, 'the same port binds again');
});

t.test('a port taken on TCP: listen fails with EADDRINUSE and leaves no UDP socket behind', async (t) => {
  for (const udp of ['native', 'dgram'] as const) {
    const tcp = createServer();
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
    const port = (tcp.address() as AddressInfo).port;
    const { server } = start(udp);
    await t.rejects(server.listen([{ host: '127.0.0.1', port }]), { code: 'EADDRINUSE' }, `${udp}: the TCP half's error`);
    t.same(server.bound.udp, [], `${udp}: no UDP listener left`);
    const u = createSocket('udp4');
    await new Promise<void>((resolve, reject) => { u.once('error', reject); u.bind(port, '127.0.0.1', () => resolve()); });
    u.close();
    await server.close();
    await new Promise((r) => tcp.close(r));
  }
});
