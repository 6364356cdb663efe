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
}

export class ConnectionLimits {
  /** Untrusted connections by `address:port`, oldest first (Map keeps insertion order). */
  private readonly untrusted = new Map<string, Socket>();
  private closedForLimit = 0;

  constructor(private readonly opts: ConnectionLimitsOptions) {}

  /** The server's 'connection' event: every accepted TCP connection starts untrusted. */
  accepted(socket: Socket): void {
    const key = keyOf(socket);
    this.untrusted.set(key, socket);
    socket.once('close', () => { if (this.untrusted.get(key) === socket) this.untrusted.delete(key); });
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
    if (tls.authorized) this.trust(tls);
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
