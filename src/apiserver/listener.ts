// The API server's TLS listener: one https.Server whose handshake offers `h2` and `http/1.1`
// by ALPN. A connection that chose h2 is handed to an HTTP/2 session server; any other (no
// ALPN, or http/1.1) stays with the https.Server's own HTTP/1.1 handling, and so do upgrades:
// WebSocket and SPDY have no HTTP/2 form here, and Go's dialers for them offer only http/1.1.
// Both protocols call the same handler: on h2 with Node's compatibility request and response,
// which stand in for IncomingMessage and ServerResponse (responses drop the connection-specific
// headers HTTP/2 forbids, so handlers need not know which protocol they answer).
import { createServer as createHTTPSServer, type Server as HTTPSServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHTTP2Server, Http2ServerRequest, Http2ServerResponse, type Http2Server, type OutgoingHttpHeaders, type ServerHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';

export type Protocol = 'h2' | 'http/1.1';

export interface ListenerOptions {
  tls: { certPem: string; keyPem: string; caPem: string };
  /** HTTP/1.1: a request's headers must arrive within this of its start. */
  headersTimeoutMs: number;
  /** An idle connection is closed after this: HTTP/1.1 between requests, HTTP/2 once no stream is open. */
  keepAliveTimeoutMs: number;
  /** How often Node checks HTTP/1.1 connections against headersTimeoutMs. */
  checkIntervalMs: number;
  /** Offer h2 by ALPN (`--http2`); without it every connection is HTTP/1.1, as before. */
  http2: boolean;
  /** SETTINGS_MAX_CONCURRENT_STREAMS announced to HTTP/2 clients (`--http2-max-streams-per-connection`). */
  maxStreamsPerConnection: number;
  /** Called once per connection with the protocol it speaks. */
  onConnection?: (protocol: Protocol) => void;
}

/** kube-apiserver's limit since CVE-2023-44487 (Go's HTTP/2 client default too); a Go client opens another connection past it. */
export const defaultMaxStreamsPerConnection = 100;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

// RFC 9113 §8.2.2: these make an HTTP/2 message malformed; Node throws on all but Connection,
// which it drops with a warning. Handlers written for HTTP/1.1 set some (a watch's chunking,
// Connection: close after a refused body, an event stream's keep-alive).
const connectionSpecific = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

// Node 20's compatibility request lacks IncomingMessage's headersDistinct (impersonation reads
// repeated Impersonate-Group headers from it); `headers` joins repeats with ", ", rawHeaders
// keeps each.
class APIRequest extends Http2ServerRequest {
  get headersDistinct(): Record<string, string[]> {
    const distinct: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    const raw = this.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (!name.startsWith(':')) (distinct[name] ??= []).push(raw[i + 1]!);
    }
    return distinct;
  }
}

class APIResponse extends Http2ServerResponse {
  override setHeader(name: string, value: number | string | readonly string[]): this {
    if (!connectionSpecific.has(name.toLowerCase())) super.setHeader(name, value);
    return this;
  }

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const headers = rest.find((r): r is OutgoingHttpHeaders => typeof r === 'object' && r !== null);
    if (headers) for (const name of Object.keys(headers)) if (connectionSpecific.has(name.toLowerCase())) delete headers[name];
    return (super.writeHead as (code: number, ...r: unknown[]) => this)(statusCode, ...rest);
  }
}

/** The TLS connection a request came on (one per HTTP/2 session, shared by its streams). */
export function connectionOf(req: IncomingMessage): TLSSocket {
  const session = (req as unknown as Partial<Http2ServerRequest>).stream?.session;
  return (session?.socket ?? req.socket) as TLSSocket;
}

/**
 * Writes a long response's body chunks (a watch's events): on HTTP/2 straight to the stream,
 * past the compatibility response's per-write checks (its headers must have been sent); on
 * HTTP/1.1 through the response, which chunks them. Writes after the stream ended are dropped,
 * as the compatibility response drops them.
 */
