// The naming controller's decision (upstream's calculateNamesAndConditions): which of a CRD's
// requested names it may have, given the names other CRDs of the same group already hold.
// A name already accepted stays; a new one in use elsewhere is refused with NamesAccepted
// False and the reason of the first conflict (PluralConflict, SingularConflict,
// ShortNamesConflict, KindConflict, ListKindConflict).
import type { KubeObject } from '../../api/object.js';
import type { CRDNames, CRDSpec } from '../../api/apiextensions/validation.js';
import type { CRDCondition } from '../registry/apiextensions/crds.js';

export interface NamesDecision {
  accepted: CRDNames;
  namesAccepted: CRDCondition;
}

const acceptedOf = (crd: KubeObject): CRDNames | undefined => (crd.status as { acceptedNames?: CRDNames } | undefined)?.acceptedNames;

export function decideNames(crd: KubeObject, others: KubeObject[]): NamesDecision {
  const spec = crd.spec as unknown as CRDSpec;
  const requested = spec.names;
  const current = acceptedOf(crd) ?? { plural: '', kind: '' };
  const taken = { plural: new Set<string>(), singular: new Set<string>(), shortNames: new Set<string>(), kind: new Set<string>(), listKind: new Set<string>() };
  for (const o of others) {
    if ((o.spec as unknown as CRDSpec).group !== spec.group || o.metadata.name === crd.metadata.name) continue;
    const n = acceptedOf(o);
    if (!n) continue;
    // Resource names and kinds share one space each: a plural may not be another's singular.
    for (const r of [n.plural, n.singular]) if (r) { taken.plural.add(r); taken.singular.add(r); taken.shortNames.add(r); }
    for (const s of n.shortNames ?? []) { taken.shortNames.add(s); taken.plural.add(s); taken.singular.add(s); }
    for (const k of [n.kind, n.listKind]) if (k) { taken.kind.add(k); taken.listKind.add(k); }
  }
  const accepted: CRDNames = { ...current, plural: current.plural, kind: current.kind };
  let failure: CRDCondition | undefined;
  const fail = (reason: string, message: string) => { failure ??= { type: 'NamesAccepted', status: 'False', reason, message }; };
  const one = (name: string | undefined, was: string | undefined, set: Set<string>): boolean => !name || name === was || !set.has(name);

  if (one(requested.plural, current.plural, taken.plural)) accepted.plural = requested.plural;
  else fail('PluralConflict', `"${requested.plural}" is already in use`);
  if (one(requested.singular, current.singular, taken.singular)) accepted.singular = requested.singular;
  else fail('SingularConflict', `"${requested.singular}" is already in use`);
  const shortConflict = (requested.shortNames ?? []).find((s) => !(current.shortNames ?? []).includes(s) && taken.shortNames.has(s));
  if (shortConflict === undefined) accepted.shortNames = requested.shortNames;
  else fail('ShortNamesConflict', `"${shortConflict}" is already in use`);
  if (one(requested.kind, current.kind, taken.kind)) accepted.kind = requested.kind;
  else fail('KindConflict', `"${requested.kind}" is already in use`);
  if (one(requested.listKind, current.listKind, taken.listKind)) accepted.listKind = requested.listKind;
  else fail('ListKindConflict', `"${requested.listKind}" is already in use`);
  accepted.categories = requested.categories;
  if (!accepted.shortNames?.length) delete accepted.shortNames;
  if (!accepted.categories?.length) delete accepted.categories;
  if (accepted.singular === undefined) delete accepted.singular;
  if (accepted.listKind === undefined) delete accepted.listKind;
  return { accepted, namesAccepted: failure ?? { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' } };
}
