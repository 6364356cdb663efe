// A minimal SPDY/3.1 client session: just what the CRI stream server (containerd 1.6,
// Kubernetes' moby/spdystream underneath) needs for exec/attach — client-initiated streams
// with headers, data both ways, half-close by FIN, and PING/GOAWAY/RST handling.
// Header blocks share one zlib context per direction, primed with the SPDY/3 dictionary.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';

const VERSION = 3;
const FLAG_FIN = 0x01;
const TYPE = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;

/** SPDY/3 §2.6.10.1: length-prefixed header words, then a run of common values. */
const DICTIONARY_WORDS = ['options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
  'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding', 'content-language',
  'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host',
  'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma',
  'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public',
  'set-cookie', 'keep-alive', 'origin'];
const DICTIONARY_TAIL = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
  '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
  'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

export const SPDY3_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.flatMap((w) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    return [len, Buffer.from(w, 'latin1')];
  }),
  Buffer.from(DICTIONARY_TAIL, 'latin1'),
]);

export type SpdyHeaders = Record<string, string>;

export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
  const entries = Object.entries(headers);
  parts.push(u32(entries.length));
  for (const [k, v] of entries) {
    const name = Buffer.from(k.toLowerCase()), value = Buffer.from(v);
    parts.push(u32(name.length), name, u32(value.length), value);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(buf: Buffer): SpdyHeaders {
  const out: SpdyHeaders = {};
  let off = 0;
  const n = buf.readUInt32BE(off); off += 4;
  for (let i = 0; i < n; i++) {
    const nl = buf.readUInt32BE(off); off += 4;
    const name = buf.subarray(off, off + nl).toString(); off += nl;
    const vl = buf.readUInt32BE(off); off += 4;
    out[name] = buf.subarray(off, off + vl).toString(); off += vl;
  }
  return out;
}

/** Runs one chunk through a long-lived zlib stream with a sync flush; calls are serialised. */
class SharedZlib {
  private chain: Promise<unknown> = Promise.resolve();
  constructor(private z: Deflate | Inflate) {}
  run(input: Buffer): Promise<Buffer> {
    const next = this.chain.then(() => new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onData = (c: Buffer) => chunks.push(c);
      const onError = (e: Error) => { this.z.off('data', onData); reject(e); };
      this.z.on('data', onData);
      this.z.once('error', onError);
      this.z.write(input);
      this.z.flush(constants.Z_SYNC_FLUSH, () => {
        this.z.off('data', onData);
        this.z.off('error', onError);
        resolve(Buffer.concat(chunks));
      });
    }));
    this.chain = next.catch(() => undefined); // the caller gets the error through `next`; the chain only orders calls
    return next;
  }
  close(): void { this.z.close(); }
}

