// Service ClusterIPs and NodePorts. Each allocation is its own storage key, created only if
// absent, so two API servers on one etcd can never hand out the same IP or port: the store's
// create-if-absent is the lock.
import { randomInt } from 'node:crypto';
import { cidrOf, formatIPv4, parseIPv4 } from '../../../util/index.js';
import { KeyExistsError, NotFoundError, type Store } from '../../../storage/store.js';

export class RangeFullError extends Error {}
export class AlreadyAllocatedError extends Error {}
export class OutOfRangeError extends Error {}

export interface Range {
  /** First and last allocatable value, inclusive. */
  first: number;
  last: number;
  format(v: number): string;
  parse(s: string): number | null;
  text: string;
}

/** A service CIDR such as 10.96.0.0/12; the network and broadcast addresses are never handed out. */
export function cidrRange(cidr: string): Range {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const start = base === undefined ? undefined : parseIPv4(base);
  if (start === undefined || !Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`invalid service CIDR ${cidr}`);
  const block = cidrOf(start, bits);
  return { first: block.base + 1, last: block.base + block.size - 2, format: formatIPv4, parse: (s) => parseIPv4(s) ?? null, text: cidr };
}

export function portRange(text: string): Range {
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (!m) throw new Error(`invalid port range ${text}`);
  return { first: Number(m[1]), last: Number(m[2]), format: String, parse: (s) => (/^\d+$/.test(s) ? Number(s) : null), text };
}

export class Allocator {
  constructor(private store: Store, private prefix: string, readonly range: Range) {}

  private key(v: number): string {
    return `${this.prefix}${this.range.format(v)}`;
  }

  inRange(value: string): boolean {
    const v = this.range.parse(value);
    return v !== null && v >= this.range.first && v <= this.range.last;
  }

  /** Claims a specific value for `owner`. */
  async allocate(value: string, owner: string): Promise<void> {
    const v = this.range.parse(value);
    if (v === null || v < this.range.first || v > this.range.last) throw new OutOfRangeError(value);
    try {
      await this.store.create(this.key(v), Buffer.from(owner));
    } catch (e) {
      if (e instanceof KeyExistsError) throw new AlreadyAllocatedError(value);
      throw e;
    }
  }

  /** Claims any free value: random probes first, then a scan of what is taken. */
  async allocateNext(owner: string): Promise<string> {
    const size = this.range.last - this.range.first + 1;
    for (let i = 0; i < 32; i++) {
      const v = this.range.first + randomInt(size);
      try {
        await this.store.create(this.key(v), Buffer.from(owner));
        return this.range.format(v);
      } catch (e) {
        if (!(e instanceof KeyExistsError)) throw e;
      }
    }
    const taken = new Set((await this.store.list(this.prefix)).items.map((kv) => kv.key));
    for (let v = this.range.first; v <= this.range.last; v++) {
      if (taken.has(this.key(v))) continue;
      try {
        await this.store.create(this.key(v), Buffer.from(owner));
        return this.range.format(v);
      } catch (e) {
        if (!(e instanceof KeyExistsError)) throw e;
      }
    }
    throw new RangeFullError(this.range.text);
  }

  async release(value: string): Promise<void> {
    const v = this.range.parse(value);
    if (v === null) return;
    try {
      await this.store.delete(this.key(v));
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
    }
  }
}
