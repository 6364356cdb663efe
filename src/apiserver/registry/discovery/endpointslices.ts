import { isIP } from 'node:net';
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { invalidValue, notSupported, required, type FieldError } from '../../../api/validation.js';

const addressTypes = ['IPv4', 'IPv6', 'FQDN'];

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!addressTypes.includes(o.addressType)) errs.push(notSupported('addressType', o.addressType, addressTypes));
  ((o.endpoints ?? []) as Fields[]).forEach((e, i) => {
    if (!Array.isArray(e.addresses) || e.addresses.length === 0) errs.push(required(`endpoints[${i}].addresses`));
    else if (e.addresses.length > 100) errs.push(invalidValue(`endpoints[${i}].addresses`, e.addresses.length, 'must have at most 100 items'));
    else if (o.addressType === 'IPv4' || o.addressType === 'IPv6') {
      const family = o.addressType === 'IPv4' ? 4 : 6;
      (e.addresses as unknown[]).forEach((a, j) => {
        if (typeof a !== 'string' || isIP(a) !== family) errs.push(invalidValue(`endpoints[${i}].addresses[${j}]`, a, `must be a valid ${o.addressType} address`));
      });
    }
  });
  if ((o.endpoints ?? []).length > 1000) errs.push(invalidValue('endpoints', (o.endpoints ?? []).length, 'must have at most 1000 items'));
  return errs;
}

function endpointsText(o: KubeObject): string {
  const addrs = ((o.endpoints ?? []) as Fields[]).flatMap((e) => e.addresses ?? []);
  if (!addrs.length) return '<unset>';
  return addrs.length > 3 ? `${addrs.slice(0, 3).join(',')} + ${addrs.length - 3} more...` : addrs.join(',');
}

export const endpointslices: ResourceDef = {
  group: 'discovery.k8s.io', resource: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice', listKind: 'EndpointSliceList',
  namespaced: true,
  versions: [identityVersion('v1', 'io.k8s.api.discovery.v1.EndpointSlice')],
  storageVersion: 'v1',
  strategy: {
    defaults(o) {
      for (const p of (o.ports ?? []) as Fields[]) p.protocol ??= 'TCP';
    },
    validate,
    validateUpdate: (o, old) => o.addressType !== old.addressType ? [invalidValue('addressType', o.addressType, 'field is immutable')] : [],
  },
  fieldLabels: (o) => ({ addressType: o.addressType ?? '' }),
  columns: [
    col('AddressType', 'The IP family of the endpoints.', (o) => o.addressType ?? ''),
    col('Ports', 'The ports of the endpoints.', (o) => ((o.ports ?? []) as Fields[]).map((p) => p.port ?? '').join(',') || '<unset>'),
    col('Endpoints', 'The addresses of the endpoints.', endpointsText),
    ageColumn,
  ],
};
