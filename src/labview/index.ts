// `capstan lab view`: the lab view on a loopback HTTP port, from a kubeconfig. Read-only: it
// serves the page and the model computed from its watches, and forwards nothing to the API.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientsetFromKubeconfig } from '../client/index.js';
import { InformerViewSource } from './informer-source.js';
import { LabView } from './server.js';
import { CachedViewSource, type CachedObjects } from './cache-source.js';

export { LabView, type ViewSource } from './server.js';
export { CachedViewSource, type CachedObjects } from './cache-source.js';
export { buildView, type ViewModel, type ViewInput } from './model.js';
export { followPacket, type PacketPath } from './path.js';

/** Where the API server serves the view (admin only: no default role grants this non-resource URL). */
export const LAB_VIEW_PATH = '/capstan/lab-view';

/** The lab view as a path handler of the API server, reading its watch cache; idle watchers stop after a minute. */
export function apiServerLabView(server: CachedObjects): { prefix: string; serve(req: IncomingMessage, res: ServerResponse, sub: string, query: URLSearchParams): Promise<boolean> } {
  const view = new LabView({ source: new CachedViewSource(server), idleStopMs: 60_000 });
  return { prefix: LAB_VIEW_PATH, serve: (req, res, sub, query) => view.serve(req, res, LAB_VIEW_PATH, sub, query) };
}

export async function serveLabView(o: { kubeconfig: string; port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> }> {
  const clients = clientsetFromKubeconfig(o.kubeconfig, 'capstan-lab-view');
  const view = new LabView({ source: new InformerViewSource(clients) });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET') { res.writeHead(405, { Allow: 'GET' }).end(); return; }
    view.serve(req, res, '', url.pathname, url.searchParams).then((served) => {
      if (!served) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }, (e: unknown) => {
      if (!res.headersSent) res.writeHead(503, { 'Content-Type': 'text/plain' });
      res.end(`lab view: ${e instanceof Error ? e.message : String(e)}\n`);
    });
  });
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((ok, fail) => { server.once('error', fail); server.listen(o.port ?? 0, host, ok); });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await view.close();
      clients.close?.();
    },
  };
}
