import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { isDNS1123Label } from '../../../api/validation.js';
import { conflict } from '../../errors.js';

/** Namespaces: deletion goes through the `kubernetes` finalizer the namespace controller clears. */
export const namespaces: ResourceDef = {
  group: '', resource: 'namespaces', singular: 'namespace', kind: 'Namespace', listKind: 'NamespaceList',
  namespaced: false, shortNames: ['ns'],
  nameValidator: isDNS1123Label,
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.Namespace')],
  storageVersion: 'v1',
  strategy: specStrategy({
    initialStatus: () => ({ phase: 'Active' }),
    prepareForCreate(obj) {
      obj.spec = { finalizers: ['kubernetes'] };
    },
    prepareForUpdate(obj, old) {
      obj.spec = old.spec; // spec.finalizers change only through /finalize
    },
    defaults(obj) {
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name as string };
    },
    validate: () => [],
  }),
  statusStrategy: statusStrategy(),
  subresourceStrategies: {
    // /finalize changes spec.finalizers and nothing else.
    finalize: {
      prepareForUpdate(obj, old) {
        const finalizers = obj.spec?.finalizers ?? [];
        const managedFields = obj.metadata.managedFields;
        const resourceVersion = obj.metadata.resourceVersion;
        for (const k of Object.keys(obj)) delete obj[k];
        Object.assign(obj, structuredClone(old));
        obj.metadata.resourceVersion = resourceVersion;
        if (managedFields) obj.metadata.managedFields = managedFields;
        obj.spec = { ...obj.spec, finalizers };
      },
      validate: (obj) => (obj.spec?.finalizers ?? []).some((f: unknown) => typeof f !== 'string' || !f)
        ? [{ type: 'FieldValueInvalid', field: 'spec.finalizers', message: 'finalizer names must be non-empty strings' }] : [],
    },
  },
  extraSubresources: ['finalize'],
  fieldLabels: (o) => ({ 'status.phase': o.status?.phase ?? '' }),
  returnDeletedObject: true,
  onDelete(obj, now) {
    // Deleting again while content is being removed is a conflict, as Kubernetes answers it.
    if (obj.metadata.deletionTimestamp && (obj.spec?.finalizers ?? []).length) {
      throw conflict('namespaces', '', obj.metadata.name as string, 'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.');
    }
    obj.status = { ...obj.status, phase: 'Terminating' };
    obj.metadata.deletionTimestamp ??= now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    return (obj.spec?.finalizers ?? []).length > 0;
  },
  isFinalized: (obj) => !(obj.spec?.finalizers ?? []).length && !(obj.metadata.finalizers ?? []).length,
  columns: [col('Status', 'The phase of the namespace.', (o) => o.status?.phase ?? ''), ageColumn],
};
