// The listeners (UDP and TCP per address) and the path of one query through them:
// parse → cached reply → resolve from the Zone → forward or chase → encode to fit.
// Nothing a client sends can throw out of `handle`: bad input is dropped or answered
// FORMERR, and an internal fault is answered SERVFAIL.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, isIPv6, type Server, type Socket as TCPSocket } from 'node:net';
import type { Logger } from '../log/index.js';
import type { Forwarder } from './forward.js';
import { encodeResponse, headerOnly, isTruncated, parseQuery, PLAIN_UDP_SIZE, rcodeOf, SERVER_UDP_SIZE, sizeLimit, type ParsedQuery } from './message.js';
import { BUCKETS, DNSMetrics } from './metrics.js';
import { nativeDns, type NativeDnsSocket, type NativeDnsTable } from './native-udp.js';
import { inZone, normalize } from './names.js';
import { SLOW_EDNS_OPTIONS, type PrebuiltAnswers } from './prebuilt.js';
import type { Resolution, Resolver } from './resolver.js';
import { dnsPacket } from './wire.js';
import type { RR, Zone } from './zone.js';
import { fallbacks, type Fallbacks } from '../log/fallback.js';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface DNSServerOptions {
  zone: Zone;
  resolver: Resolver;
  forwarder: Forwarder;
  metrics: DNSMetrics;
  /** Replies prebuilt per question; cleared on every Zone change. */
  cache: PrebuiltAnswers;
  /** False until the informers have listed once: cluster names get SERVFAIL, not a wrong NXDOMAIN. */
  synced: () => boolean;
  log: Logger;
  /** TCP connections idle this long are closed (RFC 7766 suggests seconds). */
  tcpIdleMs?: number;
  maxTCPConnections?: number;
  /**
   * Who receives and answers UDP: `native` (the default when the addon has it) is a thread
   * of the addon answering prebuilt replies itself and handing the rest to this process;
   * `dgram` is Node's dgram socket on the event loop.
   */
  udp?: 'native' | 'dgram';
}

const SERVFAIL = 2;
const RD = 1 << 8;

/**
 * dgram resolves even an address literal through dns.lookup, which defers the send to the
 * next tick (a closure and a tick per reply). Replies go to the sender's address, always a
 * literal of the socket's family: taking it as it is makes `send` synchronous, which the
 * prebuilt path relies on.
 */
const literal = (family: 4 | 6) => (host: string, _opts: unknown, cb: (err: Error | null, address: string, family: number) => void) => cb(null, host, family);
const literalLookup = { 4: literal(4), 6: literal(6) };

export class DNSServer {
  private udp: Socket[] = [];
  private nativeUdp: NativeDnsSocket[] = [];
  private nativeTable: NativeDnsTable | undefined;
  /** How UDP is served (`native` only when the addon has the DNS path). */
  readonly udpPath: 'native' | 'dgram';
  private tcp: Server[] = [];
  private conns = new Set<TCPSocket>();
  readonly bound: { udp: ListenAddress[]; tcp: ListenAddress[] } = { udp: [], tcp: [] };
  private readonly fallback: Fallbacks;

  constructor(private opts: DNSServerOptions) {
    opts.zone.onChange(() => opts.cache.clear());
    this.fallback = fallbacks('dns', opts.log);
    const native = opts.udp === 'dgram' ? undefined : nativeDns();
    if (opts.udp === 'native' && !native) throw new Error('the native DNS path is not in this build of the addon (build/Release/capstan.node)');
    this.udpPath = native ? 'native' : 'dgram';
    if (native) {
      // The addon answers from a copy of the prebuilt table; every insert and clear (a Zone
      // change clears it, synchronously) reaches the copy before this turn ends.
      this.nativeTable = native.table();
      opts.cache.mirrorInto(this.nativeTable);
    }
  }

