// Core resources whose rules are small: ConfigMaps, Secrets, ServiceAccounts, Endpoints.
import { isIP } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { Fields } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, countKeys, identityVersion } from '../common.js';
import { invalidValue, isDNS1123Label, required, validatePort, type FieldError } from '../../../api/validation.js';

const configKey = /^[-._a-zA-Z0-9]+$/;

function validateDataKeys(obj: Fields, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const f of fields) {
    for (const [k, v] of Object.entries((obj[f] ?? {}) as Record<string, unknown>)) {
      if (!configKey.test(k) || k.length > 253) errs.push(invalidValue(`${f}`, k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
      if (seen.has(k)) errs.push(invalidValue(f, k, 'duplicate of key present in another data field'));
      seen.add(k);
      if (typeof v !== 'string') errs.push(invalidValue(`${f}[${k}]`, v, 'must be a string'));
    }
  }
  return errs;
}

/** `immutable: true` freezes the data fields and itself, as ValidateConfigMapUpdate/ValidateSecretUpdate. */
function immutableErrors(o: Fields, old: Fields, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const frozen = (field: string): FieldError => ({ type: 'FieldValueForbidden', field, message: 'field is immutable when `immutable` is set' });
  const errs: FieldError[] = [];
  if (o.immutable !== true) errs.push(frozen('immutable'));
  for (const f of fields) if (!isDeepStrictEqual(o[f] ?? {}, old[f] ?? {})) errs.push(frozen(f));
  return errs;
}

export const configmaps: ResourceDef = {
  group: '', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true,
  shortNames: ['cm'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.ConfigMap')],
  storageVersion: 'v1',
  strategy: {
    validate: (o) => validateDataKeys(o, ['data', 'binaryData']),
    validateUpdate: (o, old) => immutableErrors(o, old, ['data', 'binaryData']),
  },
  columns: [col('Data', 'Number of keys.', (o) => countKeys(o.data) + countKeys(o.binaryData), 0, 'integer'), ageColumn],
};

export const secrets: ResourceDef = {
  group: '', resource: 'secrets', singular: 'secret', kind: 'Secret', listKind: 'SecretList', namespaced: true,
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.Secret')],
  storageVersion: 'v1',
  strategy: {
    defaults(o) {
      o.type ??= 'Opaque';
      // stringData is write-only: merged into data as base64.
      if (o.stringData) {
        o.data = { ...o.data };
        for (const [k, v] of Object.entries(o.stringData as Record<string, string>)) o.data[k] = Buffer.from(String(v)).toString('base64');
        delete o.stringData;
      }
    },
    validate(o) {
      const errs = validateDataKeys(o, ['data']);
      for (const [k, v] of Object.entries((o.data ?? {}) as Record<string, unknown>)) {
        if (typeof v === 'string' && !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) errs.push(invalidValue(`data[${k}]`, '<value>', 'must be base64 encoded'));
      }
      if (o.type === 'kubernetes.io/tls') {
        for (const k of ['tls.crt', 'tls.key']) if (!o.data?.[k]) errs.push(required(`data[${k}]`));
      }
      return errs;
    },
    validateUpdate: (o, old) => [
      ...(o.type !== old.type ? [{ type: 'FieldValueInvalid' as const, field: 'type', message: `${JSON.stringify(o.type)}: field is immutable` }] : []),
      ...immutableErrors(o, old, ['data']),
    ],
  },
  fieldLabels: (o) => ({ type: o.type ?? '' }),
  columns: [col('Type', 'The type of the secret.', (o) => o.type ?? ''), col('Data', 'Number of keys.', (o) => countKeys(o.data), 0, 'integer'), ageColumn],
};

export const serviceaccounts: ResourceDef = {
  group: '', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', listKind: 'ServiceAccountList', namespaced: true,
  shortNames: ['sa'], returnDeletedObject: true, extraSubresources: ['token'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.ServiceAccount')],
  storageVersion: 'v1',
  strategy: { validate: () => [] },
  columns: [col('Secrets', 'Number of secrets.', (o) => (o.secrets ?? []).length, 0, 'integer'), ageColumn],
};

function endpointsText(o: Fields): string {
  const out: string[] = [];
  for (const s of (o.subsets ?? []) as Fields[]) {
    for (const a of (s.addresses ?? []) as Fields[]) {
      const ports = (s.ports ?? []) as Fields[];
      if (!ports.length) out.push(a.ip);
      for (const p of ports) out.push(`${a.ip}:${p.port}`);
    }
  }
  if (!out.length) return '<none>';
  return out.length > 3 ? `${out.slice(0, 3).join(',')} + ${out.length - 3} more...` : out.join(',');
}

export const endpoints: ResourceDef = {
  group: '', resource: 'endpoints', singular: 'endpoints', kind: 'Endpoints', listKind: 'EndpointsList', namespaced: true,
  shortNames: ['ep'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.Endpoints')],
  storageVersion: 'v1',
  strategy: {
    defaults(o) {
      for (const s of (o.subsets ?? []) as Fields[]) for (const p of (s.ports ?? []) as Fields[]) p.protocol ??= 'TCP';
    },
    validate(o) {
      const errs: FieldError[] = [];
      ((o.subsets ?? []) as Fields[]).forEach((s, i) => {
        [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])].forEach((a: Fields, j: number) => {
          if (!a.ip) errs.push(required(`subsets[${i}].addresses[${j}].ip`));
          else if (!isIP(a.ip)) errs.push(invalidValue(`subsets[${i}].addresses[${j}].ip`, a.ip, 'must be a valid IP address'));
        });
        ((s.ports ?? []) as Fields[]).forEach((p, j) => {
          errs.push(...validatePort(p.port, `subsets[${i}].ports[${j}].port`));
          if (p.name) { const e = isDNS1123Label(p.name); if (e) errs.push(invalidValue(`subsets[${i}].ports[${j}].name`, p.name, e)); }
        });
      });
      return errs;
    },
  },
  columns: [col('Endpoints', 'Endpoint addresses and ports.', endpointsText), ageColumn],
};
