// A SPDY/3.1 session over one connection, either end: the client opens odd-numbered
// streams, the server even-numbered ones; each side may accept the other's (`'stream'`).
// What Kubernetes' streams need — client-go and moby/spdystream underneath on the other
// end: streams with headers, data both ways, half-close by FIN, RST_STREAM, PING echo,
// GOAWAY. Flow control is left out, as moby/spdystream (kubectl's and the CRI stream server's
// SPDY) leaves it out: received WINDOW_UPDATEs are ignored, and none is sent unless asked for
// (`windowUpdates`) — a frame written after the peer closed its end draws a TCP reset, and
// the reset discards what is still unread here (measured: the stream server closes right
// after an exec's last output, and up to half of a 2 MiB `cat` was lost to that race).
// No server push, no priorities, no SETTINGS of our own.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  dataFrame, GOAWAY, goawayFrame, parseFrames, pingFrame, RST, rstStreamFrame, SpdyProtocolError, synReplyFrame, synStreamFrame,
  windowUpdateFrame, type Frame,
} from './frames.js';
import { decodeHeaderBlock, encodeHeaderBlock, HeaderCompression, type SpdyHeaders } from './headers.js';

/**
 * One stream. Events: 'data' (Buffer), 'end' (the peer half-closed, or the stream or session
 * ended), 'reply' (headers, for streams we opened), 'reset' (status), 'close' (session gone).
 */
export class SpdyStream extends EventEmitter {
  /** The peer's SYN_REPLY headers once they arrive (streams we opened). */
  replyHeaders: SpdyHeaders | null = null;
  remoteEnded = false;
  localEnded = false;
  /** Set when either side reset the stream. */
  resetStatus: number | null = null;
  constructor(readonly id: number, private session: SpdySession, /** The SYN_STREAM headers. */ readonly headers: SpdyHeaders) {
    super();
  }
  write(data: Buffer): void {
    if (this.localEnded || this.resetStatus !== null || !data.length) return;
    this.session.sendData(this.id, data, false);
  }
  /** Half-closes our side (the peer reads EOF). */
  end(): void {
    if (this.localEnded || this.resetStatus !== null) return;
    this.localEnded = true;
    this.session.sendData(this.id, Buffer.alloc(0), true);
  }
  /** Accepts a stream the peer opened (SYN_REPLY), optionally half-closing at once. */
  reply(headers: SpdyHeaders = {}, fin = false): void {
    if (fin) this.localEnded = true;
    this.session.sendReply(this.id, headers, fin);
  }
  /** Aborts the stream both ways (RST_STREAM, CANCEL unless told). */
  reset(status: number = RST.CANCEL): void {
    if (this.resetStatus !== null) return;
    this.resetStatus = status;
    this.session.sendReset(this.id, status);
    this.session.forget(this);
  }
  /** Resolves with the reply headers (or rejects if the stream is reset or the session ends). */
  replied(): Promise<SpdyHeaders> {
    if (this.replyHeaders) return Promise.resolve(this.replyHeaders);
    return new Promise((resolve, reject) => {
      this.once('reply', resolve);
      this.once('reset', (status: number) => reject(new Error(`SPDY stream ${this.id} reset (status ${status})`)));
      this.once('close', () => reject(new Error(`SPDY session closed before stream ${this.id} was accepted`)));
    });
  }
}

export interface SpdySessionOptions {
  /** Which stream ids are ours: a client's are odd, a server's even. */
  role: 'client' | 'server';
  /** Bytes already read from the connection (what followed the 101 answer). */
  initial?: Buffer;
  /** Send WINDOW_UPDATE for received data (for a peer that enforces SPDY/3.1 windows). */
  windowUpdates?: boolean;
}

/**
 * Events: 'stream' (a SpdyStream the peer opened; call reply() to accept or reset() to
 * refuse — with no listener every such stream is refused), 'goaway' (status), 'error',
 * 'close' (after the connection ended and every stream heard 'end' and 'close').
 */
export class SpdySession extends EventEmitter {
  private nextId: number;
  private streams = new Map<number, SpdyStream>();
  private lastPeerId = 0;
  private buf: Buffer = Buffer.alloc(0);
  private deflate = HeaderCompression.deflater();
  private inflate = HeaderCompression.inflater();
  /** Frames are handled in arrival order even though header decompression is async. */
  private inbound: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();
  private goneAway = false;
  closed = false;

  constructor(private socket: Duplex, private opts: SpdySessionOptions) {
    super();
    this.nextId = opts.role === 'client' ? 1 : 2;
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('close', () => this.onClose());
    socket.on('end', () => socket.end());
    socket.on('error', (e) => this.report(e));
    if (opts.initial?.length) this.onData(opts.initial);
  }

  openStream(headers: SpdyHeaders, opts: { fin?: boolean } = {}): SpdyStream {
    const id = this.nextId;
    this.nextId += 2;
    const stream = new SpdyStream(id, this, headers);
    if (opts.fin) stream.localEnded = true;
    this.streams.set(id, stream);
    this.send(async () => synStreamFrame(id, await this.deflate.run(encodeHeaderBlock(headers)), { fin: opts.fin }));
    return stream;
  }

  /** Tells the peer no new streams will be accepted (GOAWAY with the last stream it opened). */
  goAway(status: number = GOAWAY.OK): void {
    if (this.goneAway) return;
    this.goneAway = true;
    const last = this.lastPeerId;
    this.send(async () => goawayFrame(last, status));
  }

