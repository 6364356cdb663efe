// core/v1 LimitRange: per-namespace defaults and bounds of compute resources (ResourceQuota
// is in quota.ts).
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
