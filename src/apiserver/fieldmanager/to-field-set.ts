// The set of fields a value specifies (structured-merge-diff typed.ToFieldSet): every leaf,
// every list item (also as a whole), every map key, and struct fields that are null or
// empty. Struct fields with content are implied by their children.
import type { Schema } from '../../api/schema.js';
import { FieldManagerError } from './errors.js';
import { FieldSet } from './field-set.js';
import { isEmptyValue, isObject } from '../../api/json.js';
import { fieldElement, type Path, type PathElement } from './path-element.js';
import { childSchema, isNamedField, itemElement, shapeOf } from './typed.js';

/**
 * `strict` (for applied configurations) rejects duplicate list-map/set entries with
 * FieldManagerError; otherwise (live objects) duplicates are owned as a whole, unexplored.
 */
export function toFieldSet(value: unknown, schema: Schema | undefined, strict = false): FieldSet {
  const set = new FieldSet();
  walk(value, schema, [], set, strict);
  return set;
}

function walk(value: unknown, schema: Schema | undefined, path: Path, set: FieldSet, strict: boolean): void {
  const shape = shapeOf(schema, value);
  switch (shape.kind) {
    case 'leaf':
      set.insert(path);
      return;
    case 'struct':
    case 'map':
      if (!isObject(value)) return;
      for (const [key, v] of Object.entries(value)) {
        if (v === undefined) continue;
        const childPath = [...path, fieldElement(key)];
        walk(v, childSchema(shape, key), childPath, set, strict);
        if (isEmptyValue(v) && !Array.isArray(v)) set.insert(childPath);
        else if (!isNamedField(shape, key)) set.insert(childPath);
      }
      return;
    case 'set':
    case 'listMap': {
      if (!Array.isArray(value)) return;
      const elements = value.map((item) => itemElement(shape, item));
      const seen = new Set<PathElement>();
      const duplicated = new Set<PathElement>();
      for (const pe of elements) {
        if (seen.has(pe)) {
          if (strict) throw new FieldManagerError(`duplicate entries for key ${pe}`);
          duplicated.add(pe);
        }
        seen.add(pe);
      }
      value.forEach((item, i) => {
        const pe = elements[i]!;
        const itemPath = [...path, pe];
        if (!duplicated.has(pe)) walk(item, shape.items, itemPath, set, strict);
        set.insert(itemPath);
      });
    }
  }
}
