// An in-process API server for behavioural tests: a fresh SQLite store and cluster PKI in a
// temp dir, the real HTTPS listener on loopback, and a small typed client that talks to it
// the way kubectl does (admin client certificate, or a bearer token, or nothing at all).
// Everything is stopped and removed when the test ends, also when it fails.
import { Agent } from 'node:https';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIServer, type APIServerOptions } from '../../src/apiserver/server.js';
import { ensureClusterPKI, type ClusterPKI } from '../../src/cli/pki-files.js';
import { logger } from '../../src/log/index.js';
import { openStore } from '../../src/storage/index.js';
import type { Store } from '../../src/storage/store.js';

export interface Response<T = any> {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the reply is JSON, else the text. */
  body: T;
  text: string;
}

export interface RequestOpts {
  /** Sent as JSON unless a string or Buffer. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string | number>;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: any;
}

export interface WatchStream extends AsyncIterable<WatchEvent> {
  status: number;
  headers: IncomingHttpHeaders;
  /** The next event, or null when the stream ended; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<WatchEvent | null>;
  /** Resolves true when the server ended the stream within `timeoutMs`. */
  ended(timeoutMs?: number): Promise<boolean>;
  close(): void;
}

export interface Credentials {
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

/** A client for one API server; every method resolves for any status code. */
export class APIClient {
  private open = new Set<{ destroy(): void }>();

  /** `keepAlive` reuses TLS connections, as real clients do (benchmarks); tests default to one per request. */
  constructor(readonly port: number, readonly creds: Credentials, private agent?: Agent) {}

  /** The same server with other credentials. */
  as(creds: Partial<Credentials>): APIClient {
    return new APIClient(this.port, { ca: this.creds.ca, ...creds });
  }

  private options(method: string, path: string, opts: RequestOpts, body?: Buffer): RequestOptions {
    const headers: Record<string, string | number> = { Accept: opts.accept ?? 'application/json', ...opts.headers };
    if (body) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = body.length;
    }
    if (this.creds.token) headers.Authorization = `Bearer ${this.creds.token}`;
    return {
      host: '127.0.0.1', port: this.port, method, path, headers,
      ca: this.creds.ca, cert: this.creds.cert, key: this.creds.key,
      servername: 'localhost', agent: this.agent ?? false,
    };
  }

