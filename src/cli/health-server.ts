// /healthz, /readyz and /metrics for a component (controller-manager, scheduler, agents),
// plain HTTP, bound to loopback by default (`--bind-address 127.0.0.1`): like a kubelet's
// read-only port it carries no authentication, so only local processes may reach it. Binding
// it elsewhere is the operator's explicit choice.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A component's own read-only endpoint (JSON): the network agent's policy explanation. */
export type DebugHandler = (query: URLSearchParams) => { status: number; body: unknown };

export async function startHealthServer(opts: { address: string; port: number; registry: Registry | (() => Registry); ready: () => boolean; debug?: Record<string, DebugHandler> }): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/livez') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    if (path === '/readyz') {
      const ok = opts.ready();
      return res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' }).end(ok ? 'ok' : 'not ready');
    }
    if (path === '/metrics') {
      const registry = typeof opts.registry === 'function' ? opts.registry() : opts.registry;
      void registry.metrics().then((text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text));
      return;
    }
    const debug = opts.debug?.[path];
    if (debug) {
      const r = debug(new URL(req.url ?? '/', 'http://localhost').searchParams);
      return res.writeHead(r.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(r.body));
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.address, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
