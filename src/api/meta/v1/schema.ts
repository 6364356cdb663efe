// meta/v1: the object metadata, list metadata, selectors, Status and options every API
// group shares, plus the apimachinery scalars (Quantity, IntOrString).
import {
  any, arr, bool, defineType, int32, int64, intOrString, keyedList, map, obj, pb, quantity, str, time,
} from '../../schema.js';
import { INT_OR_STRING, META, QUANTITY, listMeta, metaRef, timeRef } from './names.js';

defineType(QUANTITY, quantity(
  'An amount of a resource in fixed-point form: a plain number (2, 0.5) or a string with an SI or binary suffix ("500m", "1Gi").',
));

defineType(INT_OR_STRING, intOrString(
  'Either an integer or a string; a string usually names a port or holds a percentage ("25%").',
));

defineType(`${META}.Time`, time('An RFC 3339 timestamp with second precision, in UTC.'));
defineType(`${META}.MicroTime`, time('An RFC 3339 timestamp with microsecond precision.'));

defineType(`${META}.FieldsV1`, any(
  'The set of fields a manager owns, as a trie of "f:<name>", "k:<keys>", "v:<value>" and "i:<index>" entries.',
));

defineType(`${META}.ManagedFieldsEntry`, obj({
  manager: pb(1, str('The name of the workflow (field manager) that owns these fields.')),
  operation: pb(2, str('Apply or Update: the kind of request that produced this entry.')),
  apiVersion: pb(3, str('The version of the resource the fieldset applies to.')),
  time: pb(4, timeRef('When the fields were last changed by this manager.')),
  fieldsType: pb(6, str('The format of fieldsV1; the only value is "FieldsV1".')),
  fieldsV1: pb(7, metaRef('FieldsV1', 'The fields owned, in the FieldsV1 trie format.')),
  subresource: pb(8, str('The subresource (e.g. "status", "scale") through which the fields were written, or empty for the main resource.')),
}, 'Which fields one manager owns on an object, recorded by server-side apply.'));

defineType(`${META}.OwnerReference`, obj({
  apiVersion: pb(5, str('API version of the owner.'), 'keepZero'),
  kind: pb(1, str('Kind of the owner.'), 'keepZero'),
  name: pb(3, str('Name of the owner.'), 'keepZero'),
  uid: pb(4, str('UID of the owner.'), 'keepZero'),
  controller: pb(6, bool('True when the owner is the managing controller of this object; at most one owner may be.'), 'keepZero'),
  blockOwnerDeletion: pb(7, bool('When true, foreground deletion of the owner waits for this object to be deleted first.'), 'keepZero'),
}, 'Points to an object this object depends on; the garbage collector deletes dependents whose owners are gone.', {
  required: ['apiVersion', 'kind', 'name', 'uid'],
  mapType: 'atomic',
}));

defineType(`${META}.ObjectMeta`, obj({
  name: pb(1, str('Unique name within the namespace (or cluster, for cluster-scoped kinds). Cannot be changed.')),
  generateName: pb(2, str('Prefix the server uses to generate a unique name when name is empty.')),
  namespace: pb(3, str('The namespace the object lives in; empty for cluster-scoped kinds.')),
  selfLink: pb(4, str('Deprecated and no longer set by the server.')),
  uid: pb(5, str('Unique identifier for this incarnation of the object, set by the server.')),
  resourceVersion: pb(6, str('Opaque version of the object, used for optimistic concurrency and watches.')),
  generation: pb(7, int64('Sequence number of the desired state; the server increments it on spec changes.')),
  creationTimestamp: pb(8, timeRef('When the server created the object.')),
  deletionTimestamp: pb(9, timeRef('When graceful deletion was requested; set by the server, the object disappears after its finalizers are done.')),
  deletionGracePeriodSeconds: pb(10, int64('Seconds the object has to terminate gracefully before it is removed.'), 'keepZero'),
  labels: pb(11, map(str(), 'Key/value pairs used to organise and select objects.')),
  annotations: pb(12, map(str(), 'Key/value pairs of arbitrary non-identifying metadata for tools.')),
  ownerReferences: pb(13, keyedList(metaRef('OwnerReference'), 'uid', 'Objects this one depends on.')),
  finalizers: pb(14, arr(str(), 'Tokens that must be removed before the object is deleted.', { patchStrategy: 'merge', listType: 'set' })),
  managedFields: pb(17, arr(metaRef('ManagedFieldsEntry'), 'Field ownership recorded by server-side apply; internal bookkeeping.', { listType: 'atomic' })),
}, 'Metadata every persisted object carries.'));

defineType(`${META}.ListMeta`, obj({
  selfLink: str('Deprecated and no longer set by the server.'),
  resourceVersion: str('The version of the collection this list was read at; watch from it to see later changes.'),
  continue: str('Token to pass as ?continue= to fetch the next page, when the list was limited.'),
  remainingItemCount: int64('Number of items after this page, when the server can tell.'),
}, 'Metadata of a list response.'));

