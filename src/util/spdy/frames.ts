// SPDY/3.1 framing (the draft spec's §2.2 and §2.6): an 8-byte header — control bit, version
// and type for control frames, or a 31-bit stream id for data frames — flags, a 24-bit length.
// Pure functions over buffers; header blocks stay compressed here (the session owns the zlib
// contexts, whose state spans frames).

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;
/** The largest payload the 24-bit length can carry. */
export const MAX_PAYLOAD = 0xffffff;

export const FRAME = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;

/** RST_STREAM status codes (§2.6.3). */
export const RST = {
  PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, UNSUPPORTED_VERSION: 4, CANCEL: 5,
  INTERNAL_ERROR: 6, FLOW_CONTROL_ERROR: 7, STREAM_IN_USE: 8, STREAM_ALREADY_CLOSED: 9, FRAME_TOO_LARGE: 11,
} as const;

/** GOAWAY status codes (§2.6.6). */
export const GOAWAY = { OK: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2 } as const;

export type Frame =
  | { kind: 'data'; streamId: number; fin: boolean; data: Buffer }
  | { kind: 'syn_stream'; streamId: number; associatedId: number; priority: number; fin: boolean; unidirectional: boolean; block: Buffer }
  | { kind: 'syn_reply'; streamId: number; fin: boolean; block: Buffer }
  | { kind: 'headers'; streamId: number; fin: boolean; block: Buffer }
  | { kind: 'rst_stream'; streamId: number; status: number }
  | { kind: 'settings'; flags: number; entries: { flags: number; id: number; value: number }[] }
  | { kind: 'ping'; id: number }
  | { kind: 'goaway'; lastGoodStreamId: number; status: number }
  | { kind: 'window_update'; streamId: number; delta: number }
  | { kind: 'unknown'; type: number; flags: number; payload: Buffer };

export class SpdyProtocolError extends Error {}

/**
 * Splits complete frames off the front of `buf`; `rest` is an incomplete frame still to be
 * completed by more bytes. Throws SpdyProtocolError for a frame that cannot be SPDY/3.
 */
export function parseFrames(buf: Buffer): { frames: Frame[]; rest: Buffer } {
  const frames: Frame[] = [];
  let off = 0;
  while (buf.length - off >= 8) {
    const len = buf.readUIntBE(off + 5, 3);
    if (buf.length - off < 8 + len) break;
    frames.push(parseFrame(buf.subarray(off, off + 8 + len)));
    off += 8 + len;
  }
  return { frames, rest: buf.subarray(off) };
}

