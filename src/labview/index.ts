// `capstan lab view`: the lab view on a loopback HTTP port, from a kubeconfig. Read-only: it
// serves the page and the model computed from its watches, and forwards nothing to the API.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientsetFromKubeconfig } from '../client/index.js';
import { InformerViewSource } from './informer-source.js';
import { LabView } from './server.js';

export { LabView, type ViewSource } from './server.js';
export { buildView, type ViewModel, type ViewInput } from './model.js';
export { followPacket, type PacketPath } from './path.js';

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
