// A child process of bench/watch-fanout: opens a share of the watchers and reports, for each
// object name, every one of its watchers' arrival times (process.hrtime, the machine's
// monotonic clock, the same in every process) once all of them have it. Reading watches in
// several processes keeps one client thread from being the fan-out's bottleneck, as 1,000
// watchers of a real cluster live in many clients.
import { request, type Agent } from 'node:https';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';

export interface OpenMessage {
  port: number;
  ca: string; cert: string; key: string;
  path: string;
  /** 'http/1.1': a TLS connection per watcher; 'h2': `connections` shared HTTP/2 connections. */
  transport: 'http/1.1' | 'h2';
  watchers: number;
  connections: number;
}

export type ClientMessage =
  | { op: 'opened' }
  | { op: 'arrived'; name: string; at: number[] }
  /** CPU time this process spent from the watchers' opening to their close: reading the events. */
  | { op: 'closed'; cpuMs: number }
  | { op: 'failed'; error: string };

interface Stream { close(): void }
type OnName = (name: string, at: number) => void;

const send = (m: ClientMessage) => process.send!(m);

const nameMarker = Buffer.from('"metadata":{"name":"');

/**
 * Reports each event's object name with its arrival time; no per-event parse beyond finding the
 * name in the bytes, so the reading costs the client as little as it can.
 */
function eventReader(onName: OnName): (chunk: Buffer) => void {
  let rest: Buffer | undefined;
  return (chunk) => {
    const at = Number(process.hrtime.bigint());
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    let end: number;
    while ((end = buf.indexOf(10, start)) !== -1) {
      const m = buf.indexOf(nameMarker, start);
      if (m !== -1 && m < end) {
        const from = m + nameMarker.length;
        onName(buf.toString('latin1', from, buf.indexOf(34, from)), at);
      }
      start = end + 1;
    }
    rest = start < buf.length ? buf.subarray(start) : undefined;
  };
}

function openWatch(o: OpenMessage, onName: OnName): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: o.port, path: o.path, method: 'GET', servername: 'localhost', agent: false as unknown as Agent,
      ca: o.ca, cert: o.cert, key: o.key, headers: { Accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`watch: ${res.statusCode}`)); return; }
      res.on('data', eventReader(onName));
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * An HTTP/2 connection with client-go's flow-control windows (Go's transport: 4 MiB a stream,
 * 1 GiB the connection), so the client's window never paces the fan-out.
 */
function openSession(o: OpenMessage): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = http2Connect(`https://127.0.0.1:${o.port}`, {
      ca: o.ca, cert: o.cert, key: o.key, servername: 'localhost',
      settings: { initialWindowSize: 4 << 20 },
    });
    s.once('error', reject);
    s.once('remoteSettings', () => { s.setLocalWindowSize(1 << 30); resolve(s); });
  });
}

function openStreamWatch(s: ClientHttp2Session, path: string, onName: OnName): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':method': 'GET', ':path': path, accept: 'application/json' });
    req.once('response', (h) => {
      if (h[':status'] !== 200) { reject(new Error(`watch: ${h[':status']}`)); return; }
      req.on('data', eventReader(onName));
      resolve({ close: () => req.close() });
    });
    req.once('error', reject);
    req.end();
  });
}

async function open(o: OpenMessage): Promise<() => void> {
  const arrivals = new Map<string, number[]>();
  const onName: OnName = (name, at) => {
    let times = arrivals.get(name);
    if (!times) arrivals.set(name, (times = []));
    times.push(at);
    if (times.length === o.watchers) { arrivals.delete(name); send({ op: 'arrived', name, at: times }); }
  };
  const streams: Stream[] = [];
  const sessions: ClientHttp2Session[] = [];
  if (o.transport === 'h2') for (let c = 0; c < o.connections; c++) sessions.push(await openSession(o));
  // Opened a few at a time: over HTTP/1.1 each is a TLS handshake.
  for (let i = 0; i < o.watchers; i += 50) {
    streams.push(...await Promise.all(Array.from({ length: Math.min(50, o.watchers - i) }, (_, j) =>
      o.transport === 'h2' ? openStreamWatch(sessions[(i + j) % sessions.length]!, o.path, onName) : openWatch(o, onName))));
  }
  return () => { for (const s of streams) s.close(); for (const s of sessions) s.close(); };
}

let close: (() => void) | undefined;
let cpuAtStart = process.cpuUsage();
process.on('message', (m: { op: 'open'; open: OpenMessage } | { op: 'close' }) => {
  if (m.op === 'open') {
    open(m.open).then((c) => { close = c; cpuAtStart = process.cpuUsage(); send({ op: 'opened' }); }, (e: Error) => send({ op: 'failed', error: e.message }));
  } else {
    close?.();
    const cpu = process.cpuUsage(cpuAtStart);
    send({ op: 'closed', cpuMs: (cpu.user + cpu.system) / 1000 });
    process.disconnect();
  }
});
