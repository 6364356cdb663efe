// The authorization attributes of a request (k8s.io/apiserver's AttributesRecord built by
// RequestInfoFactory, with AuthorizeWithSelectors): its request info, and for list, watch and
// deletecollection the field and label selectors it carries, parsed, so an authorizer may
// allow a narrower request (the Node authorizer lets a kubelet list only its own pods). A
// list or watch whose field selector requires metadata.name=X is authorized as naming X.
// A selector that does not parse limits nothing: the request is authorized as unlimited.
import { parseFieldSelector, parseSelector, type FieldRequirement, type Selector } from '../../api/labels.js';
import type { RequestInfo } from '../request-info.js';
import type { Attributes } from './index.js';

const SELECTABLE_VERBS = new Set(['list', 'watch', 'deletecollection']);

/** Parsed, or undefined when absent or not parseable (no limit). */
export function fieldRequirements(raw: string | null | undefined): FieldRequirement[] | undefined {
  if (!raw) return undefined;
  try { return parseFieldSelector(raw); } catch { return undefined; }
}

export function labelRequirements(raw: string | null | undefined): Selector | undefined {
  if (!raw) return undefined;
  try { return parseSelector(raw); } catch { return undefined; }
}

/** The value a field selector requires `field` to equal exactly, as fields.RequiresExactMatch. */
export function exactMatch(reqs: FieldRequirement[] | undefined, field: string): string | undefined {
  return reqs?.find((r) => r.field === field && r.op === '=')?.value;
}

/** A path segment name (apimachinery's IsValidPathSegmentName). */
const pathSegment = (s: string) => s !== '.' && s !== '..' && !s.includes('/') && !s.includes('%');

export function requestAttributes(info: RequestInfo, query: URLSearchParams): Attributes {
  if (!info.isResourceRequest || !SELECTABLE_VERBS.has(info.verb)) return info;
  const fieldSelector = fieldRequirements(query.get('fieldSelector'));
  const labelSelector = labelRequirements(query.get('labelSelector'));
  if (!fieldSelector && !labelSelector) return info;
  let name = info.name;
  if (!name && info.verb !== 'deletecollection') {
    const exact = exactMatch(fieldSelector, 'metadata.name');
    if (exact && pathSegment(exact)) name = exact;
  }
  return { ...info, name, fieldSelector, labelSelector };
}
