// Port forwarding over WebSocket (kubectl ≥1.31, upstream's PortForwardWebsockets): the
// client offers the subprotocol `SPDY/3.1+portforward.k8s.io` and then speaks plain SPDY
// inside binary WebSocket messages, whose boundaries mean nothing. As kube-apiserver's
// tunneling handler does, the API server asks the kubelet for a SPDY upgrade with the
// protocols the client named, answers the client's WebSocket handshake with the one the
// kubelet chose (prefixed again), and carries the bytes: each kubelet read becomes one
// binary message, each message's payload is written to the kubelet.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export const TUNNELING_PREFIX = 'SPDY/3.1+';

/** The SPDY protocols a WebSocket request asks to tunnel (`SPDY/3.1+<p>.k8s.io`, prefix dropped). */
export function tunneledProtocols(req: IncomingMessage): string[] {
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return [];
  return String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim())
    .filter((p) => p.startsWith(TUNNELING_PREFIX) && p.endsWith('.k8s.io'))
    .map((p) => p.slice(TUNNELING_PREFIX.length));
}

/** Unacknowledged bytes sent to the client before the kubelet side is paused. */
const HIGH_WATER = 1 << 20;

/**
 * Completes the client's WebSocket handshake with `SPDY/3.1+<chosen>` and relays between it
 * and `up` (the kubelet's connection, already upgraded to SPDY; `early` is what it sent
 * after its 101). Either side closing closes the other.
 */
export function acceptTunnel(req: IncomingMessage, socket: Duplex, head: Buffer, chosen: string, up: Duplex, early: Buffer, extraHeaders: string[] = []): void {
  // `ws` refuses subprotocols that are not RFC 7230 tokens, and '/' is not a token character
  // (gorilla/websocket, on both ends upstream, does not check): the offer is taken out of its
  // sight and the answer added to the handshake's headers directly.
  const offered = tunneledProtocols(req);
  delete req.headers['sec-websocket-protocol'];
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('headers', (headers) => {
    if (chosen && offered.includes(chosen)) headers.push(`Sec-WebSocket-Protocol: ${TUNNELING_PREFIX}${chosen}`);
    headers.push(...extraHeaders);
  });
  // A refused handshake is answered by `ws` without calling back: the kubelet side goes too.
  let accepted = false;
  socket.once('close', () => { if (!accepted) up.destroy(); });
  server.handleUpgrade(req, socket, head, (ws: WebSocket) => {
    accepted = true;
    relay(ws, up, early);
  });
}

function relay(ws: WebSocket, up: Duplex, early: Buffer): void {
  let inFlight = 0;
  const send = (d: Buffer) => {
    inFlight += d.length;
    ws.send(d, { binary: true }, () => {
      inFlight -= d.length;
      if (inFlight < HIGH_WATER && up.isPaused()) up.resume();
    });
    if (inFlight >= HIGH_WATER) up.pause();
  };
  if (early.length) send(early);
  up.on('data', send);
  up.resume(); // the response head was read with the connection paused
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const bytes = isBinary ? data : Buffer.from(data);
    if (!up.write(bytes)) {
      ws.pause();
      up.once('drain', () => ws.resume());
    }
  });
  const closeWs = () => { if (ws.readyState === ws.OPEN) ws.close(1000); };
  up.on('end', closeWs);
  up.on('close', closeWs);
  up.on('error', () => ws.terminate());
  ws.on('close', () => {
    up.end();
    setTimeout(() => up.destroy(), 30_000).unref();
  });
  ws.on('error', () => up.destroy());
}
