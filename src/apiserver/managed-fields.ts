// Field ownership on every write. The field manager works on versioned objects (entries
// record the apiVersion the writer used), so this adapter converts the internal object to
// the request's version, lets the manager record the write, and converts back.
import type { KubeObject } from '../api/object.js';
import { apiVersionOf } from '../api/object.js';
import { ref } from '../api/schema.js';
import { ApplyConflictError, FieldManager, FieldManagerError } from './fieldmanager/index.js';
import { badRequest, StatusError } from './errors.js';
import { fieldManagerName, type HandlerContext } from './handlers/context.js';

export interface FieldTracker {
  /** A non-apply write: `next` (internal) about to replace `old` (internal, null on create). */
  update(h: HandlerContext, old: KubeObject | null, next: KubeObject, subresource: string): KubeObject;
  /**
   * Server-side apply of `applied` (versioned, as sent) onto `live` (internal, null to create),
   * recorded in the request's version (through a CRD's conversion webhook if need be), as upstream.
   */
  apply(h: HandlerContext, live: KubeObject | null, applied: KubeObject, force: boolean, subresource: string): Promise<KubeObject>;
}

export function fieldTracker(manager = new FieldManager()): FieldTracker {
  // Other writes in a version a CRD's conversion webhook converts are tracked in the storage
  // version, so a write does not call the webhook twice more.
  const tracked = (h: HandlerContext) => (h.version.prepare ? h.reg.version(h.reg.def.storageVersion) ?? h.version : h.version);
  const opts = (h: HandlerContext, subresource: string) => ({
    manager: fieldManagerName(h),
    apiVersion: apiVersionOf(h.reg.def.group, tracked(h).version),
    schema: ref(tracked(h).schemaName),
    now: h.ctx.now,
    subresource: subresource || undefined,
  });
  const toVersioned = (h: HandlerContext, o: KubeObject) => h.reg.toVersion(o, tracked(h).version);
  const toInternal = (h: HandlerContext, o: KubeObject) => {
    const resourceVersion = o.metadata?.resourceVersion;
    const internal = tracked(h).toInternal(o);
    if (resourceVersion === undefined) delete internal.metadata.resourceVersion;
    return internal;
  };
  return {
    update(h, old, next, subresource) {
      const v = manager.update(old ? toVersioned(h, old) : null, toVersioned(h, next), opts(h, subresource));
      const out = toInternal(h, v as KubeObject);
      if (next.metadata.resourceVersion === undefined) delete out.metadata.resourceVersion;
      return out;
    },
    async apply(h, live, applied, force, subresource) {
      const v = h.version;
      try {
        if (live) await v.prepare?.([live]);
        const base = { ...opts(h, subresource), apiVersion: apiVersionOf(h.reg.def.group, v.version), schema: ref(v.schemaName) };
        const { object } = manager.apply(live ? h.reg.toVersion(live, v.version) : null, applied, { ...base, manager: h.query.get('fieldManager') ?? fieldManagerName(h), force });
        const versionedObj = object as KubeObject;
        v.defaults?.(versionedObj);
        const out = v.toInternalAsync ? await v.toInternalAsync(versionedObj) : v.toInternal(versionedObj);
        // Apply is unconditional unless the configuration names a resourceVersion.
        if (!applied.metadata?.resourceVersion) delete out.metadata.resourceVersion;
        return out;
      } catch (e) {
        if (e instanceof ApplyConflictError) {
          throw new StatusError(409, 'Conflict', e.message, { name: h.info.name, group: h.reg.def.group, kind: h.reg.def.resource, causes: e.causes() });
        }
        if (e instanceof FieldManagerError) throw badRequest(e.message);
        throw e;
      }
    },
  };
}
