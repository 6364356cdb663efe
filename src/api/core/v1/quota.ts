// core/v1 ResourceQuota: the hard limits of a namespace and what is used of them.
import { str, obj, map, arr, defineType, pb } from '../../schema.js';
import { listMeta, objectMeta, quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

const scopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];

defineType('io.k8s.api.core.v1.ResourceQuota', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, core('ResourceQuotaSpec', 'The limits to enforce.')),
  status: pb(3, core('ResourceQuotaStatus', 'The limits enforced and what is used of them.')),
}, 'Aggregate resource limits for a namespace.', { gvk: [{ group: '', version: 'v1', kind: 'ResourceQuota' }] }));

defineType('io.k8s.api.core.v1.ResourceQuotaList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('ResourceQuota'), 'The objects in the list.'),
}, 'A list of ResourceQuotas.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'ResourceQuotaList' }] }));

defineType('io.k8s.api.core.v1.ResourceQuotaSpec', obj({
  hard: pb(1, map(quantityRef(), 'The limit of each named resource.')),
  scopes: pb(2, arr(str(undefined, { enum: scopes }), 'Scopes every object counted must match.', { listType: 'atomic' })),
  scopeSelector: pb(3, core('ScopeSelector', 'Scope requirements every object counted must match.')),
}, 'The limits a quota enforces.'));

defineType('io.k8s.api.core.v1.ScopeSelector', obj({
  matchExpressions: pb(1, arr(core('ScopedResourceSelectorRequirement'), 'Requirements by scope; all must hold.', { listType: 'atomic' })),
}, 'Selects the objects a quota counts by their scopes.', { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.ScopedResourceSelectorRequirement', obj({
  scopeName: pb(1, str('The scope the requirement applies to.', { enum: scopes }), 'keepZero'),
  operator: pb(2, str('In, NotIn, Exists or DoesNotExist.', { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }), 'keepZero'),
  values: pb(3, arr(str(), 'Values for In and NotIn; empty for Exists and DoesNotExist.', { listType: 'atomic' })),
}, 'A scope, an operator and values.', { required: ['scopeName', 'operator'] }));

defineType('io.k8s.api.core.v1.ResourceQuotaStatus', obj({
  hard: pb(1, map(quantityRef(), 'The limits enforced.')),
  used: pb(2, map(quantityRef(), 'What the namespace uses of each limited resource.')),
}, 'What a quota enforces and observes.'));
