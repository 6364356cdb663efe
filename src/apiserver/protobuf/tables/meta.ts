// The wrapper messages: how meta/v1 Time, MicroTime, Duration and FieldsV1, util/intstr's
// IntOrString, api/resource's Quantity and the ExtraValue lists appear in JSON. They are wire
// rules, not API shape, so they are written here rather than generated from the schema DSL.
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
  IntOrString: msg({ 1: ['type', 'int64'], 2: ['intVal', 'int32'], 3: ['strVal', 'string'] },
    (o) => (o.type === 1 ? (o.strVal ?? '') : (o.intVal ?? 0))),
  Quantity: msg({ 1: ['string', 'string!'] }, (o) => o.string ?? '0'),
  // A named []string in Go (authentication, authorization, certificates), so JSON writes the list itself.
  ExtraValue: msg({ 1: ['items', '[]string'] }, (o) => o.items ?? []),
};
