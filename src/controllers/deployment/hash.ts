// The pod-template-hash: a short, stable name for a pod template (plus the collision count),
// used as the new ReplicaSet's name suffix and as a label that keeps the ReplicaSets of one
// Deployment from selecting each other's pods. Like Kubernetes: 32-bit FNV-1a, its decimal
// form spelled in an alphabet without vowels (so it never spells words); unlike Kubernetes
// the input is canonical JSON with sorted keys rather than Go's spew dump, so the values
// differ but are just as stable.
import { pruneZero } from './util.js';

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

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
  let input = canonical(pruneZero(template) ?? {});
  if (collisionCount !== undefined && collisionCount !== null) input += `#${collisionCount}`;
  return safeEncode(String(fnv32a(input)));
}
