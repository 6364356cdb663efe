// Limits on connections that have not authenticated: a cap on their number, closing the
// oldest first, so sockets opened and left idle by anyone who can reach the port cannot use up
// the process's file descriptors and lock out a client with credentials. A connection becomes
// trusted when its TLS handshake verified a client certificate, or when a request on it
// carried credentials the authenticator accepts; trusted connections are never counted or
// closed here (watches, logs -f and exec run on them for as long as they like).
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ConnectionLimitsOptions {
  /** Connections not yet authenticated kept open at most; the oldest is closed for a new one. */
  maxUnauthenticated: number;
  /** A TLS handshake is given up when the client sent nothing for this long. */
  handshakeTimeoutMs: number;
}

export class ConnectionLimits {
  /** Untrusted connections by `address:port`, oldest first (Map keeps insertion order). */
  private readonly untrusted = new Map<string, Socket>();
  private closedForLimit = 0;
  /** Handshake deadlines of connections not yet through their TLS handshake, by `address:port`. */
  private readonly handshaking = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly opts: ConnectionLimitsOptions) {}

  /** The server's 'connection' event: every accepted TCP connection starts untrusted. */
  accepted(socket: Socket): void {
    const key = keyOf(socket);
    this.untrusted.set(key, socket);
    socket.once('close', () => {
      if (this.untrusted.get(key) === socket) this.untrusted.delete(key);
      clearTimeout(this.handshaking.get(key));
      this.handshaking.delete(key);
    });
    this.handshakeDeadline(key, socket);
    for (const [oldKey, old] of this.untrusted) {
      if (this.untrusted.size <= this.opts.maxUnauthenticated) break;
      if (old === socket) continue;
      this.untrusted.delete(oldKey);
      this.closedForLimit++;
      old.destroy();
    }
  }

  /** The server's 'secureConnection' event: a verified client certificate is enough. */
  handshaken(tls: TLSSocket): void {
    clearTimeout(this.handshaking.get(keyOf(tls)));
    this.handshaking.delete(keyOf(tls));
    if (tls.authorized) this.trust(tls);
  }

  /**
   * Closes a connection whose client sent nothing for handshakeTimeoutMs before its TLS handshake
   * finished. Node's own handshake timeout is an idle timer on the socket: after the event loop
   * stalled (a loaded machine, large bodies decoded), it fires in the timers phase before the
   * loop reads what the client sent meanwhile, and resets handshakes that were on time (seen as
   * ECONNRESET under load). This one looks again once the loop has read (setImmediate runs after
   * the I/O poll): bytes read since the last look give the client another period.
   */
  private handshakeDeadline(key: string, socket: Socket): void {
    let seen = socket.bytesRead;
    const arm = () => this.handshaking.set(key, setTimeout(() => setImmediate(look), this.opts.handshakeTimeoutMs));
    const look = () => {
      if (!this.handshaking.has(key) || socket.destroyed) return;
      if (socket.bytesRead === seen) { socket.destroy(); return; }
      seen = socket.bytesRead;
      arm();
    };
    arm();
  }

  /** A request on this connection authenticated. */
  trust(socket: Socket): void {
    this.untrusted.delete(keyOf(socket));
  }

  get stats(): { unauthenticated: number; closedForLimit: number } {
    return { unauthenticated: this.untrusted.size, closedForLimit: this.closedForLimit };
  }
}

// The raw socket and the TLS socket wrapping it share their peer's address and port.
function keyOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
