// The parts of dns-packet its type definitions leave out (per-section codecs), typed once.
import * as dnsPacket from 'dns-packet';
import type { Answer, Question } from 'dns-packet';

interface SectionCodec<T> {
  encode(v: T, buf?: Buffer, offset?: number): Buffer;
  encodingLength(v: T): number;
  decode: { bytes: number };
}

const sections = dnsPacket as unknown as { question: SectionCodec<Question>; answer: SectionCodec<Answer> };

export const question = sections.question;
export const answer = sections.answer;
export { dnsPacket };
