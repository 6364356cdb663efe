// What a node's pod block reserves; addresses and blocks themselves are src/util/ip.ts.
import { formatIPv4, type Cidr } from '../util/index.js';


export { cidrContains, formatCidr, formatIPv4, parseCidr, parseIPv4, type Cidr } from '../util/index.js';

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
