// The records the server answers from: a map from owner name to the records each source
// (one Service, one Pod) contributes there. A source's records are replaced as a whole, so
// an update costs what that source owns, and a query is one map lookup, never a scan.
//
// Contract: only the record builder (sources.ts) calls `set`; readers treat returned
// records as read-only. `generation` grows with every change that alters an answer, and
// listeners run synchronously after it.
import type { Answer, OptAnswer } from 'dns-packet';
import { inZone } from './names.js';

export type RR = Exclude<Answer, OptAnswer> & { ttl: number };

export interface OwnedRecords {
  /** Records that give way at a name where a strong source also has records (pod PTRs under endpoint PTRs). */
  weak?: boolean;
  records: RR[];
}

export class Zone {
  private byName = new Map<string, Map<string, OwnedRecords>>();
  private bySource = new Map<string, OwnedRecords>();
  /** How many names sit below each name in the cluster domain: names with a count exist (empty non-terminals). */
  private below = new Map<string, number>();
  private listeners: (() => void)[] = [];
  generation = 0;
  lastChange = Date.now();

  constructor(readonly domain: string) {}

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** Replaces everything `source` contributes; an empty list removes it. */
  set(source: string, records: RR[], weak = false): void {
    const old = this.bySource.get(source);
    if (!old && records.length === 0) return;
    if (old && sameRecords(old.records, records) && !!old.weak === weak) return;
    if (old) for (const name of new Set(old.records.map((r) => r.name))) this.unlink(name, source);
    if (records.length === 0) this.bySource.delete(source);
    else {
      const owned: OwnedRecords = { weak, records };
      this.bySource.set(source, owned);
      const names = new Map<string, RR[]>();
      for (const r of records) {
        let l = names.get(r.name);
        if (!l) names.set(r.name, (l = []));
        l.push(r);
      }
      for (const [name, rrs] of names) this.link(name, source, { weak, records: rrs });
    }
    this.generation++;
    this.lastChange = Date.now();
    for (const fn of this.listeners) fn();
  }

  /** Every record at `name` (already normalized), strong sources hiding weak ones, duplicates folded. */
  lookup(name: string): RR[] {
    const owners = this.byName.get(name);
    if (!owners) return [];
    if (owners.size === 1) for (const o of owners.values()) return o.records;
    let strong = false;
    for (const o of owners.values()) if (!o.weak) { strong = true; break; }
    const out: RR[] = [];
    const seen = new Set<string>();
    for (const o of owners.values()) {
      if (strong && o.weak) continue;
      for (const r of o.records) {
        const k = `${r.type}|${JSON.stringify(r.data)}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(r);
      }
    }
    return out;
  }

  /** A name exists when it has records or names below it (RFC 8020: NXDOMAIN means nothing below either). */
  exists(name: string): boolean {
    return this.byName.has(name) || (this.below.get(name) ?? 0) > 0;
  }

  get size(): number {
    let n = 0;
    for (const o of this.bySource.values()) n += o.records.length;
    return n;
  }

  private link(name: string, source: string, owned: OwnedRecords): void {
    let owners = this.byName.get(name);
    if (!owners) {
      this.byName.set(name, (owners = new Map()));
      this.countAncestors(name, 1);
    }
    owners.set(source, owned);
  }

  private unlink(name: string, source: string): void {
    const owners = this.byName.get(name);
    if (!owners) return;
    owners.delete(source);
    if (owners.size === 0) {
      this.byName.delete(name);
      this.countAncestors(name, -1);
    }
  }

  private countAncestors(name: string, delta: number): void {
    if (!inZone(name, this.domain)) return;
    let n = name;
    while (n !== this.domain) {
      const i = n.indexOf('.');
      if (i < 0) return;
      n = n.slice(i + 1);
      const c = (this.below.get(n) ?? 0) + delta;
      if (c <= 0) this.below.delete(n);
      else this.below.set(n, c);
    }
  }
}

function sameRecords(a: RR[], b: RR[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i], y = b[i];
    if (x.name !== y.name || x.type !== y.type || x.ttl !== y.ttl || JSON.stringify(x.data) !== JSON.stringify(y.data)) return false;
  }
  return true;
}