  /** Sends what is queued (GOAWAY included), then closes the connection. */
  async end(): Promise<void> {
    await this.outbound;
    this.socket.end();
  }

  close(): void {
    if (this.closed) return;
    this.socket.destroy();
  }

  /** @internal */ sendData(id: number, data: Buffer, fin: boolean): void {
    // Frames stay under the 24-bit length; 64 KiB keeps one stream from hogging the connection.
    for (let off = 0; off < data.length; off += 65536) {
      const piece = data.subarray(off, off + 65536);
      const last = off + 65536 >= data.length;
      this.send(async () => dataFrame(id, piece, fin && last));
    }
    if (!data.length) this.send(async () => dataFrame(id, data, fin));
  }

  /** @internal */ sendReply(id: number, headers: SpdyHeaders, fin: boolean): void {
    this.send(async () => synReplyFrame(id, await this.deflate.run(encodeHeaderBlock(headers)), fin));
  }

  /** @internal */ sendReset(id: number, status: number): void {
    this.send(async () => rstStreamFrame(id, status));
  }

  /** @internal */ forget(s: SpdyStream): void {
    this.streams.delete(s.id);
    this.remoteEnd(s);
  }

  /** Frames leave in the order they were queued, after their header block is compressed. */
  private send(make: () => Promise<Buffer>): void {
    this.outbound = this.outbound.then(async () => {
      const frame = await make();
      if (!this.closed && !this.socket.destroyed && this.socket.writable) this.socket.write(frame);
    }).catch((e) => this.fail(e));
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    let frames: Frame[];
    try {
      ({ frames, rest: this.buf } = parseFrames(this.buf));
    } catch (e) {
      this.protocolError(e as Error);
      return;
    }
    for (const f of frames) this.inbound = this.inbound.then(() => this.handle(f)).catch((e) => this.fail(e));
  }

  private isPeerId(id: number): boolean {
    return (id % 2 === 1) === (this.opts.role === 'server');
  }

  private async handle(f: Frame): Promise<void> {
    switch (f.kind) {
      case 'data': {
        const s = this.streams.get(f.streamId);
        if (!s) {
          // §2.2.2: data for a stream that is not open.
          if (f.streamId) this.sendReset(f.streamId, RST.INVALID_STREAM);
          return;
        }
        if (f.data.length) {
          s.emit('data', f.data);
          if (this.opts.windowUpdates) this.send(async () => windowUpdateFrame(f.streamId, f.data.length));
        }
        if (f.fin) this.remoteEnd(s);
        return;
      }
      case 'syn_stream': {
        const headers = decodeHeaderBlock(await this.inflate.run(f.block));
        if (!this.isPeerId(f.streamId) || f.streamId <= this.lastPeerId) {
          this.protocolError(new SpdyProtocolError(`stream id ${f.streamId} is not a new ${this.opts.role === 'server' ? 'odd' : 'even'} id`));
          return;
        }
        this.lastPeerId = f.streamId;
        if (this.goneAway || this.listenerCount('stream') === 0) {
          this.sendReset(f.streamId, RST.REFUSED_STREAM);
          return;
        }
        const s = new SpdyStream(f.streamId, this, headers);
        this.streams.set(f.streamId, s);
        if (f.fin) s.remoteEnded = true;
        this.emit('stream', s);
        if (f.fin) s.emit('end');
        return;
      }
      case 'syn_reply': case 'headers': {
        const headers = decodeHeaderBlock(await this.inflate.run(f.block));
        const s = this.streams.get(f.streamId);
        if (!s) return;
        if (f.kind === 'syn_reply' && !s.replyHeaders) {
          s.replyHeaders = headers;
          s.emit('reply', headers);
        }
        if (f.fin) this.remoteEnd(s);
        return;
      }
      case 'rst_stream': {
        const s = this.streams.get(f.streamId);
        if (!s) return;
        s.resetStatus = f.status;
        this.streams.delete(f.streamId);
        s.emit('reset', f.status);
        this.remoteEnd(s);
        return;
      }
      case 'ping':
        // §2.6.5: answer the peer's pings (ids of the other parity); ours come back as 'pong'.
        if (this.isPeerId(f.id)) this.send(async () => pingFrame(f.id));
        else this.emit('pong', f.id);
        return;
      case 'goaway':
        this.goneAway = true;
        this.emit('goaway', f.status);
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE and unknown control frames ask nothing of us.
    }
  }

  private remoteEnd(s: SpdyStream): void {
    if (s.remoteEnded) return;
    s.remoteEnded = true;
    s.emit('end');
  }

  /** A peer that broke the protocol gets a GOAWAY PROTOCOL_ERROR and the connection closes. */
  private protocolError(e: Error): void {
    this.report(e);
    this.buf = Buffer.alloc(0);
    if (this.socket.destroyed) return;
    if (this.socket.writable) this.socket.end(goawayFrame(this.lastPeerId, GOAWAY.PROTOCOL_ERROR));
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private fail(e: unknown): void {
    this.report(e instanceof Error ? e : new Error(String(e)));
    this.socket.destroy();
  }

  /** 'error' for whoever listens; a session nobody watches must not take the process down. */
  private report(e: Error): void {
    if (this.listenerCount('error')) this.emit('error', e);
  }

  private onClose(): void {
    if (this.closed) return;
    // Let frames already received be delivered before the streams learn of the end.
    void this.inbound.then(() => {
      this.closed = true;
      for (const s of this.streams.values()) {
        this.remoteEnd(s);
        s.emit('close');
      }
      this.deflate.close();
      this.inflate.close();
      this.emit('close');
    });
  }
}
