// The recording proxy of `capstan trace`: plain HTTP on 127.0.0.1 for the traced command,
// HTTPS to the real API server with the original kubeconfig's CA, client certificate and
// bearer token. Every request gets `X-Capstan-Trace: 1` on its way; every reply's status,
// Server-Timing and the time the proxy saw it take are recorded. Bodies are piped, so watches
// and logs stream; upgrades (exec, attach, port-forward) are spliced through.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { ClientConfig } from '../../client/kubeconfig.js';
import { splice } from '../../util/splice.js';
import { parseServerTiming, type TimingEntry } from '../../util/server-timing.js';

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  /** When the proxy got the request, ms since the proxy started. */
  start: number;
  /** Until the reply's headers came back. */
  headersMs: number;
  /** Until the reply's body ended (a watch: until it was closed). */
  totalMs: number;
  stages: TimingEntry[];
  error?: string;
}

// Connection-level headers are the proxy's own business (RFC 9110 §7.6.1).
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function forwarded(headers: IncomingHttpHeaders, cfg: ClientConfig, upgrade: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && (!hopByHop.has(k) || (upgrade && (k === 'connection' || k === 'upgrade')))) out[k] = v;
  out['x-capstan-trace'] = '1';
  if (cfg.token && !out.authorization) out.authorization = `Bearer ${cfg.token}`;
  return out;
}

export class TraceProxy {
  readonly requests: RecordedRequest[] = [];
  private server?: Server;
  private readonly began = performance.now();
  private readonly target: URL;
  private readonly open = new Set<Duplex>();

  constructor(private readonly cfg: ClientConfig) {
    this.target = new URL(cfg.server);
  }

  private options(req: IncomingMessage, upgrade: boolean): RequestOptions {
    const https = this.target.protocol === 'https:';
    return {
      host: this.target.hostname.replace(/^\[|\]$/g, ''), port: this.target.port || (https ? 443 : 80),
      method: req.method, path: req.url, headers: forwarded(req.headers, this.cfg, upgrade),
      ...(https ? { ca: this.cfg.caPem, cert: this.cfg.certPem, key: this.cfg.keyPem, rejectUnauthorized: !this.cfg.insecureSkipTLSVerify, servername: /^[\d.]+$|:/.test(this.target.hostname) ? undefined : this.target.hostname } : {}),
      agent: false,
    };
  }

  private record(req: IncomingMessage, start: number): RecordedRequest {
    const r: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', status: 0, start: start - this.began, headersMs: 0, totalMs: 0, stages: [] };
    this.requests.push(r);
    return r;
  }

  private send(req: IncomingMessage, upgrade: boolean) {
    return (this.target.protocol === 'https:' ? httpsRequest : httpRequest)(this.options(req, upgrade));
  }

  async start(): Promise<string> {
    const server = this.server = createServer((req, res) => {
      const start = performance.now();
      const r = this.record(req, start);
      const up = this.send(req, false);
      up.on('response', (upRes) => {
        r.status = upRes.statusCode ?? 0;
        r.headersMs = performance.now() - start;
        r.stages = parseServerTiming(upRes.headers['server-timing']);
        const headers: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(upRes.headers)) if (v !== undefined && !hopByHop.has(k)) headers[k] = v;
        res.writeHead(r.status, headers);
        upRes.pipe(res);
        upRes.on('end', () => { r.totalMs = performance.now() - start; });
        upRes.on('error', () => res.destroy());
      });
      up.on('error', (e) => {
        r.error = e.message;
        r.totalMs = performance.now() - start;
        if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`capstan trace: ${e.message}\n`);
      });
      // A client that goes away (a watch stopped with ^C) ends the upstream request too.
      res.on('close', () => {
        if (!r.totalMs) r.totalMs = performance.now() - start;
        up.destroy();
      });
      req.pipe(up);
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const start = performance.now();
      const r = this.record(req, start);
      this.open.add(socket);
      socket.on('close', () => { this.open.delete(socket); r.totalMs = performance.now() - start; });
      const up = this.send(req, true);
      up.on('upgrade', (upRes, upSocket, upHead) => {
        r.status = upRes.statusCode ?? 101;
        r.headersMs = performance.now() - start;
        r.stages = parseServerTiming(upRes.headers['server-timing']);
        const lines = [`HTTP/1.1 ${upRes.statusCode} ${upRes.statusMessage ?? ''}`];
        for (let i = 0; i < upRes.rawHeaders.length; i += 2) lines.push(`${upRes.rawHeaders[i]}: ${upRes.rawHeaders[i + 1]}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (upHead.length) socket.write(upHead);
        if (head.length) upSocket.write(head);
        this.open.add(upSocket);
        upSocket.on('close', () => this.open.delete(upSocket));
        splice(socket, upSocket);
      });
      // A refused upgrade is an ordinary reply (a Status): pass it on and close.
      up.on('response', (upRes) => {
        r.status = upRes.statusCode ?? 0;
        r.headersMs = performance.now() - start;
        r.stages = parseServerTiming(upRes.headers['server-timing']);
        const lines = [`HTTP/1.1 ${upRes.statusCode} ${upRes.statusMessage ?? ''}`];
        for (let i = 0; i < upRes.rawHeaders.length; i += 2) {
          if (!hopByHop.has(upRes.rawHeaders[i].toLowerCase())) lines.push(`${upRes.rawHeaders[i]}: ${upRes.rawHeaders[i + 1]}`);
        }
        lines.push('Connection: close');
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const body = Buffer.concat(chunks);
          socket.end(`${lines.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n${body.toString('latin1')}`, 'latin1');
        });
      });
      up.on('error', (e) => { r.error = e.message; socket.destroy(); });
      up.end();
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.open) s.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((res) => server.close(() => res()));
  }
}

