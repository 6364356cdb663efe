// The exec channel protocol: client messages per protocol version, Status shapes, and the
// bridge between a real WebSocket and a process (a scripted RemoteCommand here).
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { CHANNEL, exitCodeOf, exitStatus, frame, parseClientMessage, pickProtocol, successStatus } from '../../src/kubelet/server/channels.js';
import { bridgeExec, type ExecStreams } from '../../src/kubelet/server/exec.js';
import type { RemoteCommand } from '../../src/kubelet/server/remote-command.js';
import { decodeHeaderBlock, encodeHeaderBlock, SPDY3_DICTIONARY } from '../../src/util/spdy/index.js';

t.test('client messages', async (t) => {
  const cases: [string, string, Buffer, ReturnType<typeof parseClientMessage>][] = [
    ['stdin', 'v5.channel.k8s.io', frame(0, 'hi'), { kind: 'stdin', data: Buffer.from('hi') }],
    ['empty stdin', 'v4.channel.k8s.io', Buffer.from([0]), { kind: 'stdin', data: Buffer.alloc(0) }],
    ['resize', 'v5.channel.k8s.io', frame(4, '{"Width":80,"Height":24}'), { kind: 'resize', width: 80, height: 24, raw: Buffer.from('{"Width":80,"Height":24}') }],
    ['bad resize', 'v5.channel.k8s.io', frame(4, '{'), { kind: 'ignored', channel: 4 }],
    ['close stdin (v5)', 'v5.channel.k8s.io', Buffer.from([255, 0]), { kind: 'close', channel: 0 }],
    ['close means nothing in v4', 'v4.channel.k8s.io', Buffer.from([255, 0]), { kind: 'ignored', channel: 255 }],
    ['close without a channel', 'v5.channel.k8s.io', Buffer.from([255]), { kind: 'ignored', channel: 255 }],
    ['stdout from a client', 'v5.channel.k8s.io', frame(1, 'x'), { kind: 'ignored', channel: 1 }],
    ['empty message', 'v5.channel.k8s.io', Buffer.alloc(0), { kind: 'ignored', channel: -1 }],
  ];
  for (const [name, proto, msg, want] of cases) t.same(parseClientMessage(msg, proto), want, name);
});

t.test('protocol choice and Status', async (t) => {
  t.equal(pickProtocol(['v4.channel.k8s.io', 'v5.channel.k8s.io']), 'v5.channel.k8s.io');
  t.equal(pickProtocol(['channel.k8s.io', 'v4.channel.k8s.io']), 'v4.channel.k8s.io');
  t.equal(pickProtocol(['base64.channel.k8s.io']), false);
  const s42 = exitStatus(42, ['sh', '-c', 'exit 42']);
  t.same({ status: s42.status, reason: s42.reason, causes: s42.details?.causes }, { status: 'Failure', reason: 'NonZeroExitCode', causes: [{ reason: 'ExitCode', message: '42' }] });
  t.equal(exitCodeOf(s42), 42);
  t.same(exitStatus(0, ['true']), successStatus());
  t.equal(exitCodeOf(successStatus()), 0);
  t.equal(exitCodeOf({ metadata: {}, status: 'Failure', message: 'boom' }), null);
});

t.test('SPDY header blocks and dictionary', async (t) => {
  t.equal(SPDY3_DICTIONARY.length, 1423, 'the SPDY/3 dictionary size');
  t.equal(SPDY3_DICTIONARY.subarray(-6).toString(), 'enq=0.');
  const h = { streamtype: 'stdin', 'x-empty': '' };
  t.same(decodeHeaderBlock(encodeHeaderBlock({ StreamType: 'stdin', 'x-empty': '' })), h, 'names lower-cased');
});

/** A RemoteCommand whose process side the test scripts. */
function scripted() {
  const calls: string[] = [];
  let out: (d: Buffer) => void = () => undefined;
  let err: (d: Buffer) => void = () => undefined;
  let finish: (s: Buffer) => void = () => undefined;
  // The bridge wires output once the process is open: the signal that it is.
  let wired = false;
  const rc: RemoteCommand = {
    stdin: (d) => calls.push(`stdin:${d}`),
    closeStdin: () => calls.push('close-stdin'),
    resize: (j) => calls.push(`resize:${j}`),
    onStdout: (fn) => { out = fn; wired = true; },
    onStderr: (fn) => { err = fn; },
    done: new Promise((r) => { finish = r; }),
    abort: () => calls.push('abort'),
  };
  return { rc, calls, opened: () => wired, out: (s: string) => out(Buffer.from(s)), err: (s: string) => err(Buffer.from(s)), finish: (s: string) => finish(Buffer.from(s)) };
}