defineType(`${META}.LabelSelectorRequirement`, obj({
  key: pb(1, str('The label key the requirement applies to.'), 'keepZero'),
  operator: pb(2, str('In, NotIn, Exists or DoesNotExist.'), 'keepZero'),
  values: pb(3, arr(str(), 'Values for In and NotIn; must be empty for Exists and DoesNotExist.', { listType: 'atomic' })),
}, 'One label requirement: a key, an operator and values.', { required: ['key', 'operator'] }));

defineType(`${META}.FieldSelectorRequirement`, obj({
  key: pb(1, str('The field the requirement applies to.'), 'keepZero'),
  operator: pb(2, str('In, NotIn, Exists or DoesNotExist.'), 'keepZero'),
  values: pb(3, arr(str(), 'Values for In and NotIn; must be empty for Exists and DoesNotExist.', { listType: 'atomic' })),
}, 'One field requirement: a field, an operator and values.', { required: ['key', 'operator'] }));

defineType(`${META}.LabelSelector`, obj({
  matchLabels: pb(1, map(str(), 'Labels that must all match exactly (each is like an In requirement with one value).')),
  matchExpressions: pb(2, arr(metaRef('LabelSelectorRequirement'), 'Requirements that must all hold.', { listType: 'atomic' })),
}, 'Selects objects by labels; all requirements are ANDed. An empty selector matches everything, a null one nothing.', {
  mapType: 'atomic',
}));

defineType(`${META}.Condition`, obj({
  type: pb(1, str('The condition type in CamelCase, e.g. Available.'), 'keepZero'),
  status: pb(2, str('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }), 'keepZero'),
  observedGeneration: pb(3, int64('The metadata.generation the condition was computed from.')),
  lastTransitionTime: pb(4, timeRef('When the status last changed.')),
  reason: pb(5, str('A CamelCase machine-readable reason for the last transition.'), 'keepZero'),
  message: pb(6, str('A human-readable explanation of the last transition.'), 'keepZero'),
}, 'One aspect of an object\'s current state.', { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] }));

defineType(`${META}.StatusCause`, obj({
  reason: str('Machine-readable cause, e.g. FieldValueInvalid or FieldManagerConflict.'),
  message: str('Human-readable description of the cause.'),
  field: str('The field the cause refers to, as a path like spec.containers[0].image.'),
}, 'One reason a request failed.'));

defineType(`${META}.StatusDetails`, obj({
  name: str('Name of the resource the status is about.'),
  group: str('API group of the resource.'),
  kind: str('Kind (or resource) the status is about.'),
  uid: str('UID of the resource, when known.'),
  causes: arr(metaRef('StatusCause'), 'Individual causes, e.g. one per invalid field.', { listType: 'atomic' }),
  retryAfterSeconds: int32('Seconds the client should wait before retrying.'),
}, 'Extra detail attached to a Status.'));

defineType(`${META}.Status`, obj({
  apiVersion: str('Always v1.'),
  kind: str('Always Status.'),
  metadata: listMeta('Standard list metadata.'),
  status: str('Success or Failure.'),
  message: str('Human-readable description of the outcome.'),
  reason: str('Machine-readable reason, e.g. NotFound, AlreadyExists, Conflict, Invalid.'),
  details: metaRef('StatusDetails', 'Extra data about the reason, depending on it.'),
  code: int32('The HTTP status code of the reply.'),
}, 'The result of a request that returns no object, and every error reply.'));

defineType(`${META}.Preconditions`, obj({
  uid: pb(1, str('The object is only affected if its UID is this.'), 'keepZero'),
  resourceVersion: pb(2, str('The object is only affected if its resourceVersion is this.'), 'keepZero'),
}, 'Conditions that must hold for an operation to proceed.'));

defineType(`${META}.DeleteOptions`, obj({
  apiVersion: str('The versioned schema of this options object.'),
  kind: str('Always DeleteOptions.'),
  gracePeriodSeconds: pb(1, int64('Seconds before the object is removed; 0 deletes immediately, unset uses the kind\'s default.'), 'keepZero'),
  preconditions: pb(2, metaRef('Preconditions', 'Conditions that must hold or the deletion is refused with a Conflict.')),
  orphanDependents: pb(3, bool('Deprecated: use propagationPolicy. True orphans dependents.'), 'keepZero'),
  propagationPolicy: pb(4, str('Orphan, Background or Foreground: how dependents are garbage-collected.'), 'keepZero'),
  dryRun: pb(5, arr(str(), 'When "All", the deletion is validated but not persisted.', { listType: 'atomic' })),
  ignoreStoreReadErrorWithClusterBreakingPotential: pb(6, bool('Delete an object whose stored data cannot be decoded; dangerous.'), 'keepZero'),
}, 'Options for a DELETE request, sent as its body.'));

defineType(`${META}.WatchEvent`, obj({
  type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
  object: any('The object after the change; for ERROR a Status; for BOOKMARK an object carrying only a resourceVersion.'),
}, 'One event on a watch stream.', { required: ['type', 'object'] }));

defineType(`${META}.Patch`, obj({},
  'The body of a PATCH request; its format follows the Content-Type (JSON patch, merge patch, strategic merge patch, or apply configuration).',
));
