// The resource quota controller, after upstream's pkg/controller/resourcequota: keeps every
// ResourceQuota's status — `hard` from the spec, `used` recounted from what the namespace
// holds — whenever the quota or a counted object changes, and every resync period, which
// also returns what a create that admission charged but storage refused had taken.
import { resources, type ResourceType, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import type { KubeObject, ObjectBase } from '../../api/object.js';
import type { ResourceQuota } from '../../api/kinds.js';
import { countName, quotaMatches, usageOf } from '../../api/quota.js';
import { formatMilli, isByteResource } from '../../api/core/pod-resources.js';
import { isDeepStrictEqual } from 'node:util';

/** Upstream's --resource-quota-sync-period default. */
export const QUOTA_RESYNC_MS = 5 * 60_000;

/** Resources counted from informers; any other `count/<resource>` is listed when asked. */
const watched = [resources.pods, resources.services, resources.configmaps, resources.secrets];

export class ResourceQuotaController extends QueueController {
  private quotas: SharedInformer<ResourceQuota>;
  private informers = new Map<string, SharedInformer<ObjectBase>>();

  constructor(ctx: ControllerContext) {
    super('resourcequota', ctx);
    this.quotas = ctx.informers.informerFor(resources.resourcequotas);
    this.quotas.addEventHandler({ onAdd: (q) => this.enqueue(q), onUpdate: (_o, q) => this.enqueue(q) });
    for (const type of watched) {
      const inf = ctx.informers.informerFor(type as ResourceType<ObjectBase>);
      this.informers.set(type.resource, inf);
      const touch = (o: ObjectBase) => { for (const q of this.quotas.lister.list(o.metadata?.namespace)) this.enqueue(q); };
      inf.addEventHandler({ onAdd: touch, onUpdate: (_o, n) => touch(n), onDelete: touch });
    }
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (!this.quotas.hasSynced() || [...this.informers.values()].some((i) => !i.hasSynced())) return { requeueAfterMs: 100 };
    const quota = this.quotas.lister.byKey(key);
    if (!quota) return;
    const ns = quota.metadata.namespace!;
    const hard = { ...(quota.spec?.hard ?? {}) } as Record<string, string>;
    const totals = new Map<string, number>(Object.keys(hard).map((k) => [k, 0]));
    const now = new Date(this.ctx.clock.now());
    for (const [group, resource, objects] of await this.objectsFor(ns, Object.keys(hard))) {
      for (const obj of objects) {
        if (!quotaMatches(quota as KubeObject, resource, obj)) continue;
        for (const [k, v] of usageOf(group, resource, obj, now)) if (totals.has(k)) totals.set(k, totals.get(k)! + v);
      }
    }
    const used = Object.fromEntries([...totals].map(([k, v]) => [k, formatMilli(v, isByteResource(k))]));
    if (!isDeepStrictEqual(quota.status?.hard ?? {}, hard) || !isDeepStrictEqual(quota.status?.used ?? {}, used)) {
      await this.ctx.clients.resource(resources.resourcequotas).updateStatus({ ...quota, status: { hard, used } });
    }
    return { requeueAfterMs: QUOTA_RESYNC_MS };
  }

  /** The namespace's objects of every resource the quota's names count. */
  private async objectsFor(ns: string, names: string[]): Promise<[string, string, KubeObject[]][]> {
    const out: [string, string, KubeObject[]][] = [];
    const all = Object.values(resources).filter((t) => t.namespaced) as ResourceType<ObjectBase>[];
    for (const type of all) {
      const counted = names.some((n) => n === countName(type.group, type.resource)) || (type.group === '' && watched.some((w) => w.resource === type.resource));
      if (!counted) continue;
      const inf = this.informers.get(type.group === '' ? type.resource : '');
      const objects = inf ? inf.lister.list(ns) : (await this.ctx.clients.resource(type).listAll(ns)).items;
      out.push([type.group, type.resource, objects as KubeObject[]]);
    }
    return out;
  }
}
