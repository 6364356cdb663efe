// Serves the lab view under a path prefix: the page, the model as JSON, the model as a
// Server-Sent Events stream (one event per change, coalesced), and "follow a packet".
// The same handler runs in `capstan lab view` (objects from informers over a kubeconfig) and in
// the API server (objects from its watch cache, admin only by the non-resource URL rule).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildView, type ViewInput, type ViewModel } from './model.js';
import { labViewPage } from './page.js';
import { followPacket } from './path.js';

/** Where the objects come from. `start` resolves once a first complete snapshot can be taken. */
export interface ViewSource {
  start(): Promise<void>;
  stop(): Promise<void>;
  snapshot(): Promise<ViewInput>;
  /** Calls `fn` after any change to a watched object. */
  onChange(fn: () => void): void;
}

export interface LabViewOptions {
  source: ViewSource;
  /** Stop the source this long after the last viewer leaves (the API server's case); never when undefined. */
  idleStopMs?: number;
  /** Coalescing window: changes within it make one update. */
  coalesceMs?: number;
  /** Keep-alive comments on idle event streams. */
  heartbeatMs?: number;
}

export class LabView {
  private streams = new Set<ServerResponse>();
  private started?: Promise<void>;
  private idleTimer?: NodeJS.Timeout;
  private pending?: NodeJS.Timeout;
  private current?: { model: ViewModel; json: string };
  /** Counts changes, so a model computed across a change is not kept as current. */
  private changes = 0;
  private heartbeat?: NodeJS.Timeout;
  private subscribed = false;

  constructor(private o: LabViewOptions) {}

  private ensureStarted(): Promise<void> {
    if (this.idleTimer) { clearTimeout(this.idleTimer); this.idleTimer = undefined; }
    if (!this.subscribed) {
      this.subscribed = true;
      this.o.source.onChange(() => this.changed());
    }
    this.started ??= this.o.source.start().catch((e: unknown) => { this.started = undefined; throw e; });
    return this.started;
  }

  private changed(): void {
    this.current = undefined;
    this.changes++;
    if (!this.streams.size || this.pending) return;
    this.pending = setTimeout(() => { this.pending = undefined; void this.push(); }, this.o.coalesceMs ?? 25);
  }

  private async model(): Promise<{ model: ViewModel; json: string }> {
    if (this.current) return this.current;
    const at = this.changes;
    const model = buildView(await this.o.source.snapshot());
    const cur = { model, json: JSON.stringify(model) };
    if (at === this.changes) this.current = cur;
    return cur;
  }

  private async push(): Promise<void> {
    const { json } = await this.model();
    for (const res of this.streams) res.write(`event: model\ndata: ${json}\n\n`);
  }

  private release(res: ServerResponse): void {
    this.streams.delete(res);
    if (this.streams.size || this.o.idleStopMs === undefined) return;
    if (this.heartbeat) { clearInterval(this.heartbeat); this.heartbeat = undefined; }
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      const s = this.started;
      this.started = undefined;
      this.current = undefined;
      if (s) void s.then(() => this.o.source.stop()).catch(() => undefined);
    }, this.o.idleStopMs);
    this.idleTimer.unref();
  }

  /** Serves `sub` (the path after the prefix: '', '/model', '/events', '/path'). False when `sub` is none of them. */
  async serve(req: IncomingMessage, res: ServerResponse, prefix: string, sub: string, query: URLSearchParams): Promise<boolean> {
    if (sub === '' || sub === '/') {
      const body = labViewPage(prefix);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
      res.end(body);
      return true;
    }
    if (sub === '/model' || sub === '/path') {
      await this.ensureStarted();
      const { model, json } = await this.model();
      const body = sub === '/model' ? json : JSON.stringify(followPacket(model, query.get('from') ?? '', query.get('service') ?? '', query.has('port') ? Number(query.get('port')) : undefined));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
      res.end(body);
      return true;
    }
    if (sub === '/events') {
      await this.ensureStarted();
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      res.flushHeaders();
      this.streams.add(res);
      req.on('close', () => this.release(res));
      this.heartbeat ??= setInterval(() => { for (const s of this.streams) s.write(': keep-alive\n\n'); }, this.o.heartbeatMs ?? 15_000);
      this.heartbeat.unref();
      const { json } = await this.model();
      res.write(`event: model\ndata: ${json}\n\n`);
      return true;
    }
    return false;
  }

  async close(): Promise<void> {
    for (const res of this.streams) res.end();
    this.streams.clear();
    if (this.pending) clearTimeout(this.pending);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.started) await this.started.then(() => this.o.source.stop()).catch(() => undefined);
    this.started = undefined;
  }
}
