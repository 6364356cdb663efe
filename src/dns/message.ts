// Wire format through dns-packet: reading a query (with the checks a server owes malformed
// input), and writing a response that fits the client's size (TC when it does not).
import type { Answer, Packet, Question } from 'dns-packet';
import { answer, dnsPacket, question } from './wire.js';
import type { Rcode, Resolution } from './resolver.js';

const RCODES: Record<Rcode | 'BADVERS', number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, BADVERS: 16 };
const QR = 1 << 15, AA = 1 << 10, TC = 1 << 9, RD = 1 << 8, RA = 1 << 7, CD = 1 << 4;

/** The UDP payload size this server offers (the DNS Flag Day 2020 value) and the floor without EDNS0. */
export const SERVER_UDP_SIZE = 1232;
export const PLAIN_UDP_SIZE = 512;

export interface ParsedQuery {
  id: number;
  /** Header flags word as received. */
  flags: number;
  question: Question;
  /** Bytes of the question section in the query, echoed verbatim (keeps the client's 0x20 case). */
  questionWire: Buffer;
  edns?: { udpSize: number; version: number; do: boolean };
}

export type ParseResult =
  | { ok: true; query: ParsedQuery }
  | { ok: false; reply?: Buffer; reason: string };

/**
 * Reads a query. Responses and anything shorter than a header are dropped (no reply);
 * a header we can read with a body we cannot gets FORMERR; other opcodes get NOTIMP.
 */
export function parseQuery(buf: Buffer): ParseResult {
  if (buf.length < 12) return { ok: false, reason: 'short' };
  const id = buf.readUInt16BE(0);
  const flags = buf.readUInt16BE(2);
  if (flags & QR) return { ok: false, reason: 'response' };
  const opcode = (flags >> 11) & 0xf;
  if (opcode !== 0) return { ok: false, reply: headerOnly(id, flags, RCODES.NOTIMP), reason: 'opcode' };
  let packet: Packet;
  try {
    packet = dnsPacket.decode(buf);
  } catch { // not silent: the caller answers FORMERR and counts reason "decode"
    return { ok: false, reply: headerOnly(id, flags, RCODES.FORMERR), reason: 'decode' };
  }
  const qs = packet.questions ?? [];
  if (qs.length !== 1 || (packet.answers?.length ?? 0) > 0) return { ok: false, reply: headerOnly(id, flags, RCODES.FORMERR), reason: 'questions' };
  const opts = (packet.additionals ?? []).filter((a) => a.type === 'OPT');
  if (opts.length > 1) return { ok: false, reply: headerOnly(id, flags, RCODES.FORMERR), reason: 'opt' };
  const q0 = qs[0];
  if (typeof q0.type !== 'string' || typeof q0.name !== 'string') return { ok: false, reply: headerOnly(id, flags, RCODES.FORMERR), reason: 'question' };
  // dns-packet leaves the last question's wire length here; echo those bytes only when
  // re-encoding gives the same length (no odd labels), else the re-encoded form.
  const wireLen = question.decode.bytes;
  const qlen = question.encodingLength(q0);
  const questionWire = wireLen === qlen ? buf.subarray(12, 12 + qlen) : question.encode(q0);
  const query: ParsedQuery = { id, flags, question: q0, questionWire };
  if (opts.length) {
    const o = opts[0] as unknown as { udpPayloadSize: number; ednsVersion: number; flag_do: boolean };
    query.edns = { udpSize: o.udpPayloadSize, version: o.ednsVersion, do: !!o.flag_do };
  }
  return { ok: true, query };
}

/** A reply with no sections: FORMERR/NOTIMP/SERVFAIL to something we could not answer. */
export function headerOnly(id: number, queryFlags: number, rcode: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(id, 0);
  b.writeUInt16BE(QR | (queryFlags & (0xf << 11)) | (queryFlags & RD) | RA | (rcode & 0xf), 2);
  return b;
}

/** The biggest reply this client takes over this transport. */
export function sizeLimit(q: ParsedQuery, tcp: boolean): number {
  if (tcp) return 65535;
  if (!q.edns) return PLAIN_UDP_SIZE;
  return Math.max(PLAIN_UDP_SIZE, Math.min(q.edns.udpSize, SERVER_UDP_SIZE));
}

/** Encodes the answer to `q`; drops additional records, then answers, and sets TC, until it fits in `limit`. */
export function encodeResponse(q: ParsedQuery, r: Resolution, limit: number): Buffer {
  let rcode = RCODES[r.rcode];
  const additionals: Answer[] = [];
  if (q.edns) {
    if (q.edns.version > 0) rcode = RCODES.BADVERS;
    additionals.push({
      type: 'OPT', name: '.', udpPayloadSize: SERVER_UDP_SIZE, extendedRcode: rcode >> 4, ednsVersion: 0,
      flags: q.edns.do ? dnsPacket.DNSSEC_OK : 0, options: [],
    } as unknown as Answer);
  }
  const badvers = rcode === RCODES.BADVERS;
  let flags = (q.flags & (0xf << 11)) | (q.flags & RD) | (q.flags & CD) | RA | (rcode & 0xf);
  if (r.authoritative && !badvers) flags |= AA;
  const packet: Packet = {
    id: q.id, type: 'response', flags,
    questions: [q.question],
    answers: badvers ? [] : r.answers,
    authorities: badvers ? [] : r.authorities,
    additionals: badvers ? additionals : [...r.additionals, ...additionals],
  };
  let len = dnsPacket.encodingLength(packet);
  if (len > limit && packet.additionals!.length > additionals.length) {
    packet.additionals = additionals;
    len = dnsPacket.encodingLength(packet);
  }
  if (len > limit) {
    // Keep as many whole answer records as fit, no authority, and tell the client to retry over TCP.
    packet.flags = flags | TC;
    packet.authorities = [];
    const answers = packet.answers!;
    packet.answers = [];
    let used = dnsPacket.encodingLength(packet);
    const kept: Answer[] = [];
    for (const a of answers) {
      const l = answer.encodingLength(a);
      if (used + l > limit) break;
      used += l;
      kept.push(a);
    }
    packet.answers = kept;
  }
  const out = dnsPacket.encode(packet);
  // Echo the question exactly as asked (case included); it has the same length by construction.
  if (out.length >= 12 + q.questionWire.length) q.questionWire.copy(out, 12);
  return out;
}

export function isTruncated(buf: Buffer): boolean {
  return buf.length >= 4 && (buf.readUInt16BE(2) & TC) !== 0;
}

export function rcodeOf(buf: Buffer): number {
  return buf.length >= 4 ? buf.readUInt16BE(2) & 0xf : -1;
}
