// The agent's end of the thin plugin: a unix socket; each connection is one CNI call (the
// plugin half-closes after its request, the agent answers and closes).
import { chmodSync, mkdirSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { handleRequest, type CNIHandlerContext } from './handler.js';
import { CNIError, CNI_ERROR } from './errors.js';
import { encodeReply, parseRequest } from './wire.js';

const MAX_REQUEST = 1 << 20;

export interface CNIServer {
  server: Server;
  socket: string;
  close(): Promise<void>;
}

export async function serveCNI(ctx: CNIHandlerContext, socketPath: string): Promise<CNIServer> {
  mkdirSync(dirname(socketPath), { recursive: true, mode: 0o755 });
  await removeStaleSocket(socketPath);
  const open = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (conn) => {
    open.add(conn);
    conn.on('close', () => open.delete(conn));
    const chunks: Buffer[] = [];
    let size = 0;
    conn.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST) conn.destroy();
      else chunks.push(c);
    });
    conn.on('error', () => undefined);
    conn.on('end', () => {
      void answer(ctx, Buffer.concat(chunks)).then((reply) => conn.end(reply));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => { server.off('error', reject); resolve(); });
  });
  // Root only: whoever can talk to the agent can make it change the node's network.
  chmodSync(socketPath, 0o600);
  return {
    server,
    socket: socketPath,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const c of open) c.destroy();
    }),
  };
}

async function answer(ctx: CNIHandlerContext, buf: Buffer): Promise<Buffer> {
  try {
    const reply = await handleRequest(ctx, parseRequest(buf));
    return encodeReply(reply.code, reply.stdout);
  } catch (e) {
    const err = e instanceof CNIError ? e : new CNIError(CNI_ERROR.internal, (e as Error).message);
    return encodeReply(1, `${JSON.stringify(err.toJSON('1.0.0'))}\n`);
  }
}

/** A socket file nobody listens on (an agent that crashed) is removed; a live one is an error. */
async function removeStaleSocket(path: string): Promise<void> {
  const live = await new Promise<boolean>((resolve) => {
    const c = createConnection(path);
    c.once('connect', () => { c.destroy(); resolve(true); });
    c.once('error', () => resolve(false));
  });
  if (live) throw new Error(`another network agent is serving ${path}`);
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
