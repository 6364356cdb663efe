// The addon's UDP hot path for cluster DNS (native/dns_udp.cc): a thread per socket that
// answers queries the prebuilt table holds and hands every other datagram to JavaScript.
// The table's entries are computed here in TypeScript (prebuilt.ts) and mirrored into it.
import { loadAddon } from '../netlink/native.js';

/** A prebuilt table held by the addon; its key is prebuilt.ts's (shape, lower-cased question). */
export interface NativeDnsTable {
  insert(shape: number, question: Uint8Array, reply: Uint8Array, qtype: number, rcode: number, truncated: boolean): void;
  clear(): void;
  size(): number;
}

/** What one socket's thread answered since the last call (then reset). */
export interface NativeDnsStats {
  /** By query type below 256; index 256 counts the rest. */
  qtypes: Float64Array;
  rcodes: Float64Array;
  /** Counts per histogram bucket (the buckets passed in, then +Inf). */
  buckets: Float64Array;
  sum: number;
  truncated: number;
  /** Queries JavaScript's queue had no room for (dropped, as a full socket buffer drops). */
  dropped: number;
}

export interface NativeDnsSocket {
  port(): number;
  /** False when the kernel would not take the reply now. */
  send(reply: Uint8Array, address: string, port: number): boolean;
  stats(): NativeDnsStats;
  close(): void;
}

export interface NativeDnsOptions {
  plainUdpSize: number;
  serverUdpSize: number;
  /** EDNS option codes whose queries always go to the slow path. */
  slowOptions: number[];
  /** Upper bounds (seconds) of the duration histogram's buckets. */
  buckets: number[];
}

interface Exports {
  DnsTable?: new () => NativeDnsTable;
  DnsUdp?: new (host: string, port: number, table: NativeDnsTable, onMiss: (msg: Buffer, address: string, port: number) => void, opts: NativeDnsOptions) => NativeDnsSocket;
}

export interface NativeDns {
  table(): NativeDnsTable;
  socket(host: string, port: number, table: NativeDnsTable, onMiss: (msg: Buffer, address: string, port: number) => void, opts: NativeDnsOptions): NativeDnsSocket;
}

/** The addon's DNS path, or undefined when the addon was built without it or cannot load. */
export function nativeDns(): NativeDns | undefined {
  let ex: Exports;
  try {
    ex = loadAddon<Exports>();
  } catch {
    return undefined;
  }
  const { DnsTable, DnsUdp } = ex;
  if (!DnsTable || !DnsUdp) return undefined;
  return { table: () => new DnsTable(), socket: (host, port, table, onMiss, opts) => new DnsUdp(host, port, table, onMiss, opts) };
}
