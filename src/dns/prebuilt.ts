// Prebuilt answers: the encoded reply to each question the Zone has answered, found by
// reading the query's raw bytes (no decode, no allocation) and sent after writing the
// query's ID and its question bytes (the client's letter case) into it. The slow path
// (decode → resolve → encode) built each reply, so a hit is byte for byte what the slow
// path gives the same query. Any Zone change clears the table: a stale answer is worse
// than an encode.
import { PLAIN_UDP_SIZE, SERVER_UDP_SIZE } from './message.js';
import type { NativeDnsTable } from './native-udp.js';

const QR = 0x8000, OPCODE = 0x7800, RD = 0x0100, CD = 0x0010;
const OPT = 41;
const FNV_OFFSET = 0x811c9dc5 | 0, FNV_PRIME = 0x01000193;
/** EDNS options dns-packet decodes field by field (ECS, keep-alive, key tag): odd ones must reach its FORMERR. */
export const SLOW_EDNS_OPTIONS = [8, 11, 14];
const PARSED_OPTIONS = new Set(SLOW_EDNS_OPTIONS);

export interface Prebuilt {
  hash: number;
  /** What shapes the reply besides the question: RD/CD, EDNS0 and DO, the size limit. */
  shape: number;
  /** The question section with its name ASCII lower-cased. */
  question: Uint8Array;
  /** Shared: patched in place per query, so it is sent (or copied) before the next query. */
  reply: Buffer;
  qtype: number;
  rcode: number;
  truncated: boolean;
  next: Prebuilt | undefined;
}

export class PrebuiltAnswers {
  private table = new Map<number, Prebuilt>();
  private count = 0;
  // What the last scan found; the event loop runs one query at a time and a miss is
  // inserted in the same synchronous turn.
  private qEnd = 0;
  private shape = 0;
  private hash = 0;
  /** The addon's copy, answering UDP off the JS thread: every insert and clear reach it at once. */
  private mirror: NativeDnsTable | undefined;

  constructor(private max = 10_000) {}

  /** Keeps `table` equal to this one from now on (both start empty). */
  mirrorInto(table: NativeDnsTable): void {
    this.clear();
    this.mirror = table;
    table.clear();
  }

  get size(): number {
    return this.count;
  }

  /**
   * Reads `msg` as a plain query: one question with an uncompressed name, nothing but an
   * EDNS0 (version 0) OPT after it. False sends it the slow way (which also answers the
   * malformed and unusual). Allocates nothing.
   */
  scan(msg: Buffer, tcp: boolean): boolean {
    const len = msg.length;
    if (len < 17) return false;
    const flags = (msg[2] << 8) | msg[3];
    if (flags & (QR | OPCODE)) return false;
    if (msg[4] !== 0 || msg[5] !== 1 || msg[6] !== 0 || msg[7] !== 0 || msg[8] !== 0 || msg[9] !== 0 || msg[10] !== 0 || msg[11] > 1) return false;
    let h = FNV_OFFSET;
    let i = 12;
    for (;;) {
      if (i >= len) return false;
      const l = msg[i];
      if (l === 0) break;
      if (l > 63 || i + l > 12 + 254) return false; // pointers, extended label types, over-long names
      h = Math.imul(h ^ l, FNV_PRIME);
      const end = i + 1 + l;
      if (end >= len) return false;
      for (let j = i + 1; j < end; j++) {
        const c = msg[j];
        h = Math.imul(h ^ (c >= 0x41 && c <= 0x5a ? c | 0x20 : c), FNV_PRIME);
      }
      i = end;
    }
    const qEnd = i + 5;
    if (qEnd > len) return false;
    for (let j = i + 1; j < qEnd; j++) h = Math.imul(h ^ msg[j], FNV_PRIME);
    let shape = flags & (RD | CD);
    let limit = tcp ? 65535 : PLAIN_UDP_SIZE;
    if (msg[11] === 0) {
      if (qEnd !== len) return false;
    } else {
      // OPT: root name, type 41, class = UDP size, TTL = extended rcode/version/flags, options; nothing after.
      const o = qEnd;
      if (o + 11 > len || msg[o] !== 0 || ((msg[o + 1] << 8) | msg[o + 2]) !== OPT || msg[o + 6] !== 0) return false;
      if (o + 11 + ((msg[o + 9] << 8) | msg[o + 10]) !== len) return false;
      for (let p = o + 11; p < len;) {
        if (p + 4 > len || PARSED_OPTIONS.has((msg[p] << 8) | msg[p + 1])) return false;
        p += 4 + ((msg[p + 2] << 8) | msg[p + 3]);
        if (p > len) return false;
      }
      if (!tcp) limit = Math.max(PLAIN_UDP_SIZE, Math.min((msg[o + 3] << 8) | msg[o + 4], SERVER_UDP_SIZE));
      shape |= 1 << 16;
      if (msg[o + 7] & 0x80) shape |= 1 << 17;
    }
    h = Math.imul(h ^ shape, FNV_PRIME);
    h = Math.imul(h ^ limit, FNV_PRIME);
    this.qEnd = qEnd;
    this.shape = shape + limit * 2 ** 18;
    this.hash = h;
    return true;
  }

