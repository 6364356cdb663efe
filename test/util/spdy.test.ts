// SPDY/3.1: frames round-trip and survive any split of the byte stream (seeded), corrupt
// input is refused with a protocol error, header blocks share one compression context per
// direction (and inflate what Python's zlib made with the same dictionary), and two sessions
// — client and server — exchange streams, data, FIN, RST, PING and GOAWAY over a socket pair.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { Duplex } from 'node:stream';
import {
  controlFrame, dataFrame, decodeHeaderBlock, encodeHeaderBlock, GOAWAY, goawayFrame, HeaderCompression, parseFrames, pingFrame, RST,
  rstStreamFrame, settingsFrame, SPDY3_DICTIONARY, SpdyProtocolError, SpdySession, synReplyFrame, synStreamFrame, windowUpdateFrame,
  type Frame, type SpdyStream,
} from '../../src/util/spdy/index.js';
import { mulberry32, testSeeds } from './seeded.js';

t.test('each frame type encodes and parses back', async (t) => {
  const block = Buffer.from('compressed-headers');
  const cases: [Buffer, Frame][] = [
    [dataFrame(5, Buffer.from('hello'), true), { kind: 'data', streamId: 5, fin: true, data: Buffer.from('hello') }],
    [dataFrame(0x7fffffff, Buffer.alloc(0), false), { kind: 'data', streamId: 0x7fffffff, fin: false, data: Buffer.alloc(0) }],
    [synStreamFrame(3, block, { fin: true, associatedId: 1, priority: 7 }), { kind: 'syn_stream', streamId: 3, associatedId: 1, priority: 7, fin: true, unidirectional: false, block }],
    [synReplyFrame(2, block), { kind: 'syn_reply', streamId: 2, fin: false, block }],
    [rstStreamFrame(9, RST.CANCEL), { kind: 'rst_stream', streamId: 9, status: 5 }],
    [settingsFrame([{ id: 7, value: 65536 }, { flags: 1, id: 4, value: 100 }]), { kind: 'settings', flags: 0, entries: [{ flags: 0, id: 7, value: 65536 }, { flags: 1, id: 4, value: 100 }] }],
    [pingFrame(0xfffffffe), { kind: 'ping', id: 0xfffffffe }],
    [goawayFrame(11, GOAWAY.PROTOCOL_ERROR), { kind: 'goaway', lastGoodStreamId: 11, status: 1 }],
    [windowUpdateFrame(1, 4096), { kind: 'window_update', streamId: 1, delta: 4096 }],
    [controlFrame(0x99, 3, Buffer.from('x')), { kind: 'unknown', type: 0x99, flags: 3, payload: Buffer.from('x') }],
  ];
  for (const [bytes, want] of cases) {
    const { frames, rest } = parseFrames(bytes);
    t.same(frames, [want], want.kind);
    t.equal(rest.length, 0);
  }
  // The wire form itself, per the draft: control bit, version 3, type, flags, 24-bit length.
  t.same([...pingFrame(1)], [0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 1]);
  t.same([...dataFrame(1, Buffer.from('a'), true)], [0, 0, 0, 1, 0x01, 0, 0, 1, 0x61]);
});

t.test('a stream of frames parses the same however it is cut', async (t) => {
  for (const seed of testSeeds([1, 2, 3, 42, 1234])) {
    const random = mulberry32(seed);
    const int = (n: number) => Math.floor(random() * n);
    const frames: Buffer[] = [];
    for (let i = 0; i < 60; i++) {
      const id = 1 + 2 * int(50);
      const bytes = Buffer.from(Array.from({ length: int(3000) }, () => int(256)));
      frames.push([
        () => dataFrame(id, bytes, random() < 0.3),
        () => synStreamFrame(id, bytes.subarray(0, 40)),
        () => synReplyFrame(id, bytes.subarray(0, 20), random() < 0.5),
        () => rstStreamFrame(id, 1 + int(11)),
        () => pingFrame(int(2 ** 32)),
        () => windowUpdateFrame(id, 1 + int(2 ** 20)),
      ][int(6)]());
    }
    const whole = Buffer.concat(frames);
    const expected = parseFrames(whole).frames;
    t.equal(expected.length, frames.length);
    const got: Frame[] = [];
    let buf: Buffer = Buffer.alloc(0);
    for (let off = 0; off < whole.length;) {
      const n = 1 + int(700);
      buf = Buffer.concat([buf, whole.subarray(off, off + n)]);
      off += n;
      const r = parseFrames(buf);
      got.push(...r.frames);
      buf = r.rest;
    }
    t.equal(buf.length, 0, `seed ${seed}: nothing left over`);
    t.same(got, expected, `seed ${seed}: same frames from ${frames.length} pieces`);
  }
});

