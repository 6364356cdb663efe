// scheduling.k8s.io/v1 PriorityClass: a name for a pod priority value.
import { str, bool, int32, obj, arr, ref, defineType } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';

const header = {
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
};

defineType('io.k8s.api.scheduling.v1.PriorityClass', obj({
  ...header,
  metadata: objectMeta(),
  value: int32('The priority pods of this class get; higher is more important.'),
  globalDefault: bool('Whether this class is the priority of pods that name none; at most one class may be.'),
  description: str('When to use this class.'),
  preemptionPolicy: str('Whether pods of this class may preempt lower-priority pods; default PreemptLowerPriority.', { enum: ['PreemptLowerPriority', 'Never'] }),
}, 'A mapping from a priority class name to a priority value.', { required: ['value'], gvk: [{ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' }] }));

defineType('io.k8s.api.scheduling.v1.PriorityClassList', obj({
  ...header,
  metadata: listMeta(),
  items: arr(ref('io.k8s.api.scheduling.v1.PriorityClass'), 'The objects in the list.'),
}, 'A list of PriorityClasses.', { required: ['items'], gvk: [{ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClassList' }] }));
