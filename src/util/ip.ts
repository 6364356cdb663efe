// IPv4 and IPv6 addresses and IPv4 CIDR blocks. IPv4 addresses are unsigned 32-bit integers
// so blocks can be walked by counting (IPAM, node blocks, service IPs); IPv6 addresses are
// 16 bytes (nftables keys, reverse DNS names). One parser, one formatter, one notion of a block.
import { isIPv4, isIPv6 } from 'node:net';

/** "a.b.c.d" (each part 1–3 digits, ≤ 255) → unsigned integer; undefined when malformed. */
export function parseIPv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** An IPv4 block. */
export interface Cidr {
  /** Network address as an unsigned 32-bit integer. */
  base: number;
  prefix: number;
  /** Number of addresses in the block (2^(32-prefix)). */
  size: number;
}

/** The block of `prefix` bits that holds address `ip`. */
export function cidrOf(ip: number, prefix: number): Cidr {
  const size = 2 ** (32 - prefix);
  return { base: ip - (ip % size), prefix, size };
}

/**
 * Parses "a.b.c.d/p" (surrounding space allowed). Host bits set: `'reject'` (default; a
 * podCIDR is a block, not an address) gives undefined, `'mask'` clears them as Go's
 * net.ParseCIDR does for the network. Undefined for anything malformed.
 */
export function parseCidr(s: string, hostBits: 'reject' | 'mask' = 'reject'): Cidr | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(s.trim());
  if (!m) return undefined;
  const addr = parseIPv4(m[1]!);
  const prefix = Number(m[2]);
  if (addr === undefined || prefix > 32) return undefined;
  const c = cidrOf(addr, prefix);
  return hostBits === 'reject' && c.base !== addr ? undefined : c;
}

export function formatCidr(c: Cidr): string {
  return `${formatIPv4(c.base)}/${c.prefix}`;
}

export function cidrContains(c: Cidr, ip: number): boolean {
  return ip >= c.base && ip < c.base + c.size;
}

/** The eight groups of an IPv6 address (an embedded IPv4 tail becomes two); undefined when `ip` is not IPv6. */
function ipv6Groups(ip: string): number[] | undefined {
  if (!isIPv6(ip)) return undefined;
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const last = tail !== undefined ? t : h;
  if (last.length && isIPv4(last[last.length - 1]!)) {
    const [a, b, c, d] = last.pop()!.split('.').map(Number) as [number, number, number, number];
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const fill = tail !== undefined ? new Array<string>(8 - h.length - t.length).fill('0') : [];
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

/** The full eight-group form, `2001:db8::1` → `2001:0db8:0000:...:0001`; undefined when not IPv6. */
export function expandIPv6(ip: string): string | undefined {
  return ipv6Groups(ip)?.map((g) => g.toString(16).padStart(4, '0')).join(':');
}

/** An address as bytes: 4 for IPv4, 16 for IPv6; undefined when it is neither. */
export function ipBytes(text: string): Uint8Array | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return Uint8Array.of(v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255);
  const groups = ipv6Groups(text);
  if (!groups) return undefined;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => { out[i * 2] = g >> 8; out[i * 2 + 1] = g & 255; });
  return out;
}

/** 4 or 16 bytes → text; IPv6 compresses the longest run of two or more zero groups, as inet_ntop does. */
export function formatIP(b: Uint8Array): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) { best = i; bestLen = j - i; }
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}
