// Names outside the cluster domain: forwarded to an upstream (a tiny UDP server in the
// test), SERVFAIL within the timeout when it stays silent; and input that is not DNS at all.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import t from 'tap';
import * as dnsPacket from 'dns-packet';
import { resources } from '../../src/client/index.js';
import { upstreamsFromResolvConf } from '../../src/dns/index.js';
import { data, fakeUpstream, startCluster } from './harness.js';
import { eventually } from '../helpers/kubectl.js';
import { mulberry32, testSeeds } from '../util/seeded.js';

t.test('forwarding to the upstream, chasing an ExternalName', async (t) => {
  const up = await fakeUpstream(t, '192.0.2.7');
  const c = await startCluster(t, { upstreams: [{ host: '127.0.0.1', port: up.port }] });
  const r = await c.dig(['Example.ORG', 'A']);
  t.equal(r.status, 'NOERROR');
  t.same(data(r), ['192.0.2.7']);
  t.notOk(r.flags.includes('aa'), 'not authoritative for what it forwards');
  t.ok(up.queries.some((q) => q.toLowerCase() === 'example.org/a/udp'));
  const tcp = await c.dig(['+tcp', 'example.org']);
  t.same(data(tcp), ['192.0.2.7'], 'a TCP client is forwarded over TCP');
  t.ok(up.queries.includes('example.org/A/tcp'));

  await c.clients.resource(resources.services).create('default', { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'db.example.net' } });
  let chased = await c.dig([`ext.default.svc.cluster.local`]);
  for (let i = 0; i < 20 && chased.answer.length === 0; i++) chased = await c.dig([`ext.default.svc.cluster.local`]);
  t.same(chased.answer.map((a) => `${a.name} ${a.type} ${a.data}`), [
    'ext.default.svc.cluster.local. CNAME db.example.net.',
    'db.example.net. A 192.0.2.7',
  ]);
});

t.test('a silent upstream gives SERVFAIL after the timeout, not a hang', async (t) => {
  const up = await fakeUpstream(t, null);
  const c = await startCluster(t, { upstreams: [{ host: '127.0.0.1', port: up.port }], upstreamTimeoutMs: 500 });
  // A hang would show as status NONE: dig gives up after +time=3 (harness.ts). The lower
  // bound only says the server waited for the upstream; a busy machine can only add to it.
  const start = Date.now();
  const r = await c.dig(['example.org']);
  const took = Date.now() - start;
  t.equal(r.status, 'SERVFAIL');
  t.ok(took >= 450, `answered after the upstream timeout (${took} ms)`);
  t.equal((await c.dig(['+tcp', 'example.org'])).status, 'SERVFAIL', 'over TCP too');
});

t.test('upstreams from resolv.conf leave out the server itself', async (t) => {
  const text = 'search example.com\nnameserver 169.254.20.10\nnameserver 10.0.0.2\n# nameserver 9.9.9.9\nnameserver fe80::1%eth0\noptions ndots:5\n';
  t.same(upstreamsFromResolvConf(text, new Set(['169.254.20.10', '10.96.0.10'])), [{ host: '10.0.0.2', port: 53 }, { host: 'fe80::1', port: 53 }]);
});

function udpExchange(port: number, msg: Buffer, waitMs = 300): Promise<Buffer | undefined> {
  const s = createSocket('udp4');
  return new Promise((resolve) => {
    const timer = setTimeout(() => { s.close(); resolve(undefined); }, waitMs);
    s.on('message', (m) => { clearTimeout(timer); s.close(); resolve(m); });
    s.send(msg, port, '127.0.0.1');
  });
}

t.test('malformed input never crashes the server', async (t) => {
  const c = await startCluster(t);
  const good = dnsPacket.encode({ id: 7, type: 'query', flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: 'kubernetes.default.svc.cluster.local', type: 'A' }] });

  t.equal(await udpExchange(c.port, Buffer.from([1, 2, 3])), undefined, 'shorter than a header: dropped');
  const garbage = Buffer.concat([Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]), Buffer.from([0x3f, 0x61])]);
  const formerr = await udpExchange(c.port, garbage);
  t.ok(formerr, 'a header with a broken question gets a reply');
  t.equal(formerr!.readUInt16BE(0), 0x1234, 'same ID');
  t.equal(formerr!.readUInt16BE(2) & 0xf, 1, 'FORMERR');
  const response = Buffer.from(good);
  response.writeUInt16BE(response.readUInt16BE(2) | 0x8000, 2);
  t.equal(await udpExchange(c.port, response), undefined, 'a response is not answered (no reflection loops)');
  const notify = Buffer.from(good);
  notify.writeUInt16BE((notify.readUInt16BE(2) & ~(0xf << 11)) | (4 << 11), 2);
  t.equal((await udpExchange(c.port, notify))!.readUInt16BE(2) & 0xf, 4, 'other opcodes: NOTIMP');
  const two = dnsPacket.encode({ id: 8, type: 'query', questions: [{ name: 'a.cluster.local', type: 'A' }, { name: 'b.cluster.local', type: 'A' }] });
  t.equal((await udpExchange(c.port, two))!.readUInt16BE(2) & 0xf, 1, 'two questions: FORMERR');

  // Fuzz: random bytes, and every truncation of a valid query, with random bit flips.
  for (const seed of testSeeds([42])) await t.test(`fuzz, seed ${seed} (SEED=${seed} replays it)`, async (t) => {
    const rnd = mulberry32(seed);
    const s = createSocket('udp4');
    t.teardown(() => s.close());
    const decodeErrors = malformed(await c.registry.metrics());
    for (let i = 0; i < 300; i++) {
      const b = Buffer.alloc(Math.floor(rnd() * 80));
      for (let j = 0; j < b.length; j++) b[j] = Math.floor(rnd() * 256);
      s.send(b, c.port, '127.0.0.1');
    }
    for (let n = 0; n < good.length; n++) s.send(good.subarray(0, n), c.port, '127.0.0.1');
    for (let i = 0; i < 300; i++) {
      const b = Buffer.from(good);
      b[12 + Math.floor(rnd() * (b.length - 12))] ^= 1 << Math.floor(rnd() * 8);
      s.send(b, c.port, '127.0.0.1');
    }
    // And over TCP: a frame length larger than what follows, then garbage frames.
    await new Promise<void>((resolve) => {
      const sock = connect(c.port, '127.0.0.1', () => {
        const junk = Buffer.alloc(200);
        for (let j = 0; j < junk.length; j++) junk[j] = Math.floor(rnd() * 256);
        sock.end(Buffer.concat([Buffer.from([0, 20]), junk.subarray(0, 20), Buffer.from([0, 3, 1, 2, 3]), Buffer.from([0xff, 0xff]), junk]));
      });
      sock.on('error', () => undefined);
      // Read (and drop) whatever the server answers: an unread reply would hold back 'end',
      // and so 'close', for ever (when a random first frame is a query that gets one).
      sock.resume();
      sock.on('close', () => resolve());
  });
  // UDP gives no receipt: the counter moving is the sign the server read the junk.
  await eventually(async () => malformed(await c.registry.metrics()) > decodeErrors, 15_000, 'the server counted the junk');
  const r = await c.dig(['kubernetes.default.svc.cluster.local']);
  t.equal(r.status, 'NOERROR', 'still answering');
  t.equal(data(r).length, 1);
  });
});

const malformed = (metrics: string) => Number(/capstan_dns_malformed_requests_total\{reason="decode"\} (\d+)/.exec(metrics)?.[1] ?? 0);
