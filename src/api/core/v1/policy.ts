// core/v1 LimitRange and ResourceQuota: per-namespace defaults, bounds and totals of compute
// and object counts.
import { str, obj, map, arr, defineType } from '../../schema.js';
import { listMeta, objectMeta, quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

const header = {
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
};

defineType('io.k8s.api.core.v1.LimitRange', obj({
  ...header,
  metadata: objectMeta(),
  spec: core('LimitRangeSpec', 'The limits enforced.'),
}, 'Resource limits and defaults for each kind of object in a namespace.', { gvk: [{ group: '', version: 'v1', kind: 'LimitRange' }] }));

defineType('io.k8s.api.core.v1.LimitRangeList', obj({
  ...header,
  metadata: listMeta(),
  items: arr(core('LimitRange'), 'The objects in the list.'),
}, 'A list of LimitRanges.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'LimitRangeList' }] }));

defineType('io.k8s.api.core.v1.LimitRangeSpec', obj({
  limits: arr(core('LimitRangeItem'), 'The limits enforced.', { listType: 'atomic' }),
}, undefined, { required: ['limits'] }));

defineType('io.k8s.api.core.v1.LimitRangeItem', obj({
  type: str('Type of resource this limit applies to.', { enum: ['Container', 'Pod', 'PersistentVolumeClaim'] }),
  max: map(quantityRef(), 'Maximum usage of each resource.'),
  min: map(quantityRef(), 'Minimum usage of each resource.'),
  default: map(quantityRef(), 'Default limit of each resource when none is given.'),
  defaultRequest: map(quantityRef(), 'Default request of each resource when none is given.'),
  maxLimitRequestRatio: map(quantityRef(), 'Largest limit/request ratio allowed for each resource.'),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.core.v1.ResourceQuota', obj({
  ...header,
  metadata: objectMeta(),
  spec: core('ResourceQuotaSpec', 'The desired quota.'),
  status: core('ResourceQuotaStatus', 'The quota enforced and what is used.'),
}, 'Aggregate resource consumption allowed per namespace.', { gvk: [{ group: '', version: 'v1', kind: 'ResourceQuota' }] }));

defineType('io.k8s.api.core.v1.ResourceQuotaList', obj({
  ...header,
  metadata: listMeta(),
  items: arr(core('ResourceQuota'), 'The objects in the list.'),
}, 'A list of ResourceQuotas.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'ResourceQuotaList' }] }));

defineType('io.k8s.api.core.v1.ResourceQuotaSpec', obj({
  hard: map(quantityRef(), 'Hard limit for each named resource.'),
  scopes: arr(str(undefined, { enum: ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'] }), 'Filters on the objects the quota counts.', { listType: 'atomic' }),
  scopeSelector: core('ScopeSelector', 'Scope filters as expressions.'),
}));

defineType('io.k8s.api.core.v1.ScopeSelector', obj({
  matchExpressions: arr(core('ScopedResourceSelectorRequirement'), undefined, { listType: 'atomic' }),
}, undefined, { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.ScopedResourceSelectorRequirement', obj({
  scopeName: str(undefined, { enum: ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'] }),
  operator: str(undefined, { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }),
  values: arr(str(), undefined, { listType: 'atomic' }),
}, undefined, { required: ['scopeName', 'operator'] }));

defineType('io.k8s.api.core.v1.ResourceQuotaStatus', obj({
  hard: map(quantityRef(), 'The hard limits enforced.'),
  used: map(quantityRef(), 'What the namespace currently uses.'),
}));
