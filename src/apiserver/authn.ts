// Authentication: who is calling. Client certificates signed by the cluster CA (CN is the
// user, O the groups) and bearer tokens from a static token file. Anything else is 401.
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface Authenticator {
  authenticate(req: IncomingMessage): UserInfo | null;
}

/** Reads a Kubernetes static token file: `token,user,uid,"group1,group2"` per line. */
export function parseTokenFile(text: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const fields = splitCSV(line);
    if (fields.length < 2) throw new Error(`token file: need at least token and user in "${line.slice(0, 20)}..."`);
    const [token, username, uid, groups] = fields;
    tokens.set(token, { username, uid: uid || undefined, groups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [] });
  }
  return tokens;
}

function splitCSV(line: string): string[] {
  const out: string[] = [];
  let cur = '', quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) { out.push(cur); cur = ''; }
    else cur += ch;
  }
  out.push(cur);
  return out.map((f) => f.trim());
}

export class ClientCertAuthenticator implements Authenticator {
  // A connection's certificate never changes: parse it once per connection, not per request.
  private bySocket = new WeakMap<TLSSocket, UserInfo | null>();

  authenticate(req: IncomingMessage): UserInfo | null {
    const socket = req.socket as TLSSocket;
    const cached = this.bySocket.get(socket);
    if (cached !== undefined) return cached;
    const user = this.fromCertificate(socket);
    this.bySocket.set(socket, user);
    return user;
  }

  private fromCertificate(socket: TLSSocket): UserInfo | null {
    if (!socket.authorized || typeof socket.getPeerCertificate !== 'function') return null;
    const cert = socket.getPeerCertificate();
    if (!cert || !cert.subject || !cert.subject.CN) return null;
    const o = cert.subject.O as unknown;
    const groups = Array.isArray(o) ? o : o ? [String(o)] : [];
    return { username: String(cert.subject.CN), groups };
  }
}

export class TokenFileAuthenticator implements Authenticator {
  private tokens: Map<string, UserInfo>;
  constructor(path: string) {
    this.tokens = parseTokenFile(readFileSync(path, 'utf8'));
  }
  authenticate(req: IncomingMessage): UserInfo | null {
    const h = req.headers.authorization;
    if (!h) return null;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    return m ? this.tokens.get(m[1]) ?? null : null;
  }
}

/** Tries each authenticator in turn; every authenticated user is also `system:authenticated`. */
export function unionAuthenticator(list: Authenticator[]): Authenticator {
  return {
    authenticate(req) {
      for (const a of list) {
        const u = a.authenticate(req);
        if (u) return u.groups.includes('system:authenticated') ? u : { ...u, groups: [...u.groups, 'system:authenticated'] };
      }
      return null;
    },
  };
}
