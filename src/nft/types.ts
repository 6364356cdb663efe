// capstan's nftables vocabulary: enough for a kube-proxy-like service proxy and the CNI's
// few filter rules. Drivers compile it (addon), render it (`nft -f`) or interpret it (fake);
// read-back returns the same vocabulary so callers can diff desired against actual.

export type Family = 'ip' | 'ip6' | 'inet';

/** Packet fields a rule can match, look up or concatenate into a set key. */
export type Field =
  | 'ip saddr' | 'ip daddr' | 'ip6 saddr' | 'ip6 daddr'
  | 'meta l4proto' | 'meta nfproto' | 'meta mark'
  | 'th sport' | 'th dport';

/** Set/map key element types (nft's names). 'integer' keys the numgen maps. */
export type KeyType = 'ipv4_addr' | 'ipv6_addr' | 'inet_proto' | 'inet_service' | 'mark' | 'integer';

export type CtState = 'invalid' | 'established' | 'related' | 'new' | 'untracked';

export type Verdict =
  | { kind: 'accept' } | { kind: 'drop' } | { kind: 'return' } | { kind: 'continue' }
  | { kind: 'jump'; chain: string } | { kind: 'goto'; chain: string };

/** A value for a field/key: addresses as text ("10.0.0.1", "10.0.0.0/8" for a prefix
 *  match), protocols as names ("tcp") or numbers, ports and marks as numbers. */
export type Value = string | number;

export type Expr =
  | { kind: 'match'; field: Field; value: Value; op?: '==' | '!='; mask?: number }
  /** `th dport 8000-8080`: an inclusive range (policy ports with endPort). */
  | { kind: 'range'; field: Field; from: Value; to: Value }
  | { kind: 'ctState'; states: CtState[] }
  /** `ct status dnat`: the connection's destination was rewritten (a Service's DNAT). */
  | { kind: 'ctStatusDnat' }
  | { kind: 'fibDaddrLocal' }
  | { kind: 'lookup'; fields: Field[]; set: string; op?: '==' | '!=' }
  | { kind: 'vmap'; fields: Field[]; map: string }
  /** `numgen random mod N [offset K] vmap @map`: with an offset, many services can share one
   *  map (service s owns keys K..K+N-1), which keeps the number of named maps small. */
  | { kind: 'numgenVmap'; mod: number; map: string; offset?: number }
  /** Read back with what it counted (a rule's own counter; written without values). */
  | { kind: 'counter'; packets?: number; bytes?: number }
  /** `dnat ip to <fields> [. numgen random mod N] map @map`: the map's data is `ipv4_addr .
   *  inet_service`, so one shared data map can hold every service's endpoints (no jumps, so
   *  changing its elements never makes the kernel re-validate the table). */
  | { kind: 'dnatMap'; fields: Field[]; numgen?: number; map: string }
  /** `meta mark set meta mark or V`: sets bits without clobbering the rest of the mark. */
  | { kind: 'markOr'; value: number }
  /** `numgen random mod N == V`: a probability cascade without a map. */
  | { kind: 'numgenMatch'; mod: number; value: number }
  /** `update @set { fields [timeout Ns] }`: adds the key or refreshes its timeout (affinity). */
  | { kind: 'setUpdate'; fields: Field[]; set: string; timeout?: number }
  | Verdict
  | { kind: 'reject'; with: 'icmp port-unreachable' | 'icmpv6 port-unreachable' | 'icmpx port-unreachable' | 'tcp reset' }
  | { kind: 'dnat'; addr: string; port?: number }
  | { kind: 'masquerade' }
  | { kind: 'setMark'; value: number }
  /** Anything the decompiler did not recognise, kept so nothing is silently lost. */
  | { kind: 'raw'; text: string };

export type Hook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';

export interface BaseChain {
  type: 'filter' | 'nat' | 'route';
  hook: Hook;
  priority: number;
  policy?: 'accept' | 'drop';
}

export interface ChainSpec {
  name: string;
  base?: BaseChain;
}

export type SetFlag = 'constant' | 'interval' | 'timeout' | 'dynamic';

