// resourceVersion and resourceVersionMatch as kube-apiserver reads them (see "Semantics for get
// and list" in the API concepts): what a GET, LIST or WATCH asks to be read from, with
// upstream's validation errors and messages.
import { badRequest, invalid, StatusError, type FieldError } from './errors.js';

/** How long a read waits for this server to catch up with a resourceVersion it has not seen. */
export const freshnessTimeoutMs = 3000;

/** What a read asks for. */
export type ReadAt =
  /** resourceVersion unset: the most recent state, read from storage. */
  | { kind: 'latest' }
  /** "0": any state; the watch cache answers at once. */
  | { kind: 'any' }
  /** At least this fresh: the watch cache once it has reached it. */
  | { kind: 'notOlderThan'; revision: number }
  /** Exactly this revision, from the storage's history. */
  | { kind: 'exact'; revision: number };

const maxUint64 = 18446744073709551615n;

/** "" and "0" are 0; otherwise a decimal uint64 as Go's strconv.ParseUint takes it, or 400. */
export function parseResourceVersion(text: string): number {
  if (text === '' || text === '0') return 0;
  const why = !/^[0-9]+$/.test(text) ? 'invalid syntax' : BigInt(text) > maxUint64 ? 'value out of range' : '';
  if (why) {
    throw badRequest(`invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(text)}: strconv.ParseUint: parsing ${JSON.stringify(text)}: ${why}`);
  }
  return Number(text);
}

/** A GET: unset from storage, "0" from the cache, N from the cache once it has reached N. */
export function getReadAt(query: URLSearchParams): ReadAt {
  const text = query.get('resourceVersion') ?? '';
  if (text === '') return { kind: 'latest' };
  const revision = parseResourceVersion(text);
  return revision === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision };
}

/**
 * A LIST, after k8s.io/apimachinery's ValidateListOptions (422 on ListOptions) and the
 * cacher's delegation: a limit with a legacy (match unset) non-zero resourceVersion is exact.
 * Continuations are read from storage at the token's revision and never come here.
 */
export function listReadAt(query: URLSearchParams, limit: number): ReadAt {
  const text = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const errors: FieldError[] = [];
  if (match) {
    if (!text) errors.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'resourceVersionMatch is forbidden unless resourceVersion is provided' });
    if (query.get('continue')) errors.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'resourceVersionMatch is forbidden when continue is provided' });
    if (match !== 'Exact' && match !== 'NotOlderThan') errors.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', message: `${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""` });
    if (match === 'Exact' && text === '0') errors.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
  }
  if (query.has('sendInitialEvents')) errors.push({ type: 'FieldValueForbidden', field: 'sendInitialEvents', message: 'sendInitialEvents is forbidden for list' });
  if (errors.length) throw invalidListOptions(errors);
  if (query.get('continue')) {
    if (text && text !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    return { kind: 'latest' };
  }
  if (text === '') return { kind: 'latest' };
  const revision = parseResourceVersion(text);
  if (revision === 0) return { kind: 'any' };
  if (match === 'Exact' || (match === '' && limit > 0)) return { kind: 'exact', revision };
  return { kind: 'notOlderThan', revision };
}

/**
 * A WATCH starts after the returned revision; 0 means "from the current state", sent first as
 * ADDED events. A revision this server has not reached yet is waited for, as upstream does.
 */
export function watchStartAt(query: URLSearchParams): number {
  const match = query.get('resourceVersionMatch') ?? '';
  if (match) {
    const errors: FieldError[] = [];
    if (!query.has('sendInitialEvents')) errors.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' });
    if (match !== 'NotOlderThan') errors.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', message: `${JSON.stringify(match)}: supported values: "NotOlderThan"` });
    if (errors.length) throw invalidListOptions(errors);
  }
  return parseResourceVersion(query.get('resourceVersion') ?? '');
}

function invalidListOptions(errors: FieldError[]): StatusError {
  return invalid('ListOptions', 'meta.k8s.io', '', errors);
}

/** 504 for a resourceVersion this server has not reached within the wait (storage.NewTooLargeResourceVersionError). */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}
