// The ResourceQuota admission plugin (upstream plugin/pkg/admission/resourcequota): a create
// that would take a namespace over any of its quotas' hard limits is refused in upstream's
// words; one that fits is charged to each quota's status.used at once (not for dry runs),
// so the next request sees it before the quota controller recounts.
import type { KubeObject } from '../../api/object.js';
import { formatMilli, isByteResource, type ResourceAmounts } from '../../api/core/pod-resources.js';
import { quotaMatches, usageOf } from '../../api/quota.js';
import { milliValue } from '../../util/quantity.js';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from '../admission.js';
import { StatusError } from '../errors.js';
import type { GenericRegistry, ListSource, RequestContext } from '../registry/index.js';

/** Compute resources a pod must declare once a quota limits them (upstream's requiredResources). */
const mustSpecify = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

const pretty = (m: Map<string, string>): string => [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(',');

function missingDeclarations(quota: KubeObject, pod: KubeObject): string | null {
  const hard = (quota.status?.hard ?? quota.spec?.hard ?? {}) as Record<string, string>;
  const containers = (pod.spec?.containers ?? []) as KubeObject[];
  const parts: string[] = [];
  for (const res of mustSpecify.filter((r) => r in hard || (r.startsWith('requests.') && r.slice(9) in hard))) {
    const [field, name] = res.split('.');
    const missing = containers.filter((c) => c.resources?.[field]?.[name] === undefined).map((c) => c.name);
    if (missing.length) parts.push(`${res} for: ${missing.join(',')}`);
  }
  return parts.length ? `failed quota: ${quota.metadata.name}: must specify ${parts.join('; ')}` : null;
}

/** `source`: where the quotas are listed from (the watch cache once it has caught up with storage). */
export function resourceQuota(quotas: GenericRegistry, source?: ListSource): AdmissionPlugin {
  const system: RequestContext = { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, now: new Date() };

  async function admit(a: AdmissionAttributes): Promise<void> {
    const { items } = await quotas.list({ namespace: a.info.namespace, source });
    const obj = a.object!;
    const matching = items.filter((q) => Object.keys(q.spec?.hard ?? {}).length && quotaMatches(q, a.info.resource, obj));
    if (!matching.length) return;
    const delta = usageOf(a.info.group, a.info.resource, obj);
    const charged: { quota: KubeObject; delta: ResourceAmounts }[] = [];
    for (const quota of matching) {
      const hard = (quota.spec?.hard ?? {}) as Record<string, string>;
      const used = (quota.status?.used ?? {}) as Record<string, string>;
      if (a.info.resource === 'pods' && !a.info.group) {
        const missing = missingDeclarations(quota, obj);
        if (missing) throw admissionForbidden(a, missing);
      }
      const relevant = [...delta.keys()].filter((k) => k in hard).sort();
      if (!relevant.length) continue;
      const unknown = relevant.find((k) => !(k in used));
      if (unknown) throw admissionForbidden(a, `status unknown for quota: ${quota.metadata.name}, resource: ${unknown}`);
      const exceeded = relevant.filter((k) => milliValue(used[k], 0) + delta.get(k)! > milliValue(hard[k], 0));
      if (exceeded.length) {
        const requested = new Map(exceeded.map((k) => [k, formatMilli(delta.get(k)!, isByteResource(k))]));
        throw admissionForbidden(a, `exceeded quota: ${quota.metadata.name}, requested: ${pretty(requested)}, used: ${pretty(new Map(exceeded.map((k) => [k, used[k]])))}, limited: ${pretty(new Map(exceeded.map((k) => [k, hard[k]])))}`);
      }
      charged.push({ quota, delta: new Map(relevant.map((k) => [k, delta.get(k)!])) });
    }
    if (a.dryRun) return;
    for (const { quota, delta: d } of charged) await charge(quota, d);
  }

  /** Adds to status.used; a quota changed meanwhile is re-read and checked again by the update. */
  async function charge(quota: KubeObject, delta: ResourceAmounts): Promise<void> {
    await quotas.update(quota.metadata.namespace, quota.metadata.name!, (current) => {
      const hard = (current.spec?.hard ?? {}) as Record<string, string>;
      const used = { ...(current.status?.used ?? {}) } as Record<string, string>;
      for (const [k, v] of delta) {
        const next = milliValue(used[k] ?? '0', 0) + v;
        if (next > milliValue(hard[k] ?? '0', 0) && k in hard) {
          throw new StatusError(409, 'Conflict', `Operation cannot be fulfilled on resourcequotas "${current.metadata.name}": the quota was used up while this request was admitted`);
        }
        used[k] = formatMilli(next, isByteResource(k));
      }
      current.status = { ...current.status, used };
      return current;
    }, { ...system, now: new Date() }, 'status');
  }

  return {
    name: 'ResourceQuota',
    async validate(a) {
      if (a.operation !== 'CREATE' || a.info.subresource || !a.registry.def.namespaced || !a.object) return;
      await admit(a);
    },
  };
}
