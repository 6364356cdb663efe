// Pod address allocation from the node's block, recorded on disk: one file per address,
// named by the address and created with O_EXCL, holding who owns it. Creating the file is
// the allocation, so two allocators (or an agent and its restarted self) can never hand out
// one address twice, and a crash leaves at worst a record without an interface, which DEL
// or the GC pass reclaims. Every call here is synchronous on purpose: inside one process
// nothing interleaves with an allocation, so concurrent ADDs need no further lock.
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assignableRange, cidrContains, formatIPv4, parseIPv4, type Cidr } from './cidr.js';

export interface AllocationOwner {
  containerID: string;
  ifName: string;
  /** Host side of the pod's veth, so DEL and GC can remove it without recomputing. */
  hostVeth: string;
  /** "namespace/name" when the runtime told us (K8S_POD_NAMESPACE/K8S_POD_NAME). */
  pod?: string;
}

export interface Allocation extends AllocationOwner {
  ip: string;
  /** When the record was written (file mtime), for the GC's grace period. */
  createdMs: number;
}

export class IPAMExhaustedError extends Error {
  constructor(block: string) {
    super(`no free address left in ${block}`);
    this.name = 'IPAMExhaustedError';
  }
}

const ownerKey = (containerID: string, ifName: string) => `${containerID}/${ifName}`;

export class IPAM {
  private byIP = new Map<string, Allocation>();
  private byOwner = new Map<string, string>();
  /** Next candidate per block: round-robin, so a released address is not reused at once. */
  private cursor = new Map<string, number>();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.reload();
  }

  /** Re-reads every record from disk (start-up, or after another process touched the dir). */
  reload(): void {
    this.byIP.clear();
    this.byOwner.clear();
    for (const name of readdirSync(this.dir)) {
      if (parseIPv4(name) === undefined) continue;
      this.index(this.readRecord(name));
    }
  }

  list(): Allocation[] {
    return [...this.byIP.values()];
  }

  find(containerID: string, ifName: string): Allocation | undefined {
    const ip = this.byOwner.get(ownerKey(containerID, ifName));
    return ip === undefined ? undefined : this.byIP.get(ip);
  }

  /** Other allocations that name the same host veth (an older sandbox of the same pod). */
  othersWithVeth(hostVeth: string, containerID: string): Allocation[] {
    return this.list().filter((a) => a.hostVeth === hostVeth && a.containerID !== containerID);
  }

  /**
   * The owner's address: the one it already has (ADD retried), else the next free one in
   * the block. The record is on disk when this returns.
   */
  allocate(block: Cidr, owner: AllocationOwner): Allocation {
    const existing = this.find(owner.containerID, owner.ifName);
    if (existing && cidrContains(block, parseIPv4(existing.ip)!)) return existing;
    // The node's block changed under a retried ADD: the old address goes back.
    if (existing) this.releaseIP(existing.ip);
    const { first, last } = assignableRange(block);
    const count = last - first + 1;
    const blockKey = `${block.base}/${block.prefix}`;
    let start = this.cursor.get(blockKey) ?? this.savedCursor(block) ?? first;
    if (start < first || start > last) start = first;
    for (let i = 0; i < count; i++) {
      const n = first + ((start - first + i) % count);
      const ip = formatIPv4(n);
      if (this.byIP.has(ip)) continue;
      const record = JSON.stringify({ containerID: owner.containerID, ifName: owner.ifName, hostVeth: owner.hostVeth, pod: owner.pod });
      try {
        writeFileSync(join(this.dir, ip), `${record}\n`, { flag: 'wx', mode: 0o600 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
          // Written by another process since we last looked: learn it and move on.
          this.index(this.readRecord(ip));
          continue;
        }
        throw e;
      }
      const allocation: Allocation = { ...owner, ip, createdMs: Date.now() };
      this.index(allocation);
      const next = n + 1 > last ? first : n + 1;
      this.cursor.set(blockKey, next);
      // Survives a restart of the agent; losing it (a crash mid-write) only costs the round-robin.
      writeFileSync(this.cursorPath(block), `${next}\n`);
      return allocation;
    }
    throw new IPAMExhaustedError(`${formatIPv4(block.base)}/${block.prefix}`);
  }

  /** Removes the owner's record; undefined when it had none (DEL is idempotent). */
  release(containerID: string, ifName: string): Allocation | undefined {
    const a = this.find(containerID, ifName);
    if (!a) return undefined;
    this.releaseIP(a.ip);
    return a;
  }

  releaseIP(ip: string): void {
    const a = this.byIP.get(ip);
    try {
      unlinkSync(join(this.dir, ip));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    this.byIP.delete(ip);
    if (a && this.byOwner.get(ownerKey(a.containerID, a.ifName)) === ip) this.byOwner.delete(ownerKey(a.containerID, a.ifName));
  }

  private cursorPath(block: Cidr): string {
    return join(this.dir, `.cursor-${formatIPv4(block.base)}-${block.prefix}`);
  }

  private savedCursor(block: Cidr): number | undefined {
    try {
      const n = Number(readFileSync(this.cursorPath(block), 'utf8').trim());
      return Number.isInteger(n) ? n : undefined;
    } catch { // no cursor saved for this block yet: start at its beginning
      return undefined;
    }
  }

  private index(a: Allocation): void {
    this.byIP.set(a.ip, a);
    if (a.containerID) this.byOwner.set(ownerKey(a.containerID, a.ifName), a.ip);
  }

  /** A record that cannot be parsed (a crash between create and write) still holds its address. */
  private readRecord(ip: string): Allocation {
    const path = join(this.dir, ip);
    let createdMs = Date.now();
    let owner: Partial<AllocationOwner> = {};
    try {
      createdMs = statSync(path).mtimeMs;
      owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<AllocationOwner>;
    } catch { /* empty or partial record */ }
    return {
      ip,
      containerID: typeof owner.containerID === 'string' ? owner.containerID : '',
      ifName: typeof owner.ifName === 'string' ? owner.ifName : '',
      hostVeth: typeof owner.hostVeth === 'string' ? owner.hostVeth : '',
      pod: typeof owner.pod === 'string' ? owner.pod : undefined,
      createdMs,
    };
  }
}
