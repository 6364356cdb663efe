// k8s.io/apimachinery: meta/v1, util/intstr, api/resource.
import { formatDuration } from '../../../util/index.js';
import { ProtobufDecodeError } from '../errors.js';
import { msg, type Messages } from '../schema.js';

function timestamp(o: Record<string, unknown>, fraction: boolean): string | undefined {
  const seconds = Number(o.seconds ?? 0);
  const nanos = Number(o.nanos ?? 0);
  if (seconds === 0 && nanos === 0) return undefined;
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  return fraction ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

export const meta: Messages = {
  ObjectMeta: msg({
    1: ['name', 'string'], 2: ['generateName', 'string'], 3: ['namespace', 'string'], 4: ['selfLink', 'string'],
    5: ['uid', 'string'], 6: ['resourceVersion', 'string'], 7: ['generation', 'int64'],
    8: ['creationTimestamp', 'Time'], 9: ['deletionTimestamp', '*Time'], 10: ['deletionGracePeriodSeconds', '*int64'],
    11: ['labels', 'map<string>'], 12: ['annotations', 'map<string>'], 13: ['ownerReferences', '[]OwnerReference'],
    14: ['finalizers', '[]string'], 17: ['managedFields', '[]ManagedFieldsEntry'],
  }),
  OwnerReference: msg({
    5: ['apiVersion', 'string!'], 1: ['kind', 'string!'], 3: ['name', 'string!'], 4: ['uid', 'string!'],
    6: ['controller', '*bool'], 7: ['blockOwnerDeletion', '*bool'],
  }),
  ManagedFieldsEntry: msg({
    1: ['manager', 'string'], 2: ['operation', 'string'], 3: ['apiVersion', 'string'], 4: ['time', '*Time'],
    6: ['fieldsType', 'string'], 7: ['fieldsV1', '*FieldsV1'], 8: ['subresource', 'string'],
  }),
  FieldsV1: msg({ 1: ['raw', 'raw'] }, (o) => {
    const raw = o.raw as Buffer | undefined;
    if (!raw?.length) return {};
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ProtobufDecodeError('fieldsV1 is not JSON');
    }
  }),
  Time: msg({ 1: ['seconds', 'int64'], 2: ['nanos', 'int32'] }, (o) => timestamp(o, false)),
  MicroTime: msg({ 1: ['seconds', 'int64'], 2: ['nanos', 'int32'] }, (o) => timestamp(o, true)),
  Duration: msg({ 1: ['duration', 'int64'] }, (o) => formatDuration(Number(o.duration ?? 0))),
  LabelSelector: msg({ 1: ['matchLabels', 'map<string>'], 2: ['matchExpressions', '[]LabelSelectorRequirement'] }),
  LabelSelectorRequirement: msg({ 1: ['key', 'string!'], 2: ['operator', 'string!'], 3: ['values', '[]string'] }),
  FieldSelectorRequirement: msg({ 1: ['key', 'string!'], 2: ['operator', 'string!'], 3: ['values', '[]string'] }),
  Condition: msg({
    1: ['type', 'string!'], 2: ['status', 'string!'], 3: ['observedGeneration', 'int64'], 4: ['lastTransitionTime', 'Time'],
    5: ['reason', 'string!'], 6: ['message', 'string!'],
  }),
  DeleteOptions: msg({
    1: ['gracePeriodSeconds', '*int64'], 2: ['preconditions', '*Preconditions'], 3: ['orphanDependents', '*bool'],
    4: ['propagationPolicy', '*string'], 5: ['dryRun', '[]string'], 6: ['ignoreStoreReadErrorWithClusterBreakingPotential', '*bool'],
  }),
  Preconditions: msg({ 1: ['uid', '*string'], 2: ['resourceVersion', '*string'] }),
  IntOrString: msg({ 1: ['type', 'int64'], 2: ['intVal', 'int32'], 3: ['strVal', 'string'] },
    (o) => (o.type === 1 ? (o.strVal ?? '') : (o.intVal ?? 0))),
  Quantity: msg({ 1: ['string', 'string!'] }, (o) => o.string ?? '0'),
};
