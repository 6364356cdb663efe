// After an apply, fields the manager applied last time but not this time are removed from
// the object, unless some manager (the applier's new set included) still owns them
// (structured-merge-diff Updater.prune). A struct field counts as owned or applied when any
// field below it is (fieldpath EnsureNamedFieldsAreMembers); a list item or map key only
// when it is itself in the set, so a list item an applier drops disappears even if another
// manager changed one of its fields.
import type { Schema } from '../../api/schema.js';
import type { FieldSet } from './field-set.js';
import { isEmptyValue, isObject, setOwn, type JsonObject } from '../../api/json.js';
import { fieldElement, type PathElement } from './path-element.js';
import { childSchema, isNamedField, itemElement, shapeOf } from './typed.js';

export function prune(value: unknown, schema: Schema | undefined, lastApplied: FieldSet, owned: FieldSet): unknown {
  const shape = shapeOf(schema, value);
  const holds = (set: FieldSet, pe: PathElement, named: boolean) => set.members.has(pe) || (named && set.children.has(pe));

  if ((shape.kind === 'struct' || shape.kind === 'map') && isObject(value)) {
    const out: JsonObject = {};
    for (const [key, v] of Object.entries(value)) {
      const pe = fieldElement(key);
      const named = isNamedField(shape, key);
      if (holds(lastApplied, pe, named) && !holds(owned, pe, named)) continue;
      if (!lastApplied.children.has(pe)) {
        setOwn(out, key, v);
        continue;
      }
      const child = childSchema(shape, key);
      const pruned = prune(v, child, lastApplied.under(pe), owned.under(pe));
      // A map or list emptied by pruning goes away; an emptied struct stays as {}.
      if (isEmptyValue(pruned) && !isEmptyValue(v) && shapeOf(child, v).kind !== 'struct') continue;
      setOwn(out, key, pruned);
    }
    return out;
  }
  if ((shape.kind === 'set' || shape.kind === 'listMap') && Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const pe = itemElement(shape, item);
      if (holds(lastApplied, pe, false) && !holds(owned, pe, false)) continue;
      out.push(lastApplied.children.has(pe) ? prune(item, shape.items, lastApplied.under(pe), owned.under(pe)) : item);
    }
    return out;
  }
  return value;
}
