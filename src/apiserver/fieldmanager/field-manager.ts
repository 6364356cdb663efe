// Server-side apply and field ownership tracking (metadata.managedFields), after
// k8s.io/apimachinery/pkg/util/managedfields and sigs.k8s.io/structured-merge-diff.
import type { Schema } from '../../api/schema.js';
import { compare } from './compare.js';
import { ApplyConflictError, conflictFor, FieldManagerError, type ApplyConflict } from './errors.js';
import { FieldSet } from './field-set.js';
import { withoutIgnoredFields } from './ignored.js';
import { deepEqual, isObject, type JsonObject } from '../../api/json.js';
import { deepCopy } from '../../util/json.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  managedFieldsOf,
  managerId,
  sortEntries,
  type ManagerEntry,
  type Managers,
  type Operation,
} from './managed-fields.js';
import { merge } from './merge.js';
import { prune } from './prune.js';
import { toFieldSet } from './to-field-set.js';

export interface WriteOptions {
  /** Field manager name: `?fieldManager=`, or what the server derives from the User-Agent. */
  manager: string;
  /** apiVersion of the request (`apps/v1`), recorded in the entry. */
  apiVersion: string;
  /** Schema of the whole object's kind. */
  schema: Schema;
  /** The clock, injected. Entry times are written at whole seconds. */
  now: Date;
  /** 'status', 'scale', ...; undefined for the main resource. */
  subresource?: string;
}

export interface ApplyOptions extends WriteOptions {
  /** `?force=true`: take ownership of conflicting fields instead of failing. */
  force: boolean;
}

export interface ApplyResult {
  /** The object to persist, with metadata.managedFields. */
  object: JsonObject;
  /** False when the apply changed nothing but (possibly) managedFields. */
  changed: boolean;
}

/** Kubernetes gives fields of objects that predate managedFields to this Update manager. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';

/**
 * Field ownership for every write. Pure: no I/O, inputs never mutated, results share no
 * structure with inputs. The server calls `apply` for `application/apply-patch+yaml` PATCHes
 * and `update` after every other write (create, update, patch, status, scale) with the
 * object it is about to persist.
 */
export class FieldManager {
  /**
   * Server-side apply of `applied` (the parsed body) onto `live` (null: the object does not
   * exist and apply creates it). The result is live merged with applied; fields this
   * manager applied before but no longer does are removed unless another manager owns them;
   * the manager's Apply entry becomes exactly the applied field set.
   *
   * Throws ApplyConflictError (409) when, without `force`, the apply changes a field another
   * manager owns; FieldManagerError (400) when `applied` cannot be read against the schema.
   * The server still validates the result, and resets status (or spec) per subresource.
   */
  apply(live: JsonObject | null, applied: unknown, opts: ApplyOptions): ApplyResult {
    if (!isObject(applied)) throw new FieldManagerError('the applied configuration must be an object');
    if (isObject(applied.metadata) && applied.metadata.managedFields != null) throw new FieldManagerError('metadata.managedFields must be nil');
    const { schema, subresource } = opts;
    const before = live ? withoutManagedFields(live) : {};
    const config = withoutManagedFields(applied);
    const managers = live ? managersOfLive(live, before, opts) : new Map<string, ManagerEntry>();

    const id = managerId({ manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, subresource });
    const previous = managers.get(id);
    const appliedSet = withoutIgnoredFields(toFieldSet(config, schema, true), subresource);
    managers.set(id, { manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, subresource, time: previous?.time, set: appliedSet });

    let after = merge(before, config, schema) as JsonObject;
    if (previous) {
      const owned = [...managers.values()].reduce((acc, m) => acc.union(m.set), new FieldSet());
      after = prune(after, schema, previous.set, owned) as JsonObject;
    }

    const diff = compareIgnoring(before, after, schema, subresource);
    const changed = diff.modified.union(diff.added);
    const conflicts: ApplyConflict[] = [];
    for (const [otherId, other] of managers) {
      if (otherId === id) continue;
      const taken = other.set.intersection(changed);
      for (const path of taken.paths()) conflicts.push(conflictFor(other, path));
      other.set = other.set.difference(taken).difference(diff.removed);
    }
    if (conflicts.length > 0 && !opts.force) throw new ApplyConflictError(conflicts);

    const isChange = !deepEqual(before, after);
    const entry = managers.get(id)!;
    if (isChange || !entry.time) entry.time = formatTime(opts.now);
    return { object: withManagedFields(after, managers), changed: isChange };
  }