  request<T = any>(method: string, path: string, opts: RequestOpts = {}): Promise<Response<T>> {
    const body = opts.body === undefined ? undefined
      : Buffer.isBuffer(opts.body) ? opts.body
      : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
    return new Promise((resolve, reject) => {
      const req = httpsRequest(this.options(method, path, opts, body), (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          if (/json/.test(String(res.headers['content-type'] ?? ''))) {
            try { parsed = JSON.parse(text); } catch { parsed = text; }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed as T, text });
        });
      });
      // The server may answer (413) and close before the whole body is sent.
      req.on('error', (e: NodeJS.ErrnoException) => reject(e));
      if (body) req.end(body);
      else req.end();
    });
  }

  get<T = any>(path: string, opts?: RequestOpts) { return this.request<T>('GET', path, opts); }
  post<T = any>(path: string, body: unknown, opts: RequestOpts = {}) { return this.request<T>('POST', path, { ...opts, body }); }
  put<T = any>(path: string, body: unknown, opts: RequestOpts = {}) { return this.request<T>('PUT', path, { ...opts, body }); }
  /** Merge patch unless `contentType` says otherwise. */
  patch<T = any>(path: string, body: unknown, opts: RequestOpts = {}) {
    return this.request<T>('PATCH', path, { contentType: 'application/merge-patch+json', ...opts, body });
  }
  delete<T = any>(path: string, body?: unknown, opts: RequestOpts = {}) { return this.request<T>('DELETE', path, { ...opts, body }); }

  /** Opens a watch (add `watch=true` to `path` yourself, or use a /watch/ path). */
  watch(path: string, opts: RequestOpts = {}): Promise<WatchStream> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(this.options('GET', path, opts), (res) => {
        const queue: WatchEvent[] = [];
        const waiters: Array<() => void> = [];
        let buffered = '';
        let done = false;
        const wake = () => { for (const w of waiters.splice(0)) w(); };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line) queue.push(JSON.parse(line) as WatchEvent);
          }
          wake();
        });
        const end = () => { done = true; this.open.delete(req); wake(); };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
        const next = async (timeoutMs = 5000): Promise<WatchEvent | null> => {
          const deadline = Date.now() + timeoutMs;
          while (!queue.length && !done) {
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms on ${path}`);
            await new Promise<void>((r) => {
              const timer = setTimeout(r, left);
              waiters.push(() => { clearTimeout(timer); r(); });
            });
          }
          return queue.shift() ?? null;
        };
        const stream: WatchStream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          next,
          async ended(timeoutMs = 5000) {
            const deadline = Date.now() + timeoutMs;
            while (!done && Date.now() < deadline) {
              await new Promise<void>((r) => {
                const timer = setTimeout(r, deadline - Date.now());
                waiters.push(() => { clearTimeout(timer); r(); });
              });
            }
            return done;
          },
          close: () => { req.destroy(); end(); },
          async *[Symbol.asyncIterator]() {
            for (;;) {
              const ev = await next(60_000);
              if (!ev) return;
              yield ev;
            }
          },
        };
        resolve(stream);
      });
      this.open.add(req);
      req.on('error', (e) => { if (!this.open.has(req)) return; this.open.delete(req); reject(e); });
      req.end();
    });
  }

  /** Closes every watch still open. */
  closeAll(): void {
    for (const r of this.open) r.destroy();
    this.open.clear();
  }
}

export interface TestAPIServer {
  server: APIServer;
  store: Store;
  port: number;
  dir: string;
  pki: ClusterPKI;
  /** The admin bearer token from the token file. */
  token: string;
  /** Admin client (client certificate). */
  client: APIClient;
  /** Log lines the server wrote (JSON, one a line). */
  logs: string[];
}

interface Teardownable {
  teardown(fn: () => unknown): void;
}

export type TestServerOptions = Partial<Omit<APIServerOptions, 'store' | 'tls' | 'tokenFile' | 'port' | 'bindAddress'>>;

/** Starts an API server on a fresh SQLite store; it is stopped and its dir removed when `t` ends. */
export async function startAPIServer(t: Teardownable, opts: TestServerOptions = {}): Promise<TestAPIServer> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-apiserver-'));
  let store: Store | undefined;
  let server: APIServer | undefined;
  let client: APIClient | undefined;
  t.teardown(async () => {
    client?.closeAll();
    await server?.stop().catch(() => undefined);
    await store?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const pki = ensureClusterPKI(dir, ['127.0.0.1'], opts.serviceClusterIPRange ?? '10.96.0.0/12');
  store = await openStore(`sqlite://${join(dir, 'state.db')}`, { synchronous: 'NORMAL' });
  const logs: string[] = [];
  server = new APIServer({
    log: logger('apiserver', {}, (line) => { logs.push(line); }),
    // No controller-manager makes `default` ServiceAccounts here (upstream's integration
    // servers leave the plugin out the same way); tests of the plugin pass [].
    disableAdmissionPlugins: ['ServiceAccount'],
    ...opts,
    store,
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, caPem: pki.ca.certPem },
    kubeletClient: pki.kubeletClient,
    tokenFile: pki.tokenFile,
    port: 0,
    bindAddress: '127.0.0.1',
  });
  const { port } = await server.start();
  const token = readFileSync(pki.tokenFile, 'utf8').split(',')[0];
  client = new APIClient(port, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  return { server, store, port, dir, pki, token, client, logs };
}

/** Minimal valid objects for tests to build on. */
export const fixtures = {
  pod: (name: string, extra: Record<string, any> = {}) => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, ...extra.metadata },
    spec: { containers: [{ name: 'main', image: 'busybox' }], ...extra.spec },
  }),
  configMap: (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data,
  }),
  service: (name: string, spec: Record<string, any> = {}) => ({
    apiVersion: 'v1', kind: 'Service',
    metadata: { name },
    spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec },
  }),
  deployment: (name: string, spec: Record<string, any> = {}, apiVersion = 'apps/v1') => ({
    apiVersion, kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } },
      ...spec,
    },
  }),
};
