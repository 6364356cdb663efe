// metadata.managedFields entries <-> field sets per manager. A manager is identified as
// Kubernetes does (BuildManagerIdentifier): by name, operation and subresource, plus the
// apiVersion for Update entries, so an applier keeps one entry across versions.
import { FieldSet } from './field-set.js';
import { isObject, type JsonObject } from '../../api/json.js';
import { fallbacks } from '../../log/fallback.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

export type Managers = Map<string, ManagerEntry>;

export function managerId(e: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([e.manager, e.operation, e.operation === 'Apply' ? '' : e.apiVersion, e.subresource ?? '']);
}

export function managedFieldsOf(obj: unknown): unknown {
  return isObject(obj) && isObject(obj.metadata) ? obj.metadata.managedFields : undefined;
}

/**
 * Reads metadata.managedFields. Entries that are not well-formed FieldsV1 entries are
 * skipped (validation rejects them on writes; here they must not break the write path).
 * Two entries for one manager are united.
 */
export function decodeManagedFields(obj: unknown): Managers {
  const managers: Managers = new Map();
  const entries = managedFieldsOf(obj);
  if (!Array.isArray(entries)) return managers;
  for (const raw of entries) {
    const entry = decodeEntry(raw);
    if (!entry) continue;
    const id = managerId(entry);
    const existing = managers.get(id);
    managers.set(id, existing ? { ...entry, set: existing.set.union(entry.set) } : entry);
  }
  return managers;
}

const fallback = fallbacks('apiserver');

function decodeEntry(raw: unknown): ManagerEntry | undefined {
  if (!isObject(raw) || typeof raw.manager !== 'string') return undefined;
  if (raw.operation !== 'Apply' && raw.operation !== 'Update') return undefined;
  if (raw.fieldsType !== undefined && raw.fieldsType !== 'FieldsV1') return undefined;
  let set: FieldSet;
  try {
    set = raw.fieldsV1 === undefined ? new FieldSet() : FieldSet.fromFieldsV1(raw.fieldsV1);
  } catch (e) {
    fallback('managed-fields-entry-dropped', { error: e, manager: raw.manager });
    return undefined;
  }
  return {
    manager: raw.manager,
    operation: raw.operation,
    apiVersion: typeof raw.apiVersion === 'string' ? raw.apiVersion : '',
    time: typeof raw.time === 'string' ? raw.time : undefined,
    subresource: typeof raw.subresource === 'string' && raw.subresource ? raw.subresource : undefined,
    set,
  };
}

/**
 * Writes entries sorted as Kubernetes does: Apply before Update, then by time, manager,
 * apiVersion and subresource. Entries with empty sets are dropped.
 */
export function encodeManagedFields(managers: Managers): JsonObject[] {
  const entries = sortEntries([...managers.values()].filter((e) => !e.set.isEmpty()));
  return entries.map((e) => {
    const out: JsonObject = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

type EntryOrder = Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'time' | 'subresource'>;

/** Sorts entries (decoded, or encoded ones: the same fields) in Kubernetes' order, in place. */
export function sortEntries<T extends EntryOrder>(entries: T[]): T[] {
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (a, b) =>
      cmp(a.operation, b.operation) ||
      seconds(a.time) - seconds(b.time) ||
      cmp(a.manager, b.manager) ||
      cmp(a.apiVersion, b.apiVersion) ||
      cmp(a.subresource ?? '', b.subresource ?? ''),
  );
}

/** RFC 3339 at whole seconds, as metav1.Time serializes. */
export function formatTime(now: Date): string {
  const iso = now.toISOString();
  // Years past 9999 are written with six digits and a sign; the fraction is always the last 5 characters.
  return `${iso.slice(0, -5)}Z`;
}
