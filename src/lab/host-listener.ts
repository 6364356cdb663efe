// The lab API server's host-side socket: listening on 127.0.0.1:<free port> in the namespace
// `lab up` runs in (the host's), handed to the control plane as an inherited descriptor. A
// socket keeps the namespace it was created in, so kubectl on the host reaches the control
// plane in its namespace with no forwarder process and no NAT rule.
import { createServer } from 'node:net';

export interface HostListener {
  address: string;
  port: number;
  /** The listening socket's descriptor, to pass to a child. */
  fd: number;
  /** Closes this process's copy; a child that inherited the descriptor keeps listening. */
  close(): void;
}

export async function hostListener(address = '127.0.0.1'): Promise<HostListener> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Nothing accepts here: connections queue in the backlog until the control plane takes them.
    server.listen({ host: address, port: 0, backlog: 511 }, () => resolve());
  });
  server.on('connection', (s) => s.destroy());
  // libuv's handle holds the descriptor; Node has no public getter for it.
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) { server.close(); throw new Error('cannot get the listening socket\'s descriptor'); }
  const port = (server.address() as { port: number }).port;
  return { address, port, fd, close: () => server.close() };
}
