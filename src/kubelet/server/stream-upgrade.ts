// The SPDY upgrade handshake with the CRI stream server: one HTTP request on a fresh
// connection, a 101 answer, and then the connection carries SPDY frames.
import type { Duplex } from 'node:stream';

export interface UpgradeAnswer {
  /** The stream server's status line and headers, as sent (with the final CRLFCRLF). */
  head: Buffer;
  /** The protocol it chose (`X-Stream-Protocol-Version`), '' when it named none. */
  protocol: string;
  /** Whatever arrived after the head: the first SPDY frames. */
  rest: Buffer;
}

/** Sends `POST url` with `Upgrade: SPDY/3.1` offering `protocols`; rejects unless the answer is 101. */
export function upgradeToStreamServer(socket: Duplex, u: URL, protocols: string[]): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > 64 * 1024) fail(new Error('stream server: response headers too large'));
        return;
      }
      cleanup();
      const text = buf.subarray(0, end).toString('latin1');
      const statusLine = text.split('\r\n')[0];
      const code = Number(statusLine.split(' ')[1]);
      if (code !== 101) {
        reject(new Error(`stream server answered ${statusLine.trim()}: ${buf.subarray(end + 4).toString().trim()}`));
        return;
      }
      const protocol = /\r\nx-stream-protocol-version:[ \t]*([^\r]*)/i.exec(text)?.[1]?.trim() ?? '';
      resolve({ head: buf.subarray(0, end + 4), protocol, rest: buf.subarray(end + 4) });
    };
    const onEnd = () => fail(new Error('stream server closed the connection during the upgrade'));
    const fail = (e: Error) => { cleanup(); reject(e); };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', fail);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', fail);
    socket.write([
      `POST ${u.pathname}${u.search} HTTP/1.1`,
      `Host: ${u.host}`,
      'Connection: Upgrade',
      'Upgrade: SPDY/3.1',
      ...protocols.map((p) => `X-Stream-Protocol-Version: ${p}`),
      'Content-Length: 0',
      '', '',
    ].join('\r\n'));
  });
}

/** Checks a stream server URL and where to dial for it. */
export function streamServerAddress(url: string): { u: URL; host: string; port: number } {
  const u = new URL(url);
  if (u.protocol !== 'http:') throw new Error(`stream server URL ${url}: only http is supported`);
  return { u, host: u.hostname, port: Number(u.port || 80) };
}
