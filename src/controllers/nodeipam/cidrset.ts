// The cluster CIDR cut into equal per-node blocks, with an owner for every block in use.
// IPv4 only. Allocation continues after the last block handed out (like Kubernetes'
// cidrset), so a block just released is not the first one given to the next node.

import { formatIPv4, parseCidr } from '../../util/index.js';

/** The cluster CIDR as a block; host bits are cleared, as Go's net.ParseCIDR does. */
function parseClusterCIDR(cidr: string): { base: number; prefix: number } {
  const c = parseCidr(cidr, 'mask');
  if (!c) throw new Error(`invalid CIDR "${cidr}"`);
  return c;
}

export class CIDRSet {
  private readonly base: number;
  private readonly blockSize: number;
  readonly blocks: number;
  private owners = new Map<number, string>();
  private next = 0;

  constructor(readonly clusterCIDR: string, readonly maskSize: number) {
    const { base, prefix } = parseClusterCIDR(clusterCIDR);
    if (maskSize < prefix || maskSize > 32) throw new Error(`node CIDR mask size ${maskSize} does not fit cluster CIDR ${clusterCIDR}`);
    if (maskSize - prefix > 24) throw new Error(`cluster CIDR ${clusterCIDR} split into /${maskSize} gives too many blocks`);
    this.base = base;
    this.blockSize = 2 ** (32 - maskSize);
    this.blocks = 2 ** (maskSize - prefix);
  }

  private cidrOf(index: number): string {
    return `${formatIPv4(this.base + index * this.blockSize)}/${this.maskSize}`;
  }

  /** The block index of `cidr`, or undefined when it is not exactly one of our blocks. */
  indexOf(cidr: string): number | undefined {
    const parsed = parseCidr(cidr);
    if (!parsed || parsed.prefix !== this.maskSize) return undefined;
    const offset = parsed.base - this.base;
    if (offset < 0 || offset % this.blockSize !== 0 || offset / this.blockSize >= this.blocks) return undefined;
    return offset / this.blockSize;
  }

  /** Marks `cidr` as held by `owner`; false when it is outside the set or someone else holds it. */
  occupy(cidr: string, owner: string): boolean {
    const i = this.indexOf(cidr);
    if (i === undefined) return false;
    const held = this.owners.get(i);
    if (held !== undefined && held !== owner) return false;
    this.owners.set(i, owner);
    return true;
  }

  /** The next free block, now held by `owner`; undefined when the set is full. */
  allocate(owner: string): string | undefined {
    for (let k = 0; k < this.blocks; k++) {
      const i = (this.next + k) % this.blocks;
      if (this.owners.has(i)) continue;
      this.owners.set(i, owner);
      this.next = (i + 1) % this.blocks;
      return this.cidrOf(i);
    }
    return undefined;
  }

  /** Frees `cidr` if `owner` holds it. */
  release(cidr: string, owner: string): void {
    const i = this.indexOf(cidr);
    if (i !== undefined && this.owners.get(i) === owner) this.owners.delete(i);
  }

  ownerOf(cidr: string): string | undefined {
    const i = this.indexOf(cidr);
    return i === undefined ? undefined : this.owners.get(i);
  }

  get used(): number {
    return this.owners.size;
  }
}
