// Names outside the cluster domain go to the node's upstream resolvers. The query's bytes
// go out as they came (EDNS0 options included) under a fresh random ID; the reply comes back
// under the client's ID. Every attempt has a deadline: a dead upstream costs a timeout,
// never a hang.
import { randomInt } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { connect, isIPv6 } from 'node:net';
import { fallbacks } from '../log/fallback.js';

export interface Upstream {
  host: string;
  port: number;
}

export type ForwardResult = { reply: Buffer; upstream: Upstream } | { error: 'no-upstream' | 'timeout' | 'busy' };

export interface ForwarderOptions {
  upstreams: Upstream[];
  /** Per attempt; each upstream is tried once, in order. */
  timeoutMs: number;
  /** Queries in flight upstream at once; past this they fail at once (SERVFAIL) rather than queue. */
  maxInFlight?: number;
}

interface Pending {
  upstream: Upstream;
  resolve(b: Buffer | undefined): void;
}

export class Forwarder {
  private sockets = new Map<4 | 6, Socket>();
  private pending = new Map<number, Pending>();
  private inFlight = 0;
  private closed = false;

  constructor(readonly opts: ForwarderOptions) {}

  get upstreams(): Upstream[] {
    return this.opts.upstreams;
  }

  async forward(query: Buffer, tcp: boolean): Promise<ForwardResult> {
    if (this.opts.upstreams.length === 0) return { error: 'no-upstream' };
    if (this.inFlight >= (this.opts.maxInFlight ?? 1000)) return { error: 'busy' };
    this.inFlight++;
    try {
      for (const upstream of this.opts.upstreams) {
        // A client that came over TCP (often after a truncated reply) is served over TCP.
        const reply = tcp ? await this.tcp(upstream, query) : await this.udp(upstream, query);
        if (reply) return { reply, upstream };
        if (this.closed) break;
      }
      return { error: 'timeout' };
    } finally {
      this.inFlight--;
    }
  }

  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.resolve(undefined);
    this.pending.clear();
    for (const s of this.sockets.values()) s.close();
    this.sockets.clear();
  }

  private socket(family: 4 | 6): Socket {
    let s = this.sockets.get(family);
    if (s) return s;
    s = createSocket(family === 6 ? 'udp6' : 'udp4');
    s.on('message', (msg, rinfo) => {
      if (msg.length < 12) return;
      const id = msg.readUInt16BE(0);
      const p = this.pending.get(id);
      // Only the upstream we asked may answer (a spoofed reply from elsewhere is ignored).
      if (!p || p.upstream.port !== rinfo.port || !sameHost(p.upstream.host, rinfo.address)) return;
      this.pending.delete(id);
      p.resolve(msg);
    });
    s.on('error', () => undefined);
    s.unref();
    this.sockets.set(family, s);
    return s;
  }

  private udp(upstream: Upstream, query: Buffer): Promise<Buffer | undefined> {
    const clientID = query.readUInt16BE(0);
    let id = randomInt(0x10000);
    for (let i = 0; this.pending.has(id) && i < 16; i++) id = randomInt(0x10000);
    if (this.pending.has(id)) return Promise.resolve(undefined);
    const out = Buffer.from(query);
    out.writeUInt16BE(id, 0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve(undefined); }, this.opts.timeoutMs);
      this.pending.set(id, {
        upstream,
        resolve: (b) => {
          clearTimeout(timer);
          if (b) b.writeUInt16BE(clientID, 0);
          resolve(b);
        },
      });
      this.socket(isIPv6(upstream.host) ? 6 : 4).send(out, upstream.port, upstream.host, (err) => {
        if (err && this.pending.get(id)) { this.pending.delete(id); clearTimeout(timer); resolve(undefined); }
      });
    });
  }

  private tcp(upstream: Upstream, query: Buffer): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const sock = connect({ host: upstream.host, port: upstream.port });
      let buf = Buffer.alloc(0);
      let done = false;
      const finish = (b: Buffer | undefined) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        sock.destroy();
        resolve(b);
      };
      const timer = setTimeout(() => finish(undefined), this.opts.timeoutMs);
      sock.on('error', () => finish(undefined));
      sock.on('close', () => finish(undefined));
      sock.on('connect', () => {
        const len = Buffer.alloc(2);
        len.writeUInt16BE(query.length);
        sock.write(Buffer.concat([len, query]));
      });
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) finish(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      });
    });
  }
}

function sameHost(a: string, b: string): boolean {
  return a === b || a.replace(/^::ffff:/, '') === b.replace(/^::ffff:/, '');
}

/** `1.2.3.4`, `1.2.3.4:5353`, `[::1]:5353`, `::1`. */
export function parseUpstream(s: string): Upstream {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (v6) return { host: v6[1], port: v6[2] ? Number(v6[2]) : 53 };
  if (isIPv6(s)) return { host: s, port: 53 };
  const m = /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) throw new Error(`invalid upstream "${s}"`);
  return { host: m[1], port: m[2] ? Number(m[2]) : 53 };
}

/** The nameservers of a resolv.conf, without the addresses in `exclude` (this server's own). */
export function upstreamsFromResolvConf(text: string, exclude: Set<string>): Upstream[] {
  const out: Upstream[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    if (!m) continue;
    const host = m[1].replace(/%.*$/, '');
    if (exclude.has(host)) continue;
    out.push({ host, port: 53 });
  }
  return out;
}

const fallback = fallbacks('dns');

export function readResolvConf(path: string, exclude: Set<string>): Upstream[] {
  try {
    return upstreamsFromResolvConf(readFileSync(path, 'utf8'), exclude);
  } catch (e) {
    fallback('resolv-conf-unreadable-no-upstreams', { error: e, path });
    return [];
  }
}
