// HTTPS transport to the API server: JSON requests with client certificates or a bearer
// token, keep-alive connections, deadlines, and streaming watches. Everything capstan runs
// outside the API server talks to it through this, exactly as kubectl does.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest, type AgentOptions } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { APIError, type StatusBody } from './errors.js';
import type { ClientConfig } from './kubeconfig.js';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Milliseconds; default 30 s. */
  timeoutMs?: number;
}

export interface WatchEventRaw {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

export interface WatchHandle {
  /** Ends the stream; the iterator then finishes. */
  close(): void;
  [Symbol.asyncIterator](): AsyncIterator<WatchEventRaw>;
}

function buildPath(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * How often a client certificate the kubeconfig names by file is read again (client-go reloads
 * such files too): a certificate renewed on disk — a node component's, which the kubelet renews
 * (kubelet/certificate/components.ts) — is used without a restart, long before the old expires.
 */
export const CERT_FILE_RECHECK_MS = 60_000;

/**
 * How long a connection may wait in the pool for its next request. Well under the API server's
 * keep-alive timeout (connectionDefaults, 120 s), so the client closes an idle connection before
 * the server does and never sends a request on one the server is closing at that moment.
 * Node's Agent keeps free sockets for ever unless given a timeout, and its `timeout` option
 * would also time out sockets in use (watches); this one applies to free sockets only.
 */
export const IDLE_CONNECTION_MS = 60_000;

/** A keep-alive pool whose idle connections close after `idleMs`. */
class PoolAgent extends Agent {
  constructor(opts: AgentOptions, private readonly idleMs: number) {
    super(opts);
    // After Node's own 'free' handler has put the socket in the pool (or destroyed it): a free
    // socket's timeout destroys it (the Agent's own listener).
    this.on('free', (socket: Duplex & { setTimeout(ms: number): void }) => { if (!socket.destroyed) socket.setTimeout(this.idleMs); });
  }

  override reuseSocket(socket: Duplex & { setTimeout(ms: number): void }, req: ClientRequest): void {
    socket.setTimeout(0);
    super.reuseSocket(socket, req);
  }
}

/** The server closed or reset a reused keep-alive connection before answering: nothing was done. */
function resetBeforeAnswer(req: ClientRequest, answered: boolean, e: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && !answered && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
}

export class RESTClient {
  private agent: Agent;
  private recheck?: ReturnType<typeof setInterval>;
  /** The certificate file's text as last read. */
  private certFileText?: string;
  private host: string;
  private port: number;
  /** Acting as another user (Impersonate-User/-Group, as `kubectl --as --as-group`). */
  private impersonation?: { user: string; groups: string[] };
  /** An impersonating view of another client: its connections are the other's to close. */
  private borrowed = false;

  constructor(readonly config: ClientConfig, readonly userAgent = 'capstan', certFileRecheckMs = CERT_FILE_RECHECK_MS, private readonly idleConnectionMs = IDLE_CONNECTION_MS) {
    const u = new URL(config.server);
    this.host = u.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(u.port || 443);
    this.agent = this.newAgent();
    if (config.certFile && config.keyFile) {
      this.certFileText = config.certPem;
      this.recheck = setInterval(() => this.reloadClientCertificate(), certFileRecheckMs);
      this.recheck.unref();
    }
  }

  /**
   * Reads the kubeconfig's certificate files again and switches to the pair they hold when it
   * is another certificate. A pair that does not read as one (a file being rewritten by hand)
   * is skipped until the next look. Returns whether it switched.
   */
  reloadClientCertificate(): boolean {
    const { certFile, keyFile } = this.config;
    if (!certFile || !keyFile) return false;
    let certPem: string, keyPem: string, fingerprint: string;
    try {
      certPem = readFileSync(certFile, 'utf8');
      if (certPem === this.certFileText) return false;
      keyPem = readFileSync(keyFile, 'utf8');
      fingerprint = new X509Certificate(certPem).fingerprint256;
      createPrivateKey(keyPem);
    } catch {
      return false;
    }
    this.certFileText = certPem;
    // The same certificate (its owner switched to it already: a kubelet's own rotation).
    if (this.config.certPem && new X509Certificate(this.config.certPem).fingerprint256 === fingerprint) return false;
    this.setClientCertificate(certPem, keyPem);
    return true;
  }

  /**
   * A client that sends every request as `user` in `groups` (the API server authorizes the
   * `impersonate` verb for this client's own identity first) over this client's connections:
   * thousands of identities cost one connection pool (hollow nodes).
   */
  impersonating(user: string, groups: string[]): RESTClient {
    const view = Object.create(RESTClient.prototype) as RESTClient;
    Object.assign(view, this, { impersonation: { user, groups }, borrowed: true });
    return view;
  }

  private newAgent(): Agent {
    const c = this.config;
    // One TLS context for every connection: without it each new connection parses the CA,
    // certificate and key again (a burst of 50 requests opens 50 connections).
    const secureContext = createSecureContext({ ca: c.caPem, cert: c.certPem, key: c.keyPem });
    return new PoolAgent({ keepAlive: true, maxSockets: c.maxSockets ?? 64, ca: c.caPem, cert: c.certPem, key: c.keyPem, secureContext, rejectUnauthorized: !c.insecureSkipTLSVerify }, this.idleConnectionMs);
  }

  /**
   * Switches to a new client certificate (a kubelet's rotated one). Open connections, watches
   * included, are closed, as upstream's rotating transport does: they reconnect with it.
   */
  setClientCertificate(certPem: string, keyPem: string): void {
    this.config.certPem = certPem;
    this.config.keyPem = keyPem;
    const old = this.agent;
    this.agent = this.newAgent();
    old.destroy();
  }

  private headers(body?: Buffer, contentType?: string): Record<string, string | number> {
    const h: Record<string, string | number> = { Accept: 'application/json', 'User-Agent': this.userAgent };
    if (this.config.token) h.Authorization = `Bearer ${this.config.token}`;
    if (this.impersonation) {
      h['Impersonate-User'] = this.impersonation.user;
      // Node's http joins an array into repeated headers, one group each.
      if (this.impersonation.groups.length) (h as Record<string, unknown>)['Impersonate-Group'] = this.impersonation.groups;
    }
    if (body) { h['Content-Type'] = contentType ?? 'application/json'; h['Content-Length'] = body.length; }
    return h;
  }

  /**
   * Sends the request; a request whose reused keep-alive connection the server closed before any
   * answer (it was closing the connection as this went out on it) goes again on another. Each
   * such failure costs one pooled connection, so this ends at a new one at the latest.
   */
  private open(method: string, path: string, body: Buffer | undefined, contentType: string | undefined, timeoutMs: number): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = httpsRequest({
        host: this.host, port: this.port, method, path, agent: this.agent,
        headers: this.headers(body, contentType), servername: this.host.match(/^[\d.]+$|:/) ? undefined : this.host,
      }, (res) => { answered = true; resolve(res); });
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new APIError(504, 'Timeout', `${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (resetBeforeAnswer(req, answered, e)) resolve(this.open(method, path, body, contentType, timeoutMs));
        else reject(e instanceof APIError ? e : new APIError(0, 'ConnectionError', `${method} ${path}: ${e.message}`));
      });
      req.end(body);
    });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const body = opts.body === undefined ? undefined : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
    const res = await this.open(method, buildPath(path, opts.query), body, opts.contentType, opts.timeoutMs ?? 30_000);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
    if (code >= 200 && code < 300) return parsed as T;
    const status = (typeof parsed === 'object' && parsed ? parsed : {}) as StatusBody;
    throw new APIError(code, status.reason ?? 'Unknown', status.message ?? `${method} ${path}: HTTP ${code}`, status);
  }

  /** Opens a watch stream; a non-200 answer rejects with APIError. */
  async watch(path: string, query: RequestOptions['query'] = {}): Promise<WatchHandle> {
    const res = await this.open('GET', buildPath(path, { ...query, watch: true }), undefined, undefined, 0);
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      let status: StatusBody = {};
      try { status = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* not JSON */ }
      throw new APIError(res.statusCode ?? 0, status.reason ?? 'Unknown', status.message ?? `watch ${path}: HTTP ${res.statusCode}`, status);
    }
    res.setEncoding('utf8');
    let closed = false;
    const close = () => { closed = true; res.destroy(); };
    async function* events(): AsyncGenerator<WatchEventRaw> {
      let buf = '';
      try {
        for await (const chunk of res as AsyncIterable<string>) {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) yield JSON.parse(line) as WatchEventRaw;
          }
        }
      } catch (e) {
        if (!closed) throw e;
      }
    }
    const it = events();
    return { close, [Symbol.asyncIterator]: () => it };
  }

  close(): void {
    if (this.borrowed) return;
    clearInterval(this.recheck);
    this.agent.destroy();
  }
}