  /** The prebuilt reply to the query last scanned, not yet patched. */
  lookup(msg: Buffer): Prebuilt | undefined {
    const qlen = this.qEnd - 12;
    for (let e = this.table.get(this.hash); e; e = e.next) {
      if (e.shape === this.shape && e.question.length === qlen && sameQuestion(e.question, msg)) return e;
    }
    return undefined;
  }

  /** Writes the query's ID and question (its letter case) into the shared reply and returns it. */
  patch(e: Prebuilt, msg: Buffer): Buffer {
    const r = e.reply;
    r[0] = msg[0];
    r[1] = msg[1];
    const end = 12 + e.question.length;
    for (let i = 12; i < end; i++) r[i] = msg[i];
    return r;
  }

  /**
   * Keeps the slow path's reply to the query last scanned. Only replies that echo the
   * question byte for byte qualify (a name dns-packet re-encodes differently does not).
   */
  insert(msg: Buffer, reply: Buffer): void {
    if (this.max <= 0) return;
    const qEnd = this.qEnd;
    if (reply.length < qEnd || reply[4] !== 0 || reply[5] !== 1) return;
    for (let i = 12; i < qEnd; i++) if (reply[i] !== msg[i]) return;
    if (this.lookup(msg)) return;
    if (this.count >= this.max) this.clear(); // a simple bound: refilling costs one slow answer per name
    const question = new Uint8Array(qEnd - 12);
    for (let i = 12; i < qEnd; i++) question[i - 12] = i < qEnd - 4 ? lower(msg[i]) : msg[i];
    const e: Prebuilt = {
      hash: this.hash, shape: this.shape, question, reply: Buffer.from(reply), qtype: (msg[qEnd - 4] << 8) | msg[qEnd - 3],
      rcode: reply[3] & 0xf, truncated: (reply[2] & 0x02) !== 0, next: this.table.get(this.hash),
    };
    this.table.set(this.hash, e);
    this.count++;
    this.mirror?.insert(e.shape, e.question, e.reply, e.qtype, e.rcode, e.truncated);
  }

  clear(): void {
    this.table.clear();
    this.count = 0;
    this.mirror?.clear();
  }
}

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

/** The name compared ASCII case-insensitively (length bytes are ≤ 63, never letters), type and class exactly. */
function sameQuestion(q: Uint8Array, msg: Buffer): boolean {
  const n = q.length;
  for (let i = 0; i < n - 4; i++) if (q[i] !== lower(msg[12 + i])) return false;
  for (let i = n - 4; i < n; i++) if (q[i] !== msg[12 + i]) return false;
  return true;
}