async function session(t: { teardown(fn: () => unknown): void }, protocol: string, streams: ExecStreams, start: () => Promise<RemoteCommand>) {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, handleProtocols: (p) => pickProtocol(p) });
  const bridged: Promise<void>[] = [];
  // Counted by a listener added after the bridge's: when it runs, the bridge has the message.
  let serverReceived = 0;
  wss.on('connection', (ws) => {
    bridged.push(bridgeExec(ws, ws.protocol, streams, start, () => undefined));
    ws.on('message', () => { serverReceived++; });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => { for (const c of wss.clients) c.terminate(); wss.close(); http.close(r); }));
  const ws = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}/`, [protocol]);
  const received: [number, string][] = [];
  ws.on('message', (m: Buffer) => received.push([m[0], m.subarray(1).toString()]));
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  await new Promise((r) => ws.once('open', r));
  return { ws, received, closed, bridged, serverReceived: () => serverReceived };
}

const until = async (f: () => boolean) => {
  for (let i = 0; i < 1000 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!f()) throw new Error(`never came true: ${f}`);
};

t.test('bridge: v5 stdin, close, resize, output and status', async (t) => {
  const p = scripted();
  let release: () => void = () => undefined;
  const opened = new Promise<void>((r) => { release = r; });
  const s = await session(t, 'v5.channel.k8s.io', { stdin: true, stdout: true, stderr: true, tty: false }, async () => { await opened; return p.rc; });
  t.equal(s.ws.protocol, 'v5.channel.k8s.io');
  // Sent before the process is open: kept, then delivered in order.
  s.ws.send(frame(CHANNEL.stdin, 'early'));
  s.ws.send(frame(CHANNEL.resize, '{"Width":1,"Height":1}'));
  await until(() => s.serverReceived() >= 2);
  t.same(p.calls, [], 'both frames reached the bridge before the process opened');
  release();
  s.ws.send(frame(CHANNEL.stdin, 'late'));
  s.ws.send(Buffer.from([CHANNEL.close, CHANNEL.stdin]));
  await until(() => p.calls.length >= 3);
  t.same(p.calls, ['stdin:early', 'stdin:late', 'close-stdin'], 'resize dropped without a tty');
  p.out('o1');
  p.err('e1');
  await until(() => s.received.length >= 2);
  p.finish(JSON.stringify(exitStatus(3, ['x'])));
  t.equal(await s.closed, 1000);
  t.same(s.received.map(([c]) => c), [1, 2, 3]);
  t.same(s.received.slice(0, 2), [[1, 'o1'], [2, 'e1']]);
  t.equal(exitCodeOf(JSON.parse(s.received[2][1])), 3);
});

t.test('bridge: v4 has no close channel; a tty gets resizes', async (t) => {
  const p = scripted();
  const s = await session(t, 'v4.channel.k8s.io', { stdin: true, stdout: true, stderr: false, tty: true }, async () => p.rc);
  s.ws.send(Buffer.from([CHANNEL.close, CHANNEL.stdin]));
  s.ws.send(frame(CHANNEL.resize, '{"Width":100,"Height":30}'));
  await until(() => p.calls.length >= 1);
  t.same(p.calls, ['resize:{"Width":100,"Height":30}']);
  p.finish(JSON.stringify(successStatus()));
  t.equal(await s.closed, 1000);
  t.same(s.received, [[3, JSON.stringify(successStatus())]]);
});

t.test('bridge: a process that cannot start ends with a Failure status', async (t) => {
  const s = await session(t, 'v5.channel.k8s.io', { stdin: false, stdout: true, stderr: true, tty: false }, async () => { throw new Error('stream server unreachable'); });
  t.equal(await s.closed, 1000);
  t.equal(s.received.length, 1);
  t.equal(s.received[0][0], 3);
  t.match(JSON.parse(s.received[0][1]), { status: 'Failure', message: 'stream server unreachable' });
});

t.test('bridge: the client leaving aborts the process', async (t) => {
  const p = scripted();
  const s = await session(t, 'v5.channel.k8s.io', { stdin: true, stdout: true, stderr: true, tty: false }, async () => p.rc);
  await until(p.opened);
  s.ws.close();
  await Promise.all(s.bridged);
  t.same(p.calls, ['abort']);
});
