// The pod-template-hash: a short, stable name for a pod template (plus the collision count),
// used as the new ReplicaSet's name suffix and as a label that keeps the ReplicaSets of one
// Deployment from selecting each other's pods. Like Kubernetes: 32-bit FNV-1a, its decimal
// form spelled in an alphabet without vowels (so it never spells words); unlike Kubernetes
// the input is canonical JSON with sorted keys rather than Go's spew dump, so the values
// differ but are just as stable.
import { stableStringify } from '../../util/index.js';
import { pruneZero } from './util.js';

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

export function fnv32a(data: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(data, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function safeEncode(s: string): string {
  let out = '';
  for (const ch of s) out += alphabet[ch.charCodeAt(0) % alphabet.length];
  return out;
}

export function podTemplateHash(template: unknown, collisionCount?: number): string {
  let input = stableStringify(pruneZero(template) ?? {});
  if (collisionCount !== undefined && collisionCount !== null) input += `#${collisionCount}`;
  return safeEncode(String(fnv32a(input)));
}
