// scheduling.k8s.io/v1 PriorityClass: a name for a pod priority.
import { str, int32, bool, obj, arr, defineType, ref, pb } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';

const gvk = (kind: string) => [{ group: 'scheduling.k8s.io', version: 'v1', kind }];
const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. scheduling.k8s.io/v1.'),
  kind: str('The type of this object in CamelCase, e.g. PriorityClass.'),
};

defineType('io.k8s.api.scheduling.v1.PriorityClass', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  value: pb(2, int32('The priority of pods of this class; higher is more important.'), 'keepZero'),
  globalDefault: pb(3, bool('Whether pods without a priorityClassName get this class; at most one class may be.')),
  description: pb(4, str('When to use this class.')),
  preemptionPolicy: pb(5, str('Whether pods of this class preempt lower ones: PreemptLowerPriority (default) or Never.', { enum: ['PreemptLowerPriority', 'Never'] }), 'keepZero'),
}, 'Maps a class name to a pod priority.', { required: ['value'], gvk: gvk('PriorityClass') }));

defineType('io.k8s.api.scheduling.v1.PriorityClassList', obj({
  ...typeMeta,
  metadata: listMeta(),
  items: arr(ref('io.k8s.api.scheduling.v1.PriorityClass'), 'The objects in the list.'),
}, 'A list of PriorityClasses.', { required: ['items'], gvk: gvk('PriorityClassList') }));