export function bodyWriter(res: ServerResponse): (chunk: Buffer | string) => void {
  const stream = (res as unknown as Partial<Http2ServerResponse>).stream;
  if (!stream) return (chunk) => { res.write(chunk); };
  return (chunk) => { if (!stream.destroyed && !stream.writableEnded) stream.write(chunk); };
}

export class APIListener {
  /** The listening server; its 'connection', 'secureConnection' and 'upgrade' events are those of every connection. */
  readonly server: HTTPSServer;
  private readonly sessions = new Set<ServerHttp2Session>();

  constructor(private readonly opts: ListenerOptions, handler: Handler) {
    this.server = createHTTPSServer({
      cert: opts.tls.certPem, key: opts.tls.keyPem, ca: opts.tls.caPem,
      requestCert: true, rejectUnauthorized: false,
      // h2 first: a client offering both (curl, client-go) gets HTTP/2.
      ALPNProtocols: opts.http2 ? ['h2', 'http/1.1'] : ['http/1.1'],
      // Long watches, logs -f and exec must not be cut by a timeout on the whole request; the
      // headers of a request still must arrive in time, and idle connections are closed.
      requestTimeout: 0, headersTimeout: opts.headersTimeoutMs, keepAliveTimeout: opts.keepAliveTimeoutMs,
      connectionsCheckingInterval: opts.checkIntervalMs,
      // The API server's ConnectionLimits enforces the handshake deadline (surviving a stalled
      // event loop); Node's own timer (0 would mean its default, 120 s) never fires.
      handshakeTimeout: 2 ** 31 - 1,
    }, handler);
    if (!opts.http2) {
      if (opts.onConnection) this.server.on('secureConnection', () => opts.onConnection!('http/1.1'));
      return;
    }
    const h2: Http2Server = createHTTP2Server({
      settings: { maxConcurrentStreams: opts.maxStreamsPerConnection },
      Http2ServerRequest: APIRequest, Http2ServerResponse: APIResponse as unknown as typeof Http2ServerResponse,
    }, handler as unknown as (req: Http2ServerRequest, res: Http2ServerResponse) => void);
    h2.on('session', (session) => this.track(session));
    // The https.Server handles a secured socket in its one 'secureConnection' listener; it is
    // kept for everything but h2.
    const http1 = this.server.listeners('secureConnection');
    if (http1.length !== 1) throw new Error(`the HTTPS server has ${http1.length} connection handlers, expected its own one`);
    const [serveHTTP1] = http1 as ((socket: TLSSocket) => void)[];
    this.server.removeAllListeners('secureConnection');
    this.server.on('secureConnection', (socket: TLSSocket) => {
      const protocol: Protocol = socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1';
      opts.onConnection?.(protocol);
      if (protocol === 'h2') h2.emit('connection', socket);
      else serveHTTP1!.call(this.server, socket);
    });
  }

  /** A session with no open stream for keepAliveTimeoutMs is closed (GOAWAY), as an idle HTTP/1.1 connection is. */
  private track(session: ServerHttp2Session): void {
    this.sessions.add(session);
    let open = 0;
    let idle: NodeJS.Timeout | undefined;
    const arm = () => { idle = setTimeout(() => session.close(), this.opts.keepAliveTimeoutMs).unref(); };
    arm();
    session.on('stream', (stream) => {
      open++;
      clearTimeout(idle);
      stream.once('close', () => { if (--open === 0 && !session.closed) arm(); });
    });
    // Errors end the session; the streams' requests see their close. Nothing to rethrow.
    session.on('error', () => undefined);
    session.once('close', () => { clearTimeout(idle); this.sessions.delete(session); });
  }

  /** Ends every connection now (watches included), both protocols. */
  closeAllConnections(): void {
    this.server.closeAllConnections();
    for (const s of this.sessions) s.destroy();
  }

  /** HTTP/2 sessions open now. */
  get http2Sessions(): number {
    return this.sessions.size;
  }

  /** Stops listening and ends every connection. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.closeAllConnections();
    return closed;
  }
}
