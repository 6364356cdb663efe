// events.k8s.io/v1 Event.
import { str, int32, obj, arr, defineType } from '../../schema.js';
import { listMeta, microTimeRef, objectMeta, timeRef } from '../../meta/v1/names.js';
import { core } from '../../core/v1/names.js';
import { events } from './names.js';

defineType('io.k8s.api.events.v1.Event', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  eventTime: microTimeRef(),
  series: events('EventSeries'),
  reportingController: str(),
  reportingInstance: str(),
  action: str(),
  reason: str('Why the action was taken, in CamelCase.'),
  regarding: core('ObjectReference', 'The object the event is about.'),
  related: core('ObjectReference', 'A second object involved, if any.'),
  note: str('Human-readable description of what happened.'),
  type: str('Normal or Warning.'),
  deprecatedSource: core('EventSource'),
  deprecatedFirstTimestamp: timeRef(),
  deprecatedLastTimestamp: timeRef(),
  deprecatedCount: int32(),
}, 'A report of something that happened to an object (events.k8s.io/v1 form).', { required: ['eventTime'], gvk: [{ group: 'events.k8s.io', version: 'v1', kind: 'Event' }] }));

defineType('io.k8s.api.events.v1.EventList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(events('Event'), 'The objects in the list.'),
}, 'A list of events.', { required: ['items'], gvk: [{ group: 'events.k8s.io', version: 'v1', kind: 'EventList' }] }));

defineType('io.k8s.api.events.v1.EventSeries', obj({
  count: int32(),
  lastObservedTime: microTimeRef(),
}, undefined, { required: ['count', 'lastObservedTime'] }));