/** One whole frame (header and payload). */
export function parseFrame(frame: Buffer): Frame {
  const flags = frame[4];
  const p = frame.subarray(8);
  if (!(frame[0] & 0x80)) return { kind: 'data', streamId: frame.readUInt32BE(0) & 0x7fffffff, fin: !!(flags & FLAG_FIN), data: p };
  const version = frame.readUInt16BE(0) & 0x7fff;
  if (version !== SPDY_VERSION) throw new SpdyProtocolError(`SPDY version ${version} is not supported (only 3)`);
  const type = frame.readUInt16BE(2);
  const need = (n: number, what: string) => { if (p.length < n) throw new SpdyProtocolError(`${what} frame too short: ${p.length} bytes`); };
  const fin = !!(flags & FLAG_FIN);
  switch (type) {
    case FRAME.SYN_STREAM:
      need(10, 'SYN_STREAM');
      return {
        kind: 'syn_stream', streamId: p.readUInt32BE(0) & 0x7fffffff, associatedId: p.readUInt32BE(4) & 0x7fffffff,
        priority: p[8] >> 5, fin, unidirectional: !!(flags & FLAG_UNIDIRECTIONAL), block: p.subarray(10),
      };
    case FRAME.SYN_REPLY:
      need(4, 'SYN_REPLY');
      return { kind: 'syn_reply', streamId: p.readUInt32BE(0) & 0x7fffffff, fin, block: p.subarray(4) };
    case FRAME.HEADERS:
      need(4, 'HEADERS');
      return { kind: 'headers', streamId: p.readUInt32BE(0) & 0x7fffffff, fin, block: p.subarray(4) };
    case FRAME.RST_STREAM:
      need(8, 'RST_STREAM');
      return { kind: 'rst_stream', streamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
    case FRAME.SETTINGS: {
      need(4, 'SETTINGS');
      const n = p.readUInt32BE(0);
      need(4 + n * 8, 'SETTINGS');
      const entries = [];
      for (let i = 0; i < n; i++) {
        const at = 4 + i * 8;
        entries.push({ flags: p[at], id: p.readUIntBE(at + 1, 3), value: p.readUInt32BE(at + 4) });
      }
      return { kind: 'settings', flags, entries };
    }
    case FRAME.PING:
      need(4, 'PING');
      return { kind: 'ping', id: p.readUInt32BE(0) };
    case FRAME.GOAWAY:
      need(8, 'GOAWAY');
      return { kind: 'goaway', lastGoodStreamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
    case FRAME.WINDOW_UPDATE:
      need(8, 'WINDOW_UPDATE');
      return { kind: 'window_update', streamId: p.readUInt32BE(0) & 0x7fffffff, delta: p.readUInt32BE(4) & 0x7fffffff };
    default:
      // §2.2.1: unknown control frames are ignored.
      return { kind: 'unknown', type, flags, payload: p };
  }
}

export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  if (payload.length > MAX_PAYLOAD) throw new RangeError(`SPDY frame payload of ${payload.length} bytes exceeds ${MAX_PAYLOAD}`);
  const h = Buffer.alloc(8);
  h.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  h.writeUInt16BE(type, 2);
  h[4] = flags;
  h.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([h, payload]);
}

export function dataFrame(streamId: number, data: Buffer, fin: boolean): Buffer {
  if (data.length > MAX_PAYLOAD) throw new RangeError(`SPDY data frame of ${data.length} bytes exceeds ${MAX_PAYLOAD}`);
  const h = Buffer.alloc(8);
  h.writeUInt32BE(streamId & 0x7fffffff, 0);
  h[4] = fin ? FLAG_FIN : 0;
  h.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([h, data]);
}

export function synStreamFrame(streamId: number, block: Buffer, opts: { fin?: boolean; associatedId?: number; priority?: number } = {}): Buffer {
  const body = Buffer.alloc(10);
  body.writeUInt32BE(streamId & 0x7fffffff, 0);
  body.writeUInt32BE((opts.associatedId ?? 0) & 0x7fffffff, 4);
  body[8] = ((opts.priority ?? 0) & 0x7) << 5;
  body[9] = 0; // slot
  return controlFrame(FRAME.SYN_STREAM, opts.fin ? FLAG_FIN : 0, Buffer.concat([body, block]));
}

export function synReplyFrame(streamId: number, block: Buffer, fin = false): Buffer {
  return controlFrame(FRAME.SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId & 0x7fffffff), block]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  return controlFrame(FRAME.RST_STREAM, 0, Buffer.concat([u32(streamId & 0x7fffffff), u32(status)]));
}

export function pingFrame(id: number): Buffer {
  return controlFrame(FRAME.PING, 0, u32(id));
}

export function goawayFrame(lastGoodStreamId: number, status: number): Buffer {
  return controlFrame(FRAME.GOAWAY, 0, Buffer.concat([u32(lastGoodStreamId & 0x7fffffff), u32(status)]));
}

export function windowUpdateFrame(streamId: number, delta: number): Buffer {
  return controlFrame(FRAME.WINDOW_UPDATE, 0, Buffer.concat([u32(streamId & 0x7fffffff), u32(delta & 0x7fffffff)]));
}

export function settingsFrame(entries: { flags?: number; id: number; value: number }[], flags = 0): Buffer {
  const body = Buffer.alloc(4 + entries.length * 8);
  body.writeUInt32BE(entries.length, 0);
  entries.forEach((e, i) => {
    body[4 + i * 8] = e.flags ?? 0;
    body.writeUIntBE(e.id, 5 + i * 8, 3);
    body.writeUInt32BE(e.value, 8 + i * 8);
  });
  return controlFrame(FRAME.SETTINGS, flags, body);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
