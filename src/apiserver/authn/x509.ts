// Client certificates signed by the cluster CA: CN is the user, O the groups. A certificate
// the CA did not sign is refused (401), not ignored.
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { AuthenticationError, type RequestAuthenticator, type UserInfo } from './types.js';
import { connectionOf } from '../listener.js';

export class ClientCertAuthenticator implements RequestAuthenticator {
  // A connection's certificate never changes: judge it once per connection (an HTTP/2 one
  // carries many requests at once), not per request.
  private bySocket = new WeakMap<TLSSocket, UserInfo | null | AuthenticationError>();

  async authenticate(req: IncomingMessage): Promise<UserInfo | null> {
    const socket = connectionOf(req);
    let verdict = this.bySocket.get(socket);
    if (verdict === undefined) {
      verdict = fromCertificate(socket);
      this.bySocket.set(socket, verdict);
    }
    if (verdict instanceof AuthenticationError) throw verdict;
    return verdict;
  }
}

function fromCertificate(socket: TLSSocket): UserInfo | null | AuthenticationError {
  if (typeof socket.getPeerCertificate !== 'function') return null;
  const cert = socket.getPeerCertificate();
  if (!cert || !cert.subject) return null;
  if (!socket.authorized) return new AuthenticationError(`verifying certificate: ${String(socket.authorizationError)}`);
  if (!cert.subject.CN) return null;
  const o = cert.subject.O as unknown;
  const groups = Array.isArray(o) ? o.map(String) : o ? [String(o)] : [];
  return { username: String(cert.subject.CN), groups };
}
