// IPv4 addresses and CIDR blocks as integers: the IPAM walks a block by counting.

export interface Cidr {
  /** Network address as an unsigned 32-bit integer. */
  base: number;
  prefix: number;
  /** Number of addresses in the block (2^(32-prefix)). */
  size: number;
}

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

/** Parses "a.b.c.d/p"; host bits must be zero (a podCIDR is a block, not an address). */
export function parseCidr(s: string): Cidr | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(s.trim());
  if (!m) return undefined;
  const addr = parseIPv4(m[1]!);
  const prefix = Number(m[2]);
  if (addr === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  if (addr % size !== 0) return undefined;
  return { base: addr, prefix, size };
}

export function formatCidr(c: Cidr): string {
  return `${formatIPv4(c.base)}/${c.prefix}`;
}

export function cidrContains(c: Cidr, ip: number): boolean {
  return ip >= c.base && ip < c.base + c.size;
}

/**
 * The first address of the block that is neither the network address nor the one the node
 * keeps for itself (its tunnel/gateway address), and the last that is not the broadcast.
 * Blocks of /31 and /32 have no such structure and are used whole.
 */
export function assignableRange(c: Cidr): { first: number; last: number } {
  if (c.size <= 2) return { first: c.base, last: c.base + c.size - 1 };
  if (c.size === 4) return { first: c.base + 2, last: c.base + 2 };
  return { first: c.base + 2, last: c.base + c.size - 2 };
}

/** The address the IPAM never hands out so the node can use it (e.g. as its VXLAN tunnel address). */
export function nodeReservedAddress(c: Cidr): string | undefined {
  return c.size > 2 ? formatIPv4(c.base + 1) : undefined;
}