t.test('corrupt input is a protocol error, never a crash', async (t) => {
  const v2 = (() => { try { parseFrames(Buffer.from([0x80, 0x02, 0, 1, 0, 0, 0, 10, ...Buffer.alloc(10)])); } catch (e) { return e; } })();
  t.ok(v2 instanceof SpdyProtocolError, 'SPDY/2 is a protocol error');
  t.match((v2 as Error).message, 'SPDY version 2 is not supported');
  t.throws(() => parseFrames(controlFrame(1, 0, Buffer.alloc(3))), /SYN_STREAM frame too short/);
  t.throws(() => parseFrames(controlFrame(4, 0, Buffer.from([0, 0, 0, 5]))), /SETTINGS frame too short/);
  for (const seed of testSeeds([7, 8, 9])) {
    const random = mulberry32(seed);
    for (let i = 0; i < 2000; i++) {
      const junk = Buffer.from(Array.from({ length: 8 + Math.floor(random() * 40) }, () => Math.floor(random() * 256)));
      if (random() < 0.5) {
        // SPDY/3 control frames, so type parsing is exercised.
        junk[0] = 0x80;
        junk[1] = 3;
      }
      junk.writeUIntBE(junk.length - 8, 5, 3);
      try {
        parseFrames(junk);
      } catch (e) {
        if (!(e instanceof SpdyProtocolError)) t.fail(`seed ${seed}: ${junk.toString('hex')} threw ${(e as Error).message}`);
      }
    }
  }
  t.throws(() => decodeHeaderBlock(Buffer.from([0, 0, 0, 2, 0, 0, 0, 1, 0x61])), RangeError, 'a truncated header block');
});

t.test('header blocks: format, dictionary, one context across frames', async (t) => {
  t.equal(SPDY3_DICTIONARY.length, 1423, 'the SPDY/3 dictionary size');
  const block = encodeHeaderBlock({ StreamType: 'data', port: '8080', requestID: '0' });
  t.same(decodeHeaderBlock(block), { streamtype: 'data', port: '8080', requestid: '0' }, 'names are lowercase');
  const d = HeaderCompression.deflater(), i = HeaderCompression.inflater();
  let lastSize = Infinity;
  for (let n = 0; n < 5; n++) {
    const headers = { streamtype: n % 2 ? 'error' : 'data', port: '8080', requestid: String(n) };
    const z = await d.run(encodeHeaderBlock(headers));
    t.same(decodeHeaderBlock(await i.run(z)), headers, `block ${n} inflates in the shared context`);
    if (n >= 2) t.ok(z.length <= lastSize + 2, 'later blocks reuse what earlier ones sent');
    lastSize = z.length;
  }
  d.close();
  i.close();
});

t.test('header blocks compressed by another zlib (Python) inflate here', async (t) => {
  // Python's zlib with the same dictionary plays the peer: two blocks from one compressor,
  // each ended with a sync flush, as Go's compress/zlib writer in spdystream does.
  const script = `
import sys, zlib, struct
d = bytes.fromhex(sys.argv[1])
c = zlib.compressobj(zdict=d)
def block(h):
    b = struct.pack('>I', len(h))
    for k, v in h:
        b += struct.pack('>I', len(k)) + k.encode() + struct.pack('>I', len(v)) + v.encode()
    return c.compress(b) + c.flush(zlib.Z_SYNC_FLUSH)
print(block([('streamtype', 'error'), ('port', '80'), ('requestid', '0')]).hex())
print(block([('streamtype', 'data'), ('port', '80'), ('requestid', '0')]).hex())`;
  const [a, b] = execFileSync('/usr/bin/python3', ['-c', script, SPDY3_DICTIONARY.toString('hex')], { encoding: 'utf8' }).trim().split('\n');
  const i = HeaderCompression.inflater();
  t.same(decodeHeaderBlock(await i.run(Buffer.from(a, 'hex'))), { streamtype: 'error', port: '80', requestid: '0' });
  t.same(decodeHeaderBlock(await i.run(Buffer.from(b, 'hex'))), { streamtype: 'data', port: '80', requestid: '0' });
  i.close();
});

/** Two connected in-memory sockets. */
function socketPair(): [Duplex, Duplex] {
  const make = (peer: () => Duplex) => new Duplex({
    read() {},
    write(chunk, _enc, cb) { peer().push(chunk); cb(); },
    final(cb) { peer().push(null); cb(); },
  });
  const a: Duplex = make(() => b);
  const b: Duplex = make(() => a);
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  return [a, b];
}

