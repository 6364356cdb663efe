// The query and path parameters of Kubernetes REST operations. kubectl looks for
// `fieldValidation` on a kind's PATCH operation to decide that the server validates fields
// itself (otherwise `apply --validate=strict` fails without an OpenAPI v2 fallback).
import type { JSONObject } from './components.js';

const query = (name: string, type: 'string' | 'integer' | 'boolean', description: string): JSONObject =>
  ({ name, in: 'query', description, schema: { type, uniqueItems: true } });

export const pathParam = (name: string, description: string): JSONObject =>
  ({ name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } });

export const pretty = query('pretty', 'string', 'If "true", the output is indented.');

const dryRun = query('dryRun', 'string', 'When "All", the request is validated and admitted but nothing is persisted.');
const fieldManager = query('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields. Required for apply patches.');
const fieldValidation = query('fieldValidation', 'string',
  'What to do with unknown or duplicate fields in the body: Ignore drops them, Warn drops them and returns a Warning header per field, Strict rejects the request.');
const force = query('force', 'boolean', 'For apply patches: take ownership of fields other managers own instead of failing with a conflict.');

export const createParams = [dryRun, fieldManager, fieldValidation];
export const updateParams = [dryRun, fieldManager, fieldValidation];
export const patchParams = [dryRun, fieldManager, fieldValidation, force];

export const listParams = [
  query('allowWatchBookmarks', 'boolean', 'With watch: the server may send BOOKMARK events carrying only a resourceVersion.'),
  query('continue', 'string', 'The continue token of the previous page of a limited list.'),
  query('fieldSelector', 'string', 'Only return objects whose fields match, e.g. metadata.name=web.'),
  query('labelSelector', 'string', 'Only return objects whose labels match, e.g. app=web,tier!=db.'),
  query('limit', 'integer', 'Maximum number of items to return; the reply carries a continue token if more remain.'),
  query('resourceVersion', 'string', 'Which version of the collection to read or to watch from.'),
  query('resourceVersionMatch', 'string', 'How resourceVersion is applied to a list: Exact or NotOlderThan.'),
  query('sendInitialEvents', 'boolean', 'With watch: start with synthetic ADDED events for the current state.'),
  query('timeoutSeconds', 'integer', 'Time limit for the list or watch call.'),
  query('watch', 'boolean', 'Stream changes to the matched objects instead of listing them.'),
];

export const deleteParams = [
  dryRun,
  query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes immediately.'),
  query('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean', 'Delete an object whose stored data cannot be read; dangerous.'),
  query('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.'),
  query('propagationPolicy', 'string', 'Orphan, Background or Foreground: whether and how dependents are garbage-collected.'),
];
