// Events, served as core/v1 Event and as events.k8s.io/v1 Event from one storage: the
// two versions rename fields, so each converts to the internal (core) shape.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef, VersionDef } from '../types.js';
import { col, humanAge, identityVersion, stripTypeMeta } from '../common.js';
import { required, type FieldError } from '../../../api/validation.js';

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!o.involvedObject) errs.push(required('involvedObject'));
  if (o.involvedObject?.namespace && o.involvedObject.namespace !== o.metadata.namespace) {
    errs.push({ type: 'FieldValueInvalid', field: 'involvedObject.namespace', message: 'does not match event.namespace' });
  }
  return errs;
}

const lastSeen = (o: KubeObject, now: Date): string => {
  const t = o.series?.lastObservedTime ?? o.lastTimestamp ?? o.eventTime ?? o.firstTimestamp ?? o.metadata.creationTimestamp;
  return humanAge(t, now);
};

function objectText(o: KubeObject): string {
  const io = o.involvedObject ?? {};
  return `${String(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`;
}

const coreEventFields = (o: KubeObject): Record<string, string> => {
  const io: Fields = o.involvedObject ?? {};
  return {
    'involvedObject.kind': io.kind ?? '', 'involvedObject.namespace': io.namespace ?? '', 'involvedObject.name': io.name ?? '',
    'involvedObject.uid': io.uid ?? '', 'involvedObject.apiVersion': io.apiVersion ?? '', 'involvedObject.resourceVersion': io.resourceVersion ?? '',
    'involvedObject.fieldPath': io.fieldPath ?? '', reason: o.reason ?? '', reportingComponent: o.reportingComponent ?? '',
    source: o.source?.component ?? '', type: o.type ?? '',
  };
};

/** events.k8s.io/v1 ↔ core shape: regarding/note/deprecated* ↔ involvedObject/message/... */
const eventsV1: VersionDef = {
  version: 'v1',
  schemaName: 'io.k8s.api.events.v1.Event',
  toInternal(o) {
    const { regarding, note, deprecatedSource, deprecatedFirstTimestamp, deprecatedLastTimestamp, deprecatedCount, reportingController, reportingInstance, ...rest } = stripTypeMeta(o) as Fields;
    const out: Fields = { ...rest };
    if (regarding !== undefined) out.involvedObject = regarding;
    if (note !== undefined) out.message = note;
    if (deprecatedSource !== undefined) out.source = deprecatedSource;
    if (deprecatedFirstTimestamp !== undefined) out.firstTimestamp = deprecatedFirstTimestamp;
    if (deprecatedLastTimestamp !== undefined) out.lastTimestamp = deprecatedLastTimestamp;
    if (deprecatedCount !== undefined) out.count = deprecatedCount;
    if (reportingController !== undefined) out.reportingComponent = reportingController;
    if (reportingInstance !== undefined) out.reportingInstance = reportingInstance;
    return out as KubeObject;
  },
  fromInternal(o) {
    const { involvedObject, message, source, firstTimestamp, lastTimestamp, count, reportingComponent, reportingInstance, ...rest } = o as Fields;
    const out: Fields = { ...rest };
    if (involvedObject !== undefined) out.regarding = involvedObject;
    if (message !== undefined) out.note = message;
    if (source !== undefined) out.deprecatedSource = source;
    if (firstTimestamp !== undefined) out.deprecatedFirstTimestamp = firstTimestamp;
    if (lastTimestamp !== undefined) out.deprecatedLastTimestamp = lastTimestamp;
    if (count !== undefined) out.deprecatedCount = count;
    if (reportingComponent !== undefined) out.reportingController = reportingComponent;
    if (reportingInstance !== undefined) out.reportingInstance = reportingInstance;
    return out as KubeObject;
  },
};

const columns = [
  col('Last Seen', 'Time since the event was last observed.', lastSeen),
  col('Type', 'Type of the event.', (o) => o.type ?? ''),
  col('Reason', 'Why the event happened.', (o) => o.reason ?? ''),
  col('Object', 'The object the event is about.', objectText),
  col('Message', 'What happened.', (o) => String(o.message ?? '').trim()),
  col('Subobject', 'The part of the object.', (o) => o.involvedObject?.fieldPath ?? '', 1),
  col('Source', 'Who reported the event.', (o) => [o.source?.component ?? o.reportingComponent, o.source?.host].filter(Boolean).join(', '), 1),
  col('First Seen', 'Time since first observed.', (o, now) => humanAge(o.firstTimestamp ?? o.eventTime, now), 1),
  col('Count', 'How often it happened.', (o) => o.count ?? 1, 1, 'integer'),
  col('Name', 'Name of the event.', (o) => o.metadata.name ?? '', 1),
];

export const events: ResourceDef = {
  group: '', resource: 'events', singular: 'event', kind: 'Event', listKind: 'EventList', namespaced: true,
  shortNames: ['ev'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.Event')],
  storageVersion: 'v1',
  strategy: { validate },
  fieldLabels: coreEventFields,
  columns,
};

export const eventsK8sIO: ResourceDef = {
  ...events,
  group: 'events.k8s.io',
  shortNames: ['ev'],
  versions: [eventsV1],
  storagePrefix: '/registry/events/',
  storageCodec: { apiVersion: 'v1', version: events.versions[0] },
  fieldLabels: (o) => {
    const f = coreEventFields(o);
    const out: Record<string, string> = { reason: f.reason, type: f.type, reportingController: f.reportingComponent };
    for (const [k, v] of Object.entries(f)) if (k.startsWith('involvedObject.')) out[`regarding.${k.slice('involvedObject.'.length)}`] = v;
    return out;
  },
};
