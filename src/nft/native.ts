// The nftables half of the native addon's surface: low-level (libnftnl-shaped) expressions
// and objects. compile.ts / decompile.ts translate the typed vocabulary to and from these.
import { loadAddon } from '../netlink/index.js';

export type LowExpr = { type: string } & Record<string, number | string | Uint8Array | undefined>;

export type LowOp = { family: number; table: string; exclusive?: boolean } & (
  | { op: 'addTable'; flags?: number }
  | { op: 'delTable' }
  | { op: 'addChain'; chain: string; type?: string; hook?: number; priority?: number; policy?: number }
  | { op: 'delChain' | 'flushChain'; chain: string }
  | { op: 'addRule'; chain: string; exprs: LowExpr[]; userdata?: Uint8Array; position?: number }
  | { op: 'delRule'; chain: string; handle: number }
  | { op: 'addSet'; set: string; flags: number; keyType: number; keyLen: number; dataType?: number; dataLen?: number; size?: number }
  | { op: 'delSet' | 'flushSet'; set: string }
  | { op: 'addElements' | 'delElements'; set: string; elements: LowElement[] }
);

export interface LowElement {
  key: Uint8Array;
  data?: Uint8Array;
  verdict?: number;
  chain?: string;
  flags?: number;
  /** ms */
  timeout?: number;
  expiration?: number;
}

/** Read-back form: as LowExpr/LowElement, but byte strings arrive as lowercase hex. */
export type Hex = string;
export type ReadExpr = { type: string } & Record<string, number | string>;
export interface ReadElement {
  key: Hex;
  data?: Hex;
  verdict?: number;
  chain?: string;
  flags?: number;
  timeout?: number;
  expiration?: number;
}

export interface LowTable {
  family: number;
  name: string;
  flags: number;
  chains: { name: string; handle: number; hook?: number; priority?: number; type?: string; policy?: number }[];
  rules: { chain: string; handle: number; exprs: ReadExpr[]; userdata?: Hex }[];
  sets: { name: string; handle: number; flags: number; keyType: number; keyLen: number; dataType?: number; dataLen?: number; elements: ReadElement[] }[];
}

export interface NativeNft {
  /**
   * One atomic transaction; rejects with { name: 'NftError', errno, code, index }. Takes the
   * ops as objects (parsed on the JS thread) or in the binary form of wire.ts (decoded on
   * the worker thread).
   */
  nftApply(netns: string | null, ops: LowOp[] | Uint8Array): Promise<{ operations: number; generationBefore: number }>;
  /** Expression/attribute/op indexes for the binary form. */
  nftSchema(): import('./wire.js').WireSchema;
  /** The table as JSON text of a LowTable (JSON.parse it); ENOENT if it does not exist. */
  nftList(netns: string | null, family: number, table: string): Promise<string>;
  /** The same with every set's elements in columns (the JSON's sets have none). */
  nftList(netns: string | null, family: number, table: string, columns: true): Promise<{ json: string; sets: import('./columns.js').ElementColumns[] }>;
  /** The ruleset generation id (NFT_MSG_GETGEN). */
  nftGeneration(netns: string | null): Promise<number>;
  /** Subscribes to nftables' change notifications in the namespace, summarised for one table. */
  NftMonitor: new (netns: string | null, family: number, table: string, receiveBytes: number) => import('./types.js').TableMonitor;
}

export const nativeNft = (): NativeNft => loadAddon<NativeNft>();
