// SPDY/3 header blocks (§2.6.10): a count, then length-prefixed names and values, compressed
// with one zlib stream per direction for the whole connection, primed with the dictionary
// below. Names are lowercase; a value holding several values separates them with NUL.
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';

/** §2.6.10.1: length-prefixed header words, then a run of common values. */
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

/** Header names go out lowercase, as SPDY/3 requires. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
  const entries = Object.entries(headers);
  const parts: Buffer[] = [u32(entries.length)];
  for (const [k, v] of entries) {
    const name = Buffer.from(k.toLowerCase()), value = Buffer.from(v);
    parts.push(u32(name.length), name, u32(value.length), value);
  }
  return Buffer.concat(parts);
}

/** Throws on a block that ends early (a corrupt or truncated frame). Names are lowercased. */
export function decodeHeaderBlock(buf: Buffer): SpdyHeaders {
  const out: SpdyHeaders = {};
  let off = 0;
  const take = (n: number) => {
    if (off + n > buf.length) throw new RangeError(`SPDY header block truncated at byte ${off} (needs ${n} more)`);
    const s = buf.subarray(off, off + n);
    off += n;
    return s;
  };
  const count = take(4).readUInt32BE(0);
  for (let i = 0; i < count; i++) {
    const name = take(take(4).readUInt32BE(0)).toString().toLowerCase();
    out[name] = take(take(4).readUInt32BE(0)).toString();
  }
  return out;
}

/** Runs one chunk through a long-lived zlib stream with a sync flush; calls are serialised. */
export class HeaderCompression {
  private chain: Promise<unknown> = Promise.resolve();
  private constructor(private z: Deflate | Inflate) {}
  static deflater(): HeaderCompression { return new HeaderCompression(createDeflate({ dictionary: SPDY3_DICTIONARY })); }
  static inflater(): HeaderCompression { return new HeaderCompression(createInflate({ dictionary: SPDY3_DICTIONARY })); }

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