const collect = (s: SpdyStream) => new Promise<string>((resolve) => {
  let out = '';
  s.on('data', (d: Buffer) => { out += d.toString(); });
  s.once('end', () => resolve(out));
});

t.test('a client and a server session: streams, data, half-close, reset, ping, goaway', async (t) => {
  const [ca, sa] = socketPair();
  const client = new SpdySession(ca, { role: 'client' });
  const server = new SpdySession(sa, { role: 'server' });
  // The server echoes each stream upper-cased and ends it when the client does; "refuse" is reset.
  const seen: { id: number; headers: Record<string, string> }[] = [];
  server.on('stream', (s: SpdyStream) => {
    seen.push({ id: s.id, headers: s.headers });
    if (s.headers.streamtype === 'refuse') return s.reset(RST.REFUSED_STREAM);
    s.reply({ accepted: 'yes' });
    s.on('data', (d: Buffer) => s.write(Buffer.from(d.toString().toUpperCase())));
    s.once('end', () => s.end());
  });

  const one = client.openStream({ streamtype: 'data', port: '80' });
  const two = client.openStream({ streamtype: 'data', port: '81' });
  t.same(await one.replied(), { accepted: 'yes' });
  const outOne = collect(one), outTwo = collect(two);
  one.write(Buffer.from('hello '));
  two.write(Buffer.from('x'.repeat(200_000)));
  one.write(Buffer.from('world'));
  one.end();
  two.end();
  t.equal(await outOne, 'HELLO WORLD');
  t.equal(await outTwo, 'X'.repeat(200_000), 'more than one 64 KiB frame, in order');
  t.same(seen.map((s) => s.id), [1, 3], 'client streams are odd');
  t.equal(seen[1].headers.port, '81');

  const refused = client.openStream({ streamtype: 'refuse' });
  await t.rejects(refused.replied(), /reset \(status 3\)/);
  t.equal(refused.resetStatus, RST.REFUSED_STREAM);

  // A server-opened stream is even and reaches the client's listener.
  client.on('stream', (s: SpdyStream) => { s.reply(); s.end(); });
  const fromServer = server.openStream({ streamtype: 'push' });
  t.equal(fromServer.id, 2);
  await fromServer.replied();

  // PING: the peer echoes ours.
  const pong = new Promise((r) => client.once('pong', r));
  ca.write(pingFrame(7));
  t.equal(await pong, 7);

  // GOAWAY: the server stops taking streams; new ones are refused.
  const away = new Promise((r) => client.once('goaway', r));
  server.goAway();
  t.equal(await away, GOAWAY.OK);
  const late = client.openStream({ streamtype: 'data' });
  await t.rejects(late.replied(), /reset \(status 3\)/);

  const closed = new Promise((r) => server.once('close', r));
  client.close();
  await closed;
  t.ok(server.closed);
});

t.test('a peer breaking the protocol gets GOAWAY PROTOCOL_ERROR and the connection ends', async (t) => {
  const [ca, sa] = socketPair();
  const server = new SpdySession(sa, { role: 'server' });
  const errors: string[] = [];
  server.on('error', (e: Error) => errors.push(e.message));
  server.on('stream', (s: SpdyStream) => s.reply());
  let got = Buffer.alloc(0);
  ca.on('data', (d: Buffer) => { got = Buffer.concat([got, d]); });
  const ended = new Promise((r) => ca.once('end', r));
  // An even (server-side) id from the client.
  const z = await HeaderCompression.deflater().run(encodeHeaderBlock({ a: 'b' }));
  ca.write(synStreamFrame(2, z));
  await ended;
  t.match(errors, [/stream id 2 is not a new odd id/]);
  const frames = parseFrames(got).frames;
  t.same(frames.at(-1), { kind: 'goaway', lastGoodStreamId: 0, status: GOAWAY.PROTOCOL_ERROR });
});

t.test('data for a stream that is not open is answered with RST INVALID_STREAM', async (t) => {
  const [ca, sa] = socketPair();
  const server = new SpdySession(sa, { role: 'server' });
  let got = Buffer.alloc(0);
  const reply = new Promise<void>((resolve) => ca.on('data', (d: Buffer) => { got = Buffer.concat([got, d]); if (parseFrames(got).frames.length) resolve(); }));
  ca.write(dataFrame(5, Buffer.from('stray'), false));
  await reply;
  t.same(parseFrames(got).frames, [{ kind: 'rst_stream', streamId: 5, status: RST.INVALID_STREAM }]);
  server.close();
});
