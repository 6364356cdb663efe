// core/v1 Namespace.
import { str, obj, arr, keyedList, defineType, pb } from '../../schema.js';
import { listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Namespace', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, core('NamespaceSpec')),
  status: pb(3, core('NamespaceStatus')),
}, 'A scope for names; most objects live in exactly one namespace.', { gvk: [{ group: '', version: 'v1', kind: 'Namespace' }] }));

defineType('io.k8s.api.core.v1.NamespaceList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Namespace'), 'The objects in the list.'),
}, 'A list of namespaces.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'NamespaceList' }] }));

defineType('io.k8s.api.core.v1.NamespaceSpec', obj({
  finalizers: pb(1, arr(str(), 'Tokens that must be cleared before the namespace is removed from storage.', { listType: 'atomic' })),
}, 'Desired state of a namespace.'));

defineType('io.k8s.api.core.v1.NamespaceStatus', obj({
  phase: pb(1, str('Active, or Terminating while its contents are being deleted.', { enum: ['Active', 'Terminating'] })),
  conditions: pb(2, keyedList(core('NamespaceCondition'), 'type')),
}, 'Observed state of a namespace.'));

defineType('io.k8s.api.core.v1.NamespaceCondition', obj({
  type: pb(1, str('Type of the condition.'), 'keepZero'),
  status: pb(2, str('True, False or Unknown.'), 'keepZero'),
  lastTransitionTime: pb(4, timeRef('When the status last changed.')),
  reason: pb(5, str('CamelCase reason for the condition\'s last transition.')),
  message: pb(6, str('Human-readable detail.')),
}, undefined, { required: ['type', 'status'] }));
