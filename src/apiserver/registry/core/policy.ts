// LimitRanges and ResourceQuotas (core/v1), validated as upstream's ValidateLimitRange and
// ValidateResourceQuota; a quota's status is written by the quota controller and by
// ResourceQuota admission through /status.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { duplicate, forbiddenField, invalidValue, notSupported, type FieldError } from '../../../api/validation.js';
import { quantityFormatMessage, quantityValue } from '../../../util/quantity.js';
import { rfc3339 } from '../../../api/time.js';

const limitTypes = ['Container', 'Pod', 'PersistentVolumeClaim'];
const scopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];

function quantities(map: unknown, field: string, errs: FieldError[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries((map ?? {}) as Record<string, unknown>)) {
    const q = quantityValue(v);
    if (q === null) errs.push(invalidValue(`${field}[${k}]`, v, quantityFormatMessage));
    else if (q < 0) errs.push(invalidValue(`${field}[${k}]`, v, 'must be greater than or equal to 0'));
    else out.set(k, q);
  }
  return out;
}

const text = (map: unknown, k: string): string => String((map as Record<string, unknown>)[k]);

function validateLimitRange(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  ((o.spec?.limits ?? []) as Fields[]).forEach((item, i) => {
    const p = `spec.limits[${i}]`;
    if (!limitTypes.includes(item.type)) errs.push(notSupported(`${p}.type`, item.type, limitTypes));
    if (seen.has(item.type)) errs.push(duplicate(`${p}.type`, item.type));
    seen.add(item.type);
    const max = quantities(item.max, `${p}.max`, errs);
    const min = quantities(item.min, `${p}.min`, errs);
    const def = quantities(item.default, `${p}.default`, errs);
    const defReq = quantities(item.defaultRequest, `${p}.defaultRequest`, errs);
    const ratio = quantities(item.maxLimitRequestRatio, `${p}.maxLimitRequestRatio`, errs);
    if (item.type === 'Pod') {
      if (def.size) errs.push(forbiddenField(`${p}.default`, "may not be specified when `type` is 'Pod'"));
      if (defReq.size) errs.push(forbiddenField(`${p}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    }
    for (const [k, lo] of min) {
      const hi = max.get(k);
      if (hi !== undefined && lo > hi) errs.push(invalidValue(`${p}.min[${k}]`, text(item.min, k), `min value ${text(item.min, k)} is greater than max value ${text(item.max, k)}`));
    }
    for (const [k, v] of defReq) {
      const hi = max.get(k), lo = min.get(k), d = def.get(k);
      if (hi !== undefined && v > hi) errs.push(invalidValue(`${p}.defaultRequest[${k}]`, text(item.defaultRequest, k), `default request value ${text(item.defaultRequest, k)} is greater than max value ${text(item.max, k)}`));
      if (lo !== undefined && v < lo) errs.push(invalidValue(`${p}.defaultRequest[${k}]`, text(item.defaultRequest, k), `min value ${text(item.min, k)} is greater than default request value ${text(item.defaultRequest, k)}`));
      if (d !== undefined && v > d) errs.push(invalidValue(`${p}.defaultRequest[${k}]`, text(item.defaultRequest, k), `default request value ${text(item.defaultRequest, k)} is greater than default limit value ${text(item.default, k)}`));
    }
    for (const [k, v] of def) {
      const hi = max.get(k), lo = min.get(k);
      if (hi !== undefined && v > hi) errs.push(invalidValue(`${p}.default[${k}]`, text(item.default, k), `default value ${text(item.default, k)} is greater than max value ${text(item.max, k)}`));
      if (lo !== undefined && v < lo) errs.push(invalidValue(`${p}.default[${k}]`, text(item.default, k), `min value ${text(item.min, k)} is greater than default value ${text(item.default, k)}`));
    }
    for (const [k, v] of ratio) {
      if (v < 1) errs.push(invalidValue(`${p}.maxLimitRequestRatio[${k}]`, text(item.maxLimitRequestRatio, k), `ratio ${text(item.maxLimitRequestRatio, k)} is less than 1`));
      const hi = max.get(k), lo = min.get(k);
      if (hi !== undefined && lo !== undefined && lo > 0 && v > hi / lo) {
        errs.push(invalidValue(`${p}.maxLimitRequestRatio[${k}]`, text(item.maxLimitRequestRatio, k), `ratio ${text(item.maxLimitRequestRatio, k)} is greater than max/min = ${(hi / lo).toFixed(6)}`));
      }
    }
  });
  return errs;
}

/** Upstream's SetDefaults_LimitRangeItem: a Container item's default limit from max, its default request from the default limit, else from min. */
function defaultLimitRange(o: KubeObject): void {
  for (const item of (o.spec?.limits ?? []) as Fields[]) {
    if (item.type !== 'Container') continue;
    const def = item.default ??= {};
    const req = item.defaultRequest ??= {};
    for (const [k, v] of Object.entries((item.max ?? {}) as Record<string, unknown>)) def[k] ??= v;
    for (const [k, v] of Object.entries(def)) req[k] ??= v;
    for (const [k, v] of Object.entries((item.min ?? {}) as Record<string, unknown>)) req[k] ??= v;
  }
}

export const limitranges: ResourceDef = {
  group: '', resource: 'limitranges', singular: 'limitrange', kind: 'LimitRange', listKind: 'LimitRangeList', namespaced: true,
  shortNames: ['limits'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.LimitRange', defaultLimitRange)],
  storageVersion: 'v1',
  strategy: { validate: validateLimitRange },
  columns: [{ name: 'Created At', type: 'date', description: 'When the object was created.', priority: 0, cell: (o) => o.metadata.creationTimestamp ?? rfc3339(new Date(0)) }],
};

function validateQuotaResources(map: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  quantities(map, field, errs);
  return errs;
}

function validateResourceQuota(o: KubeObject): FieldError[] {
  const errs = validateQuotaResources(o.spec?.hard, 'spec.hard');
  ((o.spec?.scopes ?? []) as string[]).forEach((s, i) => {
    if (!scopes.includes(s)) errs.push(notSupported(`spec.scopes[${i}]`, s, scopes));
  });
  return errs;
}

/** `requests.cpu: 100m/1, pods: 1/10`: used/hard per resource, as kubectl prints a quota. */
function usage(o: KubeObject, limits: boolean): string {
  const hard = (o.status?.hard ?? {}) as Record<string, string>;
  const used = (o.status?.used ?? {}) as Record<string, string>;
  return Object.keys(hard).sort()
    .filter((k) => k.startsWith('limits.') === limits)
    .map((k) => `${k}: ${used[k] ?? '0'}/${hard[k]}`).join(', ');
}

export const resourcequotas: ResourceDef = {
  group: '', resource: 'resourcequotas', singular: 'resourcequota', kind: 'ResourceQuota', listKind: 'ResourceQuotaList', namespaced: true,
  shortNames: ['quota'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.ResourceQuota')],
  storageVersion: 'v1',
  strategy: specStrategy({ validate: validateResourceQuota }),
  statusStrategy: statusStrategy((o) => [...validateQuotaResources(o.status?.hard, 'status.hard'), ...validateQuotaResources(o.status?.used, 'status.used')]),
  columns: [ageColumn, col('Request', 'Requested resources and their use.', (o) => usage(o, false)), col('Limit', 'Limits on resources and their use.', (o) => usage(o, true))],
};