export interface SetSpec {
  name: string;
  /** One type, or several for a concatenated key (`ipv4_addr . inet_proto . inet_service`). */
  keyType: KeyType[];
  /** Present for maps; only verdict maps are needed so far. */
  map?: 'verdict';
  /** For data maps: the type of each element's data (e.g. `ipv4_addr . inet_service`). */
  data?: KeyType[];
  flags?: SetFlag[];
}

export interface Element {
  key: Value[];
  verdict?: Verdict;
  /** A data map's value, one part per SetSpec.data type. */
  data?: Value[];
  /** Sets with the `timeout` flag: the element's lifetime in ms, and (added or read back) the
   *  ms left. Re-adding an element with a shorter `expiresMs` retires it without a delete. */
  timeoutMs?: number;
  expiresMs?: number;
}

export interface TableRef {
  family: Family;
  name: string;
}

/** One operation of a transaction (all on the transaction's table). */
export type NftOp =
  | { op: 'addTable' }
  | { op: 'deleteTable' }
  | { op: 'addChain'; chain: string; base?: BaseChain }
  | { op: 'deleteChain' | 'flushChain'; chain: string }
  | { op: 'addRule'; chain: string; exprs: Expr[]; comment?: string }
  | { op: 'deleteRule'; chain: string; handle: number }
  | { op: 'addSet'; set: SetSpec }
  /** `map: true` for maps: the nft -f fallback must say `flush map` / `delete map`. */
  | { op: 'deleteSet' | 'flushSet'; set: string; map?: boolean }
  /** timeoutMs/expiresMs on the op apply to every element that does not name its own. */
  | { op: 'addElements' | 'deleteElements'; set: string; keyType: KeyType[]; dataType?: KeyType[]; elements: Element[]; timeoutMs?: number; expiresMs?: number };

export interface RuleState {
  chain: string;
  handle: number;
  exprs: Expr[];
  comment?: string;
}

export interface SetState extends SetSpec {
  elements: Element[];
  /** Listed in columns (`NftDriver.listColumns`): the elements are here, `elements` is empty. */
  columns?: import('./columns.js').ElementColumns;
}

export interface TableState {
  family: Family;
  name: string;
  chains: (ChainSpec & { handle?: number })[];
  rules: RuleState[];
  sets: SetState[];
}

/**
 * A way to apply nftables transactions to capstan's own tables. `apply` is atomic: the
 * whole list lands or nothing does, and a failure names the op (NftError.index).
 * Drivers never flush the ruleset and never touch tables they were not given.
 */
export interface Applied {
  generation: number;
}

export interface NftDriver {
  readonly name: string;
  /** Resolves with the ruleset generation the commit made, where the driver knows it. */
  apply(netns: string | null, table: TableRef, ops: NftOp[]): Promise<Applied | void>;
  /** Rejects with NftError code ENOENT when the table does not exist. */
  list(netns: string | null, table: TableRef): Promise<TableState>;
  /** As list, with each set's elements in columns (SetState.columns), where the driver can:
   *  no object per element, for tables of hundreds of thousands of elements. */
  listColumns?(netns: string | null, table: TableRef): Promise<TableState>;
  /** The ruleset generation (bumped by every committed transaction, whoever sends it), where
   *  the driver can read it cheaply. */
  generation?(netns: string | null): Promise<number>;
  /** Starts collecting nftables' change notifications for one table, where the driver can. */
  monitor?(netns: string | null, table: TableRef): TableMonitor;
}

/** Which committed transactions changed one table since the last drain (nftables' change
 *  notifications, NFNLGRP_NFTABLES). */
export interface TableMonitor {
  /** `lost`: the kernel dropped notifications (its buffer overflowed), so anything may have
   *  changed. `touched`: one entry per transaction that changed the table, by the ruleset
   *  generation its commit made: the sets whose elements changed, and whether anything else
   *  (table, chain, rule, a set itself) did. */
  drain(): Promise<{ lost: boolean; touched: TableTouch[] }>;
  close(): void;
}

export interface TableTouch {
  generation: number;
  sets: string[];
  other: boolean;
}
