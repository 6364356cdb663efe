// Port forwarding for WebSocket clients that speak the channel protocol straight to the pod
// (the official Python client: `v4.channel.k8s.io` on pods/portforward?ports=8080,9090),
// as upstream's kubelet serves it: one connection per listed port for the whole session;
// port i has data channel 2i and error channel 2i+1, and the first message on each carries
// the port as two little-endian bytes. The connections are opened as stream pairs on one
// SPDY session with the CRI stream server (portforward.k8s.io), which dials inside the pod's
// network namespace. The session ends when every stream has ended (the runtime reports a failed dial on the
// error stream, then ends both) or the client goes.
import type WebSocket from 'ws';
import type { SpdySession, SpdyStream } from '../../util/spdy/index.js';

export const PORT_FORWARD_WS_PROTOCOL = 'v4.channel.k8s.io';

/** `ports` query values (repeated or comma-separated) as port numbers; throws on a bad one. */
export function parsePorts(values: string[]): number[] {
  const ports = values.flatMap((v) => v.split(',')).map((p) => p.trim()).filter(Boolean).map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || n < 1 || n > 65535) throw new Error(`invalid port "${p}": must be between 1 and 65535`);
    return n;
  });
  if (!ports.length) throw new Error('query parameter "port" is required');
  return ports;
}

export function bridgePortForward(ws: WebSocket, ports: number[], session: SpdySession): void {
  const frame = (channel: number, data: Buffer) => { if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data])); };
  const data: SpdyStream[] = [];
  // Each port's data and error streams; the client is let go once all have ended.
  let open = ports.length * 2;
  const ended = () => { if (--open === 0 && ws.readyState === ws.OPEN) ws.close(1000); };
  ports.forEach((port, i) => {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(port);
    frame(2 * i, prefix);
    frame(2 * i + 1, prefix);
    const headers = { port: String(port), requestid: String(i) };
    const error = session.openStream({ ...headers, streamtype: 'error' }, { fin: true });
    const d = session.openStream({ ...headers, streamtype: 'data' });
    data.push(d);
    error.on('data', (b: Buffer) => frame(2 * i + 1, b));
    d.on('data', (b: Buffer) => frame(2 * i, b));
    d.once('end', ended);
    error.once('end', ended);
  });
  ws.on('message', (msg: Buffer, isBinary: boolean) => {
    const m = isBinary ? msg : Buffer.from(msg);
    if (!m.length || m[0] % 2) return; // error channels are read-only
    data[m[0] / 2]?.write(m.subarray(1));
  });
  ws.on('close', () => session.close());
  ws.on('error', () => ws.terminate());
  session.once('close', () => { if (ws.readyState === ws.OPEN) ws.close(1000); });
}
