// core/v1 Event (the older event form kubectl describe reads).
import { str, int32, obj, arr, defineType } from '../../schema.js';
import { listMeta, microTimeRef, objectMeta, timeRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Event', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  involvedObject: core('ObjectReference', 'The object the event is about.'),
  reason: str('Why the action was taken, in CamelCase.'),
  message: str(),
  source: core('EventSource'),
  firstTimestamp: timeRef(),
  lastTimestamp: timeRef(),
  count: int32('How many times the event occurred.'),
  type: str('Normal or Warning.'),
  eventTime: microTimeRef(),
  series: core('EventSeries'),
  action: str(),
  related: core('ObjectReference', 'A second object involved, if any.'),
  reportingComponent: str(),
  reportingInstance: str(),
}, 'A report of something that happened to an object (core/v1 form).', { required: ['metadata', 'involvedObject'], gvk: [{ group: '', version: 'v1', kind: 'Event' }] }));

defineType('io.k8s.api.core.v1.EventList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Event'), 'The objects in the list.'),
}, 'A list of events.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'EventList' }] }));

defineType('io.k8s.api.core.v1.EventSource', obj({
  component: str(),
  host: str(),
}));

defineType('io.k8s.api.core.v1.EventSeries', obj({
  count: int32(),
  lastObservedTime: microTimeRef(),
}));
