// core/v1 PersistentVolumeClaim: the object StatefulSets' volumeClaimTemplates hold and the
// claims the StatefulSet controller creates per ordinal.
import { str, obj, arr, map, keyedList, defineType } from '../../schema.js';
import { listMeta, objectMeta, quantityRef, timeRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.PersistentVolumeClaim', obj({
  apiVersion: str('The versioned schema of this object, e.g. v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. PersistentVolumeClaim.'),
  metadata: objectMeta(),
  spec: core('PersistentVolumeClaimSpec', 'The storage the claim asks for.'),
  status: core('PersistentVolumeClaimStatus', 'What the claim is bound to.'),
}, 'A user\'s request for and claim to a persistent volume.', { gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeClaim' }] }));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimList', obj({
  apiVersion: str('The versioned schema of this object, e.g. v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. PersistentVolumeClaimList.'),
  metadata: listMeta(),
  items: arr(core('PersistentVolumeClaim'), 'The objects in the list.'),
}, 'A list of PersistentVolumeClaims.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeClaimList' }] }));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimStatus', obj({
  phase: str('Pending, Bound or Lost.', { enum: ['Bound', 'Lost', 'Pending'] }),
  accessModes: arr(str(), 'The access modes the bound volume has.', { listType: 'atomic' }),
  capacity: map(quantityRef(), 'The actual resources of the bound volume.'),
  conditions: keyedList(core('PersistentVolumeClaimCondition'), 'type', 'Current conditions of the claim.'),
  allocatedResources: map(quantityRef()),
  allocatedResourceStatuses: map(str()),
  currentVolumeAttributesClassName: str(),
}, 'Observed state of a claim.'));

defineType('io.k8s.api.core.v1.PersistentVolumeClaimCondition', obj({
  type: str(),
  status: str(),
  lastProbeTime: timeRef(),
  lastTransitionTime: timeRef(),
  reason: str(),
  message: str(),
}, undefined, { required: ['type', 'status'] }));