  async listen(addrs: ListenAddress[]): Promise<void> {
    for (const a of addrs) {
      for (let attempt = 1; ; attempt++) {
        const udp = this.nativeTable ? this.listenNative(a) : await this.listenDgram(a);
        try {
          await this.listenTCP(a.host, udp.port);
          break;
        } catch (err) {
          udp.close();
          // A port the kernel picked for UDP may be someone else's on TCP: pick another.
          if (a.port !== 0 || attempt >= 20 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        }
      }
    }
  }

  /** Node's dgram socket for `a`, answering on the event loop. */
  private async listenDgram(a: ListenAddress): Promise<{ port: number; close(): void }> {
    const v6 = isIPv6(a.host);
    const u = createSocket({ type: v6 ? 'udp6' : 'udp4', lookup: literalLookup[v6 ? 6 : 4] as never });
    u.on('message', (msg, rinfo) => {
      if (this.sendPrebuilt(u, msg, rinfo.port, rinfo.address)) return;
      // No send callback: Node then tries a synchronous send first (uv_udp_try_send), much
      // cheaper per packet; errors go to the socket's 'error' handler.
      const send = (reply: Buffer | undefined) => { if (reply) u.send(reply, rinfo.port, rinfo.address); };
      const r = this.respond(msg, false);
      if (r instanceof Promise) void r.then(send);
      else send(r);
    });
    u.on('error', (err) => this.opts.log.warn('udp socket error', { address: a.host, error: err.message }));
    await new Promise<void>((resolve, reject) => {
      u.once('error', reject);
      u.bind(a.port, a.host, () => { u.off('error', reject); resolve(); });
    });
    // Bursts from many pods at once: a larger receive queue drops fewer (capped by net.core.rmem_max).
    try { u.setRecvBufferSize(4 << 20); } catch { /* keep the default */ }
    this.udp.push(u);
    // TCP on the same port UDP got (matters when the port was 0).
    const bound = { host: a.host, port: u.address().port };
    this.bound.udp.push(bound);
    return {
      port: bound.port,
      close: () => {
        u.close();
        this.udp = this.udp.filter((x) => x !== u);
        this.bound.udp = this.bound.udp.filter((x) => x !== bound);
      },
    };
  }

  /** The addon's socket and thread for `a`. */
  private listenNative(a: ListenAddress): { port: number; close(): void } {
    const sock: NativeDnsSocket = nativeDns()!.socket(a.host, a.port, this.nativeTable!, (msg, address, port) => {
      if (!this.nativeUdp.includes(sock)) return; // closed while the query waited
      const send = (reply: Buffer | undefined) => { if (reply) sock.send(reply, address, port); };
      const r = this.respond(msg, false);
      if (r instanceof Promise) void r.then(send);
      else send(r);
    }, { plainUdpSize: PLAIN_UDP_SIZE, serverUdpSize: SERVER_UDP_SIZE, slowOptions: SLOW_EDNS_OPTIONS, buckets: BUCKETS });
    this.nativeUdp.push(sock);
    this.opts.metrics.addNative(sock);
    const bound = { host: a.host, port: sock.port() };
    this.bound.udp.push(bound);
    return {
      port: bound.port,
      close: () => {
        this.opts.metrics.removeNative(sock);
        sock.close();
        this.nativeUdp = this.nativeUdp.filter((x) => x !== sock);
        this.bound.udp = this.bound.udp.filter((x) => x !== bound);
      },
    };
  }

  private async listenTCP(host: string, port: number): Promise<void> {
    const t = createServer((sock) => this.serveTCP(sock));
    t.maxConnections = this.opts.maxTCPConnections ?? 1000;
    t.on('error', (err) => this.opts.log.warn('tcp listener error', { address: host, error: err.message }));
    await new Promise<void>((resolve, reject) => {
      t.once('error', reject);
      t.listen(port, host, () => { t.off('error', reject); resolve(); });
    });
    this.tcp.push(t);
    this.bound.tcp.push({ host, port });
  }

  async close(): Promise<void> {
    for (const n of this.nativeUdp) {
      this.opts.metrics.removeNative(n);
      n.close();
    }
    this.nativeUdp = [];
    for (const u of this.udp) u.close();
    for (const c of this.conns) c.destroy();
    await Promise.all(this.tcp.map((t) => new Promise<void>((r) => t.close(() => r()))));
    this.udp = [];
    this.tcp = [];
  }

  /**
   * The hot path: a query the prebuilt table answers is patched in place and sent, with no
   * allocation of ours. Only while the socket has no send queued: a queued send still holds
   * the shared buffer, so then the ordinary path (which copies) answers.
   */
  private sendPrebuilt(u: Socket, msg: Buffer, port: number, address: string): boolean {
    const started = performance.now();
    const { cache, metrics } = this.opts;
    if (!cache.scan(msg, false)) return false;
    const e = cache.lookup(msg);
    if (!e || u.getSendQueueCount() !== 0) return false;
    u.send(cache.patch(e, msg), port, address);
    metrics.requestCode(false, e.qtype);
    metrics.reply(false, e.rcode, e.truncated, (performance.now() - started) / 1000);
    return true;
  }

  /** One message in, the reply out (undefined: send nothing). Never rejects. */
  async handle(msg: Buffer, tcp: boolean): Promise<Buffer | undefined> {
    return this.respond(msg, tcp);
  }

  /**
   * Like `handle`, but answers from the cache and the Zone synchronously: only forwarded and
   * chased queries cost a Promise. Never throws or rejects.
   */
  respond(msg: Buffer, tcp: boolean): Buffer | undefined | Promise<Buffer | undefined> {
    const started = performance.now();
    let r: Buffer | undefined | Promise<Buffer | undefined>;
    try {
      r = this.answer(msg, tcp);
    } catch (err) {
      return this.done(this.fault(msg, err), tcp, started);
    }
    if (r instanceof Promise) return r.catch((err) => this.fault(msg, err)).then((reply) => this.done(reply, tcp, started));
    return this.done(r, tcp, started);
  }

  private fault(msg: Buffer, err: unknown): Buffer | undefined {
    this.opts.log.error('query failed', { error: (err as Error).message });
    return msg.length >= 12 && !(msg.readUInt16BE(2) & 0x8000) ? headerOnly(msg.readUInt16BE(0), msg.readUInt16BE(2), SERVFAIL) : undefined;
  }

  private done(reply: Buffer | undefined, tcp: boolean, started: number): Buffer | undefined {
    const m = this.opts.metrics;
    const seconds = (performance.now() - started) / 1000;
    if (reply) m.reply(tcp, rcodeOf(reply), isTruncated(reply), seconds);
    else m.observe(tcp, seconds);
    return reply;
  }

  private answer(msg: Buffer, tcp: boolean): Buffer | undefined | Promise<Buffer | undefined> {
    const { metrics: m, cache } = this.opts;
    const prebuildable = cache.scan(msg, tcp);
    if (prebuildable) {
      const e = cache.lookup(msg);
      if (e) {
        m.requestCode(tcp, e.qtype);
        return Buffer.from(cache.patch(e, msg));
      }
    }
    const parsed = parseQuery(msg);
    if (!parsed.ok) {
      m.malformed.inc({ reason: parsed.reason });
      return parsed.reply;
    }
    const q = parsed.query;
    const type = q.question.type;
    m.request(tcp, type);
    const name = normalize(q.question.name);
    const klass = q.question.class ?? 'IN';
    const limit = sizeLimit(q, tcp);

    const res = this.opts.resolver.resolve(name, type, klass);
    if (res.forward) {
      if (q.edns && q.edns.version > 0) return encodeResponse(q, res, limit); // BADVERS, ours to say
      return this.forward(msg, q, tcp, limit);
    }
    if (!this.opts.synced() && inZone(name, this.opts.zone.domain)) return encodeResponse(q, { ...res, rcode: 'SERVFAIL', authoritative: false, answers: [], authorities: [], additionals: [] }, limit);
    if (res.chase) return this.chase(res).then((r) => encodeResponse(q, r, limit));
    const reply = encodeResponse(q, res, limit);
    if (prebuildable) cache.insert(msg, reply);
    return reply;
  }

  private async forward(msg: Buffer, q: ParsedQuery, tcp: boolean, limit: number): Promise<Buffer> {
    const r = await this.opts.forwarder.forward(msg, tcp);
    if ('reply' in r) {
      this.opts.metrics.forwards.inc({ result: 'ok' });
      return r.reply;
    }
    this.opts.metrics.forwards.inc({ result: r.error });
    // No upstream at all: not ours to answer (REFUSED). Upstreams that did not answer: SERVFAIL.
    const rcode = r.error === 'no-upstream' ? 'REFUSED' : 'SERVFAIL';
    return encodeResponse(q, { rcode, authoritative: false, answers: [], authorities: [], additionals: [] }, limit);
  }

  /** An ExternalName's CNAME: add the target's records from upstream when they come in time. */
  private async chase(res: Resolution): Promise<Resolution> {
    const { name, type } = res.chase!;
    const query = dnsPacket.encode({ id: 0, type: 'query', flags: RD, questions: [{ name, type: type as 'A', class: 'IN' }] });
    const r = await this.opts.forwarder.forward(query, false);
    if (!('reply' in r)) return res;
    try {
      const p = dnsPacket.decode(r.reply);
      const extra = (p.answers ?? []).filter((a) => a.type !== 'OPT') as RR[];
      return { ...res, answers: [...res.answers, ...extra] };
    } catch (e) {
      this.fallback('upstream-reply-undecodable', { error: e, name });
      return res;
    }
  }

  private serveTCP(sock: TCPSocket): void {
    this.conns.add(sock);
    sock.setTimeout(this.opts.tcpIdleMs ?? 10_000, () => sock.destroy());
    sock.on('error', () => undefined);
    sock.on('close', () => this.conns.delete(sock));
    let buf = Buffer.alloc(0);
    sock.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < 2 + len) break;
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        void this.handle(Buffer.from(msg), true).then((reply) => {
          if (!reply || sock.destroyed) return;
          const frame = Buffer.alloc(2 + reply.length);
          frame.writeUInt16BE(reply.length, 0);
          reply.copy(frame, 2);
          sock.write(frame);
        });
      }
    });
  }
}
