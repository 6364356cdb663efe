// Pieces most resources share: identity conversion for versions whose shape equals the
// internal one, the spec/status strategy split, and printing helpers.
import type { KubeObject } from '../../api/object.js';
import type { RequestContext, Strategy, TableColumn, VersionDef } from './types.js';
import { deepCopy } from '../../util/json.js';

/** A version whose wire shape is the internal shape (most built-in types). */
export function identityVersion(version: string, schemaName: string, defaults?: (o: KubeObject) => void): VersionDef {
  return {
    version,
    schemaName,
    toInternal: (o) => stripTypeMeta(o),
    fromInternal: (o) => stripTypeMeta(o),
    defaults,
  };
}

export function stripTypeMeta(o: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest as KubeObject;
}

/**
 * The main endpoint of a resource with a status subresource: creates start without status
 * (unless `keepStatusOnCreate`), updates cannot change status.
 */
export function specStrategy(s: Strategy & { keepStatusOnCreate?: boolean; initialStatus?: (o: KubeObject) => unknown }): Strategy {
  return {
    ...s,
    prepareForCreate(obj, ctx) {
      if (!s.keepStatusOnCreate) {
        const initial = s.initialStatus?.(obj);
        if (initial === undefined) delete obj.status;
        else obj.status = initial;
      }
      s.prepareForCreate?.(obj, ctx);
    },
    prepareForUpdate(obj, old, ctx) {
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
      s.prepareForUpdate?.(obj, old, ctx);
    },
  };
}

/** The /status endpoint: only status (and the writer's managedFields) change. */
export function statusStrategy(validate: (obj: KubeObject, ctx: RequestContext) => ReturnType<Strategy['validate']> = () => []): Strategy {
  return {
    prepareForUpdate(obj, old) {
      const status = obj.status;
      const managedFields = obj.metadata.managedFields;
      const resourceVersion = obj.metadata.resourceVersion;
      for (const k of Object.keys(obj)) if (k !== 'metadata') delete obj[k];
      Object.assign(obj, deepCopy(old), { status });
      obj.metadata = { ...deepCopy(old.metadata), resourceVersion };
      if (managedFields) obj.metadata.managedFields = managedFields;
      if (status === undefined) delete obj.status;
    },
    validate,
  };
}

/** kubectl's short durations: 45s, 5m30s, 3h, 2d5h, 1y20d. */
export function humanAge(from: string | undefined, now: Date): string {
  if (!from) return '<unknown>';
  const secs = Math.floor((now.getTime() - Date.parse(from)) / 1000);
  if (secs < -1) return '<invalid>';
  if (secs < 0) return '0s';
  if (secs < 120) return `${secs}s`;
  const mins = Math.floor(secs / 60);
  if (mins < 10) return secs % 60 === 0 ? `${mins}m` : `${mins}m${secs % 60}s`;
  if (mins < 180) return `${mins}m`;
  const hours = Math.floor(mins / 60);
  if (hours < 8) return mins % 60 === 0 ? `${hours}h` : `${hours}h${mins % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const years = Math.floor(hours / 24 / 365);
  if (hours < 24 * 365 * 8) return `${years}y${Math.floor(hours / 24) % 365}d`;
  return `${years}y`;
}

export const ageColumn: TableColumn = {
  name: 'Age', type: 'string', description: 'Time since the object was created.', priority: 0,
  cell: (o, now) => humanAge(o.metadata.creationTimestamp, now),
};

export const col = (name: string, description: string, cell: TableColumn['cell'], priority = 0, type: TableColumn['type'] = 'string'): TableColumn =>
  ({ name, type, description, priority, cell });

/** `a,b,c` of a list, `<none>` when empty, as kubectl prints label maps and lists. */
export function joinOrNone(values: string[]): string {
  return values.length ? values.join(',') : '<none>';
}

export function selectorText(sel: Record<string, string> | undefined): string {
  return sel && Object.keys(sel).length ? Object.entries(sel).map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

export function countKeys(o: unknown): number {
  return o && typeof o === 'object' ? Object.keys(o).length : 0;
}
