import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { invalidValue, type FieldError } from '../../../api/validation.js';

export const leases: ResourceDef = {
  group: 'coordination.k8s.io', resource: 'leases', singular: 'lease', kind: 'Lease', listKind: 'LeaseList', namespaced: true,
  versions: [identityVersion('v1', 'io.k8s.api.coordination.v1.Lease')],
  storageVersion: 'v1',
  strategy: {
    validate(o) {
      const errs: FieldError[] = [];
      const d = o.spec?.leaseDurationSeconds;
      if (d !== undefined && (typeof d !== 'number' || d <= 0)) errs.push(invalidValue('spec.leaseDurationSeconds', d, 'must be greater than 0'));
      const t = o.spec?.leaseTransitions;
      if (t !== undefined && (typeof t !== 'number' || t < 0)) errs.push(invalidValue('spec.leaseTransitions', t, 'must be greater than or equal to 0'));
      return errs;
    },
  },
  columns: [col('Holder', 'The holder of the lease.', (o) => o.spec?.holderIdentity ?? ''), ageColumn],
};
