// The process side of exec/attach: the CRI stream server URL (from CRI Exec/Attach) spoken
// to over SPDY/3.1 with the v4 remote-command protocol — error, stdin, stdout, stderr and
// resize streams. containerd 1.6's stream server also speaks WebSocket, but only up to
// v4.channel.k8s.io, which has no way to close stdin: `echo hi | kubectl exec -i -- cat`
// would never end. SPDY half-closes the stdin stream.
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../../util/spdy/index.js';
import { streamServerAddress, upgradeToStreamServer } from './stream-upgrade.js';

/** Opens a byte stream to host:port (the stream server may live in another netns). */
export type Dialer = (host: string, port: number) => Promise<Duplex>;

export const tcpDialer: Dialer = (host, port) => new Promise((resolve, reject) => {
  const s: Socket = connect({ host, port });
  s.once('connect', () => { s.off('error', reject); resolve(s); });
  s.once('error', reject);
});

export interface RemoteCommandOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface RemoteCommand {
  stdin(data: Buffer): void;
  closeStdin(): void;
  /** Terminal size as the resize stream carries it: `{"Width":80,"Height":24}`. */
  resize(json: Buffer): void;
  onStdout(fn: (d: Buffer) => void): void;
  onStderr(fn: (d: Buffer) => void): void;
  /** Resolves when the stream server is done, with the v4 Status JSON of the error stream
   *  (empty when it sent none). */
  done: Promise<Buffer>;
  abort(): void;
}

const PROTOCOLS = ['v4.channel.k8s.io'];

/** A SPDY session with the stream server at `url`, upgraded with `protocols` (a failed session closes). */
export async function connectStreamServer(url: string, protocols: string[], dial: Dialer): Promise<SpdySession> {
  const { u, host, port } = streamServerAddress(url);
  const socket = await dial(host, port);
  let rest: Buffer;
  try {
    ({ rest } = await upgradeToStreamServer(socket, u, protocols));
  } catch (e) {
    socket.destroy();
    throw e;
  }
  const session = new SpdySession(socket, { role: 'client', initial: rest });
  session.on('error', () => session.close());
  return session;
}

export async function openRemoteCommand(url: string, opts: RemoteCommandOptions, dial: Dialer = tcpDialer): Promise<RemoteCommand> {
  const session = await connectStreamServer(url, PROTOCOLS, dial);
  const open = (type: string) => session.openStream({ streamtype: type });
  // The same order as client-go's v4 protocol: the error stream first.
  const error = open('error');
  const stdin = opts.stdin ? open('stdin') : null;
  const stdout = opts.stdout ? open('stdout') : null;
  const stderr = opts.stderr && !opts.tty ? open('stderr') : null;
  const resize = opts.tty ? open('resize') : null;
  const streams = [error, stdin, stdout, stderr, resize].filter((s): s is SpdyStream => s !== null);
  // A fast command's output and exit status can arrive with the stream replies, before the
  // caller subscribes: hold data from the start and hand it over on subscription.
  const status: Buffer[] = [];
  error.on('data', (d: Buffer) => status.push(d));
  const done = new Promise<Buffer>((resolve) => session.once('close', () => resolve(Buffer.concat(status))));
  const held = (stream: SpdyStream | null) => {
    const queue: Buffer[] = [];
    let sink: ((d: Buffer) => void) | undefined;
    stream?.on('data', (d: Buffer) => (sink ? sink(d) : queue.push(d)));
    return (fn: (d: Buffer) => void) => { sink = fn; for (const d of queue.splice(0)) fn(d); };
  };
  const onStdout = held(stdout);
  const onStderr = held(stderr);
  try {
    await Promise.race([
      Promise.all(streams.map((s) => s.replied())),
      new Promise((_, reject) => setTimeout(() => reject(new Error('stream server did not accept the streams within 30s')), 30_000).unref()),
    ]);
  } catch (e) {
    session.close();
    throw e;
  }
  return {
    stdin: (d) => stdin?.write(d),
    closeStdin: () => stdin?.end(),
    resize: (json) => resize?.write(json),
    onStdout,
    onStderr,
    done,
    abort: () => session.close(),
  };
}
