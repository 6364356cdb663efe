// One TCP listener per hollow node address, all on one port. Linux will not let a listener
// on a specific address share a port with a wildcard one (a real kubelet on 0.0.0.0:10250
// in `capstan up`), so by default the port is one the kernel hands out as free for the
// first address; every other address then takes the same port. Should one of them be taken
// (another process bound that address and port), everything is closed and a new port tried.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Listeners {
  port: number;
  close(): Promise<void>;
}

const ATTEMPTS = 5;

function listen(server: Server, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port, exclusive: true }, () => { server.off('error', reject); resolve(); });
  });
}

/** Stops listening (the port is free at once); connections already made are their owners' to end. */
async function closeAll(servers: Server[]): Promise<void> {
  for (const s of servers) if (s.listening) s.close();
}

/**
 * Listens on `port` (0: one picked once) on every address; `onConnection(i, socket)` gets
 * the connections made to `addresses[i]`, paused (nothing read yet), to hand on as they are.
 * A port given explicitly is not retried.
 */
export async function listenOnAll(addresses: readonly string[], port: number, onConnection: (index: number, socket: Socket) => void): Promise<Listeners> {
  let lastError: unknown;
  for (let attempt = 0; attempt < (port ? 1 : ATTEMPTS); attempt++) {
    const servers = addresses.map((_, i) => createServer({ pauseOnConnect: true }, (socket) => onConnection(i, socket)));
    try {
      if (!servers.length) return { port, close: async () => undefined };
      await listen(servers[0], addresses[0], port);
      const chosen = (servers[0].address() as AddressInfo).port;
      // In batches: thousands of listen() calls at once would only queue in libuv anyway.
      for (let i = 1; i < servers.length; i += 256) {
        await Promise.all(servers.slice(i, i + 256).map((s, k) => listen(s, addresses[i + k], chosen)));
      }
      return { port: chosen, close: () => closeAll(servers) };
    } catch (e) {
      lastError = e;
      await closeAll(servers);
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') break;
    }
  }
  throw new Error(`cannot listen for the hollow kubelet API on ${addresses.length} addresses${port ? ` at port ${port}` : ''}: ${(lastError as Error).message}`);
}
