// The prebuilt path (src/dns/prebuilt.ts) against the slow path (decode → resolve → encode):
// the same bytes for every record kind, the query's own ID and letter case in each reply,
// EDNS0 shapes kept apart, and a change to a Service's endpoints reaching the answers.
import { createSocket } from 'node:dgram';
import t from 'tap';
import * as dnsPacket from 'dns-packet';
import { Registry } from 'prom-client';
import { resources } from '../../src/client/index.js';
import { Forwarder } from '../../src/dns/forward.js';
import { DNSMetrics } from '../../src/dns/metrics.js';
import { PrebuiltAnswers } from '../../src/dns/prebuilt.js';
import { Resolver } from '../../src/dns/resolver.js';
import { DNSServer } from '../../src/dns/server.js';
import { Zone, type RR } from '../../src/dns/zone.js';
import { logger } from '../../src/log/index.js';
import { startCluster, within } from './harness.js';

const D = 'cluster.local';

function server(zone: Zone, cache: PrebuiltAnswers, udp?: 'native' | 'dgram'): DNSServer {
  return new DNSServer({ udp,
    zone, resolver: new Resolver(zone, { pods: 'insecure', ttl: 30 }), forwarder: new Forwarder({ upstreams: [], timeoutMs: 100 }),
    metrics: new DNSMetrics(new Registry(), () => cache.size, () => zone.size), cache, synced: () => true, log: logger('dns', {}, () => undefined),
  });
}

function zoneWithRecords(): Zone {
  const zone = new Zone(D);
  const rr = (name: string, type: RR['type'], data: unknown): RR => ({ name, type, class: 'IN', ttl: 30, data } as RR);
  const web = `web.default.svc.${D}`;
  zone.set('service/default/web', [
    rr(web, 'A', '10.96.0.5'), rr(web, 'AAAA', 'fd00::5'), rr('5.0.96.10.in-addr.arpa', 'PTR', web),
    rr(`_http._tcp.${web}`, 'SRV', { priority: 0, weight: 100, port: 80, target: web }),
  ]);
  return zone;
}

type Q = { name: string; type: string; edns?: { size: number; do?: boolean }; rd?: boolean };

function query(id: number, q: Q): Buffer {
  return dnsPacket.encode({
    id, type: 'query', flags: q.rd === false ? 0 : dnsPacket.RECURSION_DESIRED,
    questions: [{ name: q.name, type: q.type as 'A', class: 'IN' }],
    additionals: q.edns ? [{ type: 'OPT', name: '.', udpPayloadSize: q.edns.size, flags: q.edns.do ? dnsPacket.DNSSEC_OK : 0, options: [{ code: 10, data: Buffer.alloc(8, 7) }] } as unknown as dnsPacket.Answer] : [],
  });
}

/** Mixed case, as a resolver using 0x20 randomisation asks. */
const mixed = (name: string) => name.split('').map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');

const QUESTIONS: Q[] = [
  { name: `web.default.svc.${D}`, type: 'A' },
  { name: `web.default.svc.${D}`, type: 'AAAA' },
  { name: `_http._tcp.web.default.svc.${D}`, type: 'SRV' },
  { name: '5.0.96.10.in-addr.arpa', type: 'PTR' },
  { name: `nosuch.default.svc.${D}`, type: 'A' },
  { name: `web.default.svc.${D}`, type: 'TXT' },
  { name: `web.default.svc.${D}`, type: 'A', edns: { size: 4096, do: true } },
  { name: `web.default.svc.${D}`, type: 'A', edns: { size: 1232 }, rd: false },
];

t.test('prebuilt replies are byte for byte the slow path\'s, with the query\'s ID and letter case', async (t) => {
  const zone = zoneWithRecords();
  const fast = new PrebuiltAnswers();
  const fastServer = server(zone, fast);
  const slowServer = server(zone, new PrebuiltAnswers(0));
  let id = 100;
  for (const q of QUESTIONS) {
    const label = `${q.name} ${q.type}${q.edns ? ` EDNS ${q.edns.size}${q.edns.do ? ' DO' : ''}` : ''}${q.rd === false ? ' no RD' : ''}`;
    await fastServer.handle(query(id++, q), false); // a miss: the slow path answers and the reply is kept
    for (const name of [q.name, mixed(q.name), q.name.toUpperCase()]) {
      const msg = query(id++, { ...q, name });
      const before = fast.size;
      const got = await fastServer.handle(msg, false);
      t.equal(fast.size, before, `${label}: answered from the table`);
      t.same(got, await slowServer.handle(msg, false), `${label} as ${name}: same bytes as the slow path`);
      t.equal(got!.readUInt16BE(0), msg.readUInt16BE(0), 'the query\'s ID');
      t.equal(dnsPacket.decode(got!).questions![0].name, name, 'the question as asked');
    }
  }
  t.equal(fast.size, QUESTIONS.length, 'one entry per question shape');
  const nx = dnsPacket.decode((await fastServer.handle(query(1, QUESTIONS[4]), false))!);
  t.equal((nx as unknown as { rcode: string }).rcode, 'NXDOMAIN');
  t.equal(nx.authorities![0].type, 'SOA');
});

