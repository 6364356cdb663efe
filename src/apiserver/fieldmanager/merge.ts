// Server-side apply's merge of an applied configuration into the live object
// (structured-merge-diff typed.Merge): structs and maps merge key by key, list-maps and sets
// merge item by item, leaves and atomic values take the configuration's value.
import type { Schema } from '../../api/schema.js';
import { FieldManagerError } from './errors.js';
import { getOwn, isObject, setOwn, type JsonObject } from '../../api/json.js';
import type { PathElement } from './path-element.js';
import { childSchema, itemElement, shapeOf, type Shape } from './typed.js';

/**
 * `undefined` means "absent". A null from the config clears a leaf. The result may share
 * structure with both inputs; callers clone it before handing it out.
 */
export function merge(live: unknown, config: unknown, schema: Schema | undefined): unknown {
  if (config === undefined) return live;
  const shape = shapeOf(schema, config === null ? live : config);
  if ((shape.kind === 'struct' || shape.kind === 'map') && (isObject(config) || (config === null && isObject(live)))) {
    return mergeMaps(isObject(live) ? live : {}, isObject(config) ? config : {}, shape);
  }
  if ((shape.kind === 'set' || shape.kind === 'listMap') && (Array.isArray(config) || (config === null && Array.isArray(live)))) {
    return mergeLists(Array.isArray(live) ? live : [], Array.isArray(config) ? config : [], shape);
  }
  return config === null ? undefined : structuredClone(config);
}

function mergeMaps(live: JsonObject, config: JsonObject, shape: Extract<Shape, { kind: 'struct' | 'map' }>): JsonObject {
  const out: JsonObject = { ...live };
  for (const [key, value] of Object.entries(config)) {
    const merged = merge(getOwn(live, key), value, childSchema(shape, key));
    if (merged === undefined) delete out[key];
    else setOwn(out, key, merged);
  }
  return out;
}

/**
 * Items of both lists in an order that keeps the live order of live items and the config
 * order of config items, interleaving them as structured-merge-diff does.
 */
function mergeLists(live: unknown[], config: unknown[], shape: Extract<Shape, { kind: 'set' | 'listMap' }>): unknown[] {
  const lhsPEs = live.map((item) => itemElement(shape, item));
  const rhsPEs = config.map((item) => itemElement(shape, item));
  const observedR = new Map<PathElement, unknown>();
  rhsPEs.forEach((pe, i) => {
    if (observedR.has(pe)) throw new FieldManagerError(`duplicate entries for key ${pe}`);
    observedR.set(pe, config[i]);
  });
  // A duplicated live item merges with nothing: the config's item replaces the duplicates.
  const observedL = new Map<PathElement, unknown>();
  lhsPEs.forEach((pe, i) => observedL.set(pe, observedL.has(pe) ? undefined : live[i]));

  const sharedOrder = rhsPEs.filter((pe) => observedL.has(pe));
  let nextShared = sharedOrder.shift();
  const mergedR = new Set<PathElement>();
  const out: unknown[] = [];
  const emit = (l: unknown, r: unknown) => {
    const v = merge(l, r, shape.items);
    if (v !== undefined) out.push(v);
  };

  let lI = 0;
  let rI = 0;
  while (lI < lhsPEs.length || rI < rhsPEs.length) {
    if (lI < lhsPEs.length && rI < rhsPEs.length) {
      const pe = lhsPEs[lI]!;
      if (pe === rhsPEs[rI]) {
        mergedR.add(pe);
        emit(observedL.get(pe), observedR.get(pe));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (observedR.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < lhsPEs.length) {
      const pe = lhsPEs[lI]!;
      if (!observedR.has(pe)) {
        emit(live[lI], undefined);
        lI++;
        continue;
      }
      if (mergedR.has(pe)) lI++;
    }
    if (rI < rhsPEs.length) {
      const pe = rhsPEs[rI]!;
      mergedR.add(pe);
      emit(observedL.get(pe), observedR.get(pe));
      rI++;
      if (nextShared === pe) nextShared = sharedOrder.shift();
    }
  }
  return out;
}
