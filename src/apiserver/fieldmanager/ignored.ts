// Fields that no manager owns. The server sets them (identity, bookkeeping) or they belong
// to another subresource, whose writes Kubernetes resets: a write to the main resource (or
// to scale) never changes status, a write to status changes nothing but status.
//
// Excluded everywhere: apiVersion, kind, metadata.{name, namespace, uid, resourceVersion,
// generation, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, selfLink,
// managedFields}, and `metadata` itself as a whole (its fields are still owned one by one).
// Excluded outside the status subresource: status. On status: everything but status.
import { FieldSet } from './field-set.js';
import { fieldElement, type Path } from './path-element.js';

const f = fieldElement;
const SERVER_SET_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
  'managedFields',
];

const alwaysIgnored = FieldSet.of([f('apiVersion')], [f('kind')], ...SERVER_SET_METADATA.map((n): Path => [f('metadata'), f(n)]));
const mainIgnored = alwaysIgnored.union(FieldSet.of([f('status')]));

export function withoutIgnoredFields(set: FieldSet, subresource: string | undefined): FieldSet {
  if (subresource === 'status') {
    const status = set.under(f('status'));
    const out = new FieldSet();
    if (set.members.has(f('status'))) out.insert([f('status')]);
    return out.union(prefixed(f('status'), status));
  }
  const out = set.withoutSubtrees(mainIgnored);
  out.members.delete(f('metadata'));
  return out;
}

function prefixed(pe: string, set: FieldSet): FieldSet {
  const out = new FieldSet();
  if (!set.isEmpty()) out.children.set(pe, set);
  return out;
}