  /**
   * Records a non-apply write. `oldObj` is the stored object (null on create), `newObj` the
   * object about to be persisted. Fields that changed move to `opts.manager` (operation
   * Update); other managers lose them, and everyone loses removed fields; empty entries go.
   * The entry's time moves only when the write changed fields.
   *
   * managedFields sent by the client on the main resource replace the stored ones (clients
   * may edit them); an absent or empty list keeps the stored ones. Never throws: an object
   * the schema cannot describe loses its managedFields, as Kubernetes does.
   */
  update(oldObj: JsonObject | null, newObj: JsonObject, opts: WriteOptions): JsonObject {
    const { schema, subresource } = opts;
    const after = withoutManagedFields(newObj);
    try {
      const before = oldObj ? withoutManagedFields(oldObj) : {};
      const sent = managedFieldsOf(newObj);
      const useSent = !subresource && Array.isArray(sent) && sent.length > 0;
      const managers = decodeManagedFields(useSent ? newObj : oldObj);

      const diff = compareIgnoring(before, after, schema, subresource);
      const taken = diff.modified.union(diff.added);
      const id = managerId({ manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, subresource });
      const kept = oldObj && sameOwners(oldObj, useSent ? sent : undefined, managers, id, taken, diff.removed);
      if (kept) return withEntries(after, kept, id, taken.isEmpty() ? undefined : formatTime(opts.now));
      for (const m of managers.values()) m.set = m.set.difference(taken).difference(diff.removed);

      if (!taken.isEmpty()) {
        const mine = managers.get(id);
        managers.set(id, {
          manager: opts.manager,
          operation: 'Update',
          apiVersion: opts.apiVersion,
          subresource,
          time: formatTime(opts.now),
          set: mine ? mine.set.union(taken) : taken,
        });
      }
      return withManagedFields(after, managers);
    } catch (err) {
      if (err instanceof FieldManagerError) return deepCopy(after);
      throw err;
    }
  }
}

function managersOfLive(live: JsonObject, before: JsonObject, opts: WriteOptions): Managers {
  const recorded = managedFieldsOf(live);
  if (Array.isArray(recorded) && recorded.length > 0) return decodeManagedFields(live);
  // An object written before field management: its fields belong to a placeholder Update
  // manager, so that a first apply conflicts instead of silently taking them.
  const set = withoutIgnoredFields(toFieldSet(before, opts.schema), opts.subresource);
  const entry: ManagerEntry = { manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion: opts.apiVersion, set };
  return new Map(set.isEmpty() ? [] : [[managerId(entry), entry]]);
}

function compareIgnoring(before: unknown, after: unknown, schema: Schema, subresource: string | undefined) {
  const c = compare(before, after, schema);
  return {
    added: withoutIgnoredFields(c.added, subresource),
    modified: withoutIgnoredFields(c.modified, subresource),
    removed: withoutIgnoredFields(c.removed, subresource),
  };
}

function withoutManagedFields(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata) || !Object.hasOwn(obj.metadata, 'managedFields')) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * The stored entries, when the write moves no field between managers: nothing was removed,
 * the writer's own Update entry already holds every changed field and no other entry holds
 * any (a heartbeat renewing its Lease, a controller rewriting its status). The result is what
 * decoding, moving and encoding them again would give, without the encoding. Undefined when
 * the full path must run, also for entries the server did not write itself (sent by the
 * client, malformed or duplicated), which it re-encodes.
 */
function sameOwners(oldObj: JsonObject, sent: unknown, managers: Managers, id: string, taken: FieldSet, removed: FieldSet): JsonObject[] | undefined {
  const stored = managedFieldsOf(oldObj);
  if (!Array.isArray(stored) || stored.length !== managers.size || !removed.isEmpty()) return undefined;
  if (sent !== undefined && !deepEqual(sent, stored)) return undefined;
  for (const [mid, m] of managers) {
    if (m.set.isEmpty()) return undefined;
    if (mid === id ? !taken.difference(m.set).isEmpty() : !m.set.intersection(taken).isEmpty()) return undefined;
  }
  if (!taken.isEmpty() && !managers.has(id)) return undefined;
  return stored as JsonObject[];
}

/** `obj` with a copy of `entries`, the entry `id` stamped `time` (when given) and all in Kubernetes' order. */
function withEntries(obj: JsonObject, entries: JsonObject[], id: string, time: string | undefined): JsonObject {
  const out = deepCopy(obj);
  const copies = deepCopy(entries) as unknown as (JsonObject & EntryFields)[];
  if (time) {
    for (const e of copies) if (managerId(e) === id) e.time = time;
    sortEntries(copies);
  }
  const metadata = isObject(out.metadata) ? out.metadata : {};
  metadata.managedFields = copies;
  out.metadata = metadata;
  return out;
}

type EntryFields = { manager: string; operation: Operation; apiVersion: string; time?: string; subresource?: string };

function withManagedFields(obj: JsonObject, managers: Managers): JsonObject {
  const out = deepCopy(obj);
  const managedFields = encodeManagedFields(managers);
  const metadata = isObject(out.metadata) ? out.metadata : {};
  if (managedFields.length > 0) metadata.managedFields = managedFields;
  else delete metadata.managedFields;
  out.metadata = metadata;
  return out;
}
