// Watches every TCP connection this process opens (net.Socket#connect, under https.request
// and tls.connect too) and refuses those to anything but loopback before they leave, so a
// test can assert the API server only dialled local addresses — and a regression cannot
// send a packet off the machine while the test finds out.
import { Socket } from 'node:net';

export interface Dial {
  host: string;
  port: number;
  refused: boolean;
}

const isLoopback = (host: string) => host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';

interface Teardownable {
  teardown(fn: () => unknown): void;
}

/** Installs the guard until `t` ends; returns the list of dials it saw. */
export function guardDials(t: Teardownable): Dial[] {
  const dials: Dial[] = [];
  const original = Socket.prototype.connect;
  // net.connect passes its normalised [options, callback] array as the first argument.
  Socket.prototype.connect = function guarded(this: Socket, ...args: unknown[]): Socket {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const opts = (typeof first === 'object' && first !== null ? first : { port: first, host: args[1] }) as { host?: string; port?: number; path?: string };
    if (opts.path) return (original as (...a: unknown[]) => Socket).apply(this, args);
    const host = String(opts.host ?? 'localhost');
    const refused = !isLoopback(host);
    dials.push({ host, port: Number(opts.port), refused });
    if (refused) {
      process.nextTick(() => this.destroy(new Error(`test guard: refused to dial ${host}:${opts.port}, which is not a loopback address`)));
      return this;
    }
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  t.teardown(() => { Socket.prototype.connect = original; });
  return dials;
}