for (const udp of ['native', 'dgram'] as const) t.test(`over UDP (${udp}): replies sent back to back from the shared buffer each carry their own ID and case`, async (t) => {
  const zone = zoneWithRecords();
  const fast = new PrebuiltAnswers();
  const s = server(zone, fast, udp);
  t.equal(s.udpPath, udp);
  await s.listen([{ host: '127.0.0.1', port: 0 }]);
  t.teardown(() => s.close());
  const slow = server(zone, new PrebuiltAnswers(0));
  const client = createSocket('udp4');
  t.teardown(() => client.close());
  const replies = new Map<number, Buffer>();
  client.on('message', (m) => replies.set(m.readUInt16BE(0), m));
  await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()));
  const send = (msg: Buffer) => client.send(msg, s.bound.udp[0].port, '127.0.0.1');
  const warm = QUESTIONS.map((q, i) => query(60000 + i, q));
  warm.forEach(send);
  await within(3000, async () => replies.size === warm.length, 'first answers');
  t.equal(fast.size, QUESTIONS.length);
  const asked: Buffer[] = [];
  for (let round = 0; round < 20; round++) {
    for (const q of QUESTIONS) asked.push(query(asked.length + 1, { ...q, name: round % 2 ? mixed(q.name) : q.name.toUpperCase() }));
  }
  asked.forEach(send);
  await within(5000, async () => asked.every((m) => replies.has(m.readUInt16BE(0))), 'every query answered');
  for (const msg of asked) {
    t.same(replies.get(msg.readUInt16BE(0)), await slow.handle(msg, false), `query ${msg.readUInt16BE(0)}: same bytes as the slow path`);
  }
  t.equal(fast.size, QUESTIONS.length, 'all of them from the table');
});

t.test('an endpoint change through the API server reaches the prebuilt answers', async (t) => {
  const c = await startCluster(t);
  const svcs = c.clients.resource(resources.services);
  const slices = c.clients.resource(resources.endpointslices);
  await svcs.create('default', { metadata: { name: 'db' }, spec: { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] } });
  const slice = await slices.create('default', {
    metadata: { name: 'db-1', labels: { 'kubernetes.io/service-name': 'db' } }, addressType: 'IPv4',
    ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }], endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true } }],
  });
  const client = createSocket('udp4');
  t.teardown(() => client.close());
  await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()));
  let id = 1;
  const ask = (name: string) => new Promise<dnsPacket.Packet>((resolve) => {
    const q = query(id++, { name, type: 'A' });
    const on = (m: Buffer) => { if (m.readUInt16BE(0) === q.readUInt16BE(0)) { client.off('message', on); resolve(dnsPacket.decode(m)); } };
    client.on('message', on);
    client.send(q, c.port, '127.0.0.1');
  });
  const addrs = async (name: string) => (await ask(name)).answers!.map((a) => (a as { data: unknown }).data as string).sort();
  const name = `db.default.svc.${D}`;
  await within(3000, async () => (await addrs(name)).join() === '10.1.0.1', 'first endpoint');
  const cache = (c.dns.server as unknown as { opts: { cache: PrebuiltAnswers } }).opts.cache;
  t.same(await addrs(name.toUpperCase()), ['10.1.0.1'], 'answered again');
  t.ok(cache.size > 0, 'the answer is prebuilt');
  await slices.update({ ...slice, endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true } }, { addresses: ['10.1.0.2'], conditions: { ready: true } }] });
  await within(2000, async () => (await addrs(name)).join() === '10.1.0.1,10.1.0.2', 'the added endpoint');
  await slices.update({ ...(await slices.get('default', 'db-1')), endpoints: [{ addresses: ['10.1.0.2'], conditions: { ready: true } }] });
  await within(2000, async () => (await addrs(mixed(name))).join() === '10.1.0.2', 'the removed endpoint gone');
  t.same(await addrs(name), ['10.1.0.2'], 'and stays gone');
});