export class SpdyStream extends EventEmitter {
  /** The peer's SYN_REPLY headers once they arrive. */
  replyHeaders: SpdyHeaders | null = null;
  remoteEnded = false;
  localEnded = false;
  constructor(readonly id: number, private session: SpdySession) {
    super();
  }
  write(data: Buffer): void {
    if (!this.localEnded && data.length) this.session.sendData(this.id, data, false);
  }
  /** Half-closes our side (the peer reads EOF). */
  end(): void {
    if (this.localEnded) return;
    this.localEnded = true;
    this.session.sendData(this.id, Buffer.alloc(0), true);
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

/** Emits 'close' when the connection ends. */
export class SpdySession extends EventEmitter {
  private nextId = 1;
  private streams = new Map<number, SpdyStream>();
  private buf: Buffer = Buffer.alloc(0);
  private deflate = new SharedZlib(createDeflate({ dictionary: SPDY3_DICTIONARY }));
  private inflate = new SharedZlib(createInflate({ dictionary: SPDY3_DICTIONARY }));
  /** Frames are handled in arrival order even though header decompression is async. */
  private inbound: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();
  closed = false;

  constructor(private socket: Duplex, initial?: Buffer) {
    super();
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('close', () => this.onClose());
    socket.on('end', () => socket.end());
    socket.on('error', (e) => this.emit('error', e));
    if (initial?.length) this.onData(initial);
  }

  openStream(headers: SpdyHeaders): SpdyStream {
    const id = this.nextId;
    this.nextId += 2;
    const stream = new SpdyStream(id, this);
    this.streams.set(id, stream);
    this.send(async () => {
      const block = await this.deflate.run(encodeHeaderBlock(headers));
      const body = Buffer.alloc(10);
      body.writeUInt32BE(id & 0x7fffffff, 0);
      body.writeUInt32BE(0, 4); // associated stream
      body[8] = 0; // priority
      body[9] = 0; // slot
      return control(TYPE.SYN_STREAM, 0, Buffer.concat([body, block]));
    });
    return stream;
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    this.send(async () => dataFrame(id, data, fin));
  }

  close(): void {
    if (this.closed) return;
    this.socket.destroy();
  }

  /** Frames leave in the order they were queued, after their header block is compressed. */
  private send(make: () => Promise<Buffer>): void {
    this.outbound = this.outbound.then(async () => {
      const frame = await make();
      if (!this.closed && !this.socket.destroyed) this.socket.write(frame);
    }).catch((e) => this.fail(e));
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (this.buf.length >= 8) {
      const len = this.buf.readUIntBE(5, 3);
      if (this.buf.length < 8 + len) break;
      const frame = this.buf.subarray(0, 8 + len);
      this.buf = this.buf.subarray(8 + len);
      this.inbound = this.inbound.then(() => this.handle(frame)).catch((e) => this.fail(e));
    }
  }

  private async handle(frame: Buffer): Promise<void> {
    const flags = frame[4];
    const payload = frame.subarray(8);
    if (!(frame[0] & 0x80)) {
      const id = frame.readUInt32BE(0) & 0x7fffffff;
      const s = this.streams.get(id);
      if (!s) return;
      if (payload.length) {
        s.emit('data', payload);
        this.send(async () => control(TYPE.WINDOW_UPDATE, 0, u32pair(id, payload.length)));
      }
      if (flags & FLAG_FIN) this.remoteEnd(s);
      return;
    }
    const version = frame.readUInt16BE(0) & 0x7fff;
    if (version !== VERSION) throw new Error(`SPDY version ${version} not supported`);
    const type = frame.readUInt16BE(2);
    switch (type) {
      case TYPE.SYN_REPLY: case TYPE.HEADERS: {
        const id = payload.readUInt32BE(0) & 0x7fffffff;
        const headers = decodeHeaderBlock(await this.inflate.run(payload.subarray(4)));
        const s = this.streams.get(id);
        if (!s) return;
        if (type === TYPE.SYN_REPLY && !s.replyHeaders) {
          s.replyHeaders = headers;
          s.emit('reply', headers);
        }
        if (flags & FLAG_FIN) this.remoteEnd(s);
        return;
      }
      case TYPE.SYN_STREAM: {
        // The stream server never opens streams; refuse any (RST REFUSED_STREAM = 3).
        await this.inflate.run(payload.subarray(10));
        this.send(async () => control(TYPE.RST_STREAM, 0, u32pair(payload.readUInt32BE(0) & 0x7fffffff, 3)));
        return;
      }
      case TYPE.RST_STREAM: {
        const id = payload.readUInt32BE(0) & 0x7fffffff;
        const s = this.streams.get(id);
        if (s) {
          s.emit('reset', payload.readUInt32BE(4));
          this.remoteEnd(s);
        }
        return;
      }
      case TYPE.PING:
        this.send(async () => control(TYPE.PING, 0, Buffer.from(payload)));
        return;
      case TYPE.GOAWAY:
        this.emit('goaway');
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE and unknown frames need nothing from a client this small.
    }
  }

  private remoteEnd(s: SpdyStream): void {
    if (s.remoteEnded) return;
    s.remoteEnded = true;
    s.emit('end');
  }

  private fail(e: unknown): void {
    this.emit('error', e instanceof Error ? e : new Error(String(e)));
    this.socket.destroy();
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

function control(type: number, flags: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(0x8000 | VERSION, 0);
  h.writeUInt16BE(type, 2);
  h[4] = flags;
  h.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([h, payload]);
}

function dataFrame(id: number, data: Buffer, fin: boolean): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(id & 0x7fffffff, 0);
  h[4] = fin ? FLAG_FIN : 0;
  h.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([h, data]);
}

function u32pair(a: number, b: number): Buffer {
  const buf = Buffer.alloc(8);
  buf.writeUInt32BE(a, 0);
  buf.writeUInt32BE(b, 4);
  return buf;
}
