// A listening TCP socket handed down by the parent as an open file descriptor. A socket keeps
// the network namespace it was created in, so a process inside a namespace can serve on an
// address of another one (the lab's control plane on the host's loopback) without a forwarder.
import { createServer, type Server } from 'node:net';

export interface InheritedListener {
  server: Server;
  address: string;
  port: number;
}

export async function inheritedListener(fd: number): Promise<InheritedListener> {
  if (!Number.isInteger(fd) || fd < 3) throw new Error(`--extra-listen-fd ${fd}: an inherited descriptor, 3 or above`);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`--extra-listen-fd ${fd}: ${e.message}`)));
    server.listen({ fd }, () => resolve());
  });
  const a = server.address();
  if (!a || typeof a === 'string') throw new Error(`--extra-listen-fd ${fd}: not a TCP socket`);
  // A wildcard socket is reached on loopback from its own namespace.
  const address = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
  return { server, address, port: a.port };
}

/** `https://host:port`, with IPv6 hosts bracketed. */
export function httpsURL(address: string, port: number): string {
  return `https://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
