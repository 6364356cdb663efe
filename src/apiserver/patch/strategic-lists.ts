// List handling for strategic merge patch: element-wise merge by key, union of scalars,
// `$patch` elements, and the `$setElementOrder/<field>` directive.
import type { ArraySchema } from '../../api/schema.js';
import { PatchError } from './errors.js';
import { deepEqual, describe, isObject, type JsonObject } from '../../api/json.js';
import { materialize, mergeMap, PATCH_DIRECTIVE } from './strategic-merge-patch.js';
import { mergesAsList } from './strategic-schema.js';
import { indexIn, normalizeElementOrder, partition, type KeyOf } from './strategic-order.js';

function keyFunction(schema: ArraySchema | undefined): KeyOf {
  const mergeKey = schema?.patchMergeKey;
  return mergeKey ? (item) => (isObject(item) ? item[mergeKey] : item) : (item) => item;
}

/** A list field present in both the live object and the patch. */
export function mergeListField(original: unknown[], patch: unknown[], schema: ArraySchema | undefined): unknown[] {
  if (!schema || !mergesAsList(schema)) return materialize(patch, schema) as unknown[];
  return mergeList(original, patch, schema);
}

function elementKind(original: unknown[], patch: unknown[]): 'maps' | 'scalars' | 'empty' {
  const all = [...original, ...patch];
  if (all.length === 0) return 'empty';
  if (all.some(Array.isArray)) throw PatchError.unprocessable('lists of lists cannot be merged');
  const maps = all.filter(isObject).length;
  if (maps === all.length) return 'maps';
  if (maps === 0) return 'scalars';
  throw PatchError.badRequest(`list elements of mismatched types: ${describe(patch)}`);
}

function mergeList(original: unknown[], patch: unknown[], schema: ArraySchema): unknown[] {
  const kind = elementKind(original, patch);
  if (kind === 'empty') return [];
  if (kind === 'scalars') {
    const merged: unknown[] = [];
    for (const v of [...original, ...patch]) if (!merged.some((m) => deepEqual(m, v))) merged.push(v);
    const keyOf: KeyOf = (item) => item;
    const [patchItems, serverOnly] = partition(merged, patch, keyOf);
    return normalizeElementOrder(patchItems, serverOnly, patch, original, keyOf);
  }
  const mergeKey = schema.patchMergeKey;
  if (!mergeKey) throw PatchError.badRequest('cannot merge a list of objects that has no merge key');
  return mergeListOfMaps(original as JsonObject[], patch as JsonObject[], schema, mergeKey);
}

function mergeListOfMaps(original: JsonObject[], patch: JsonObject[], schema: ArraySchema, mergeKey: string): unknown[] {
  const keyOf = keyFunction(schema);
  let live: unknown[] = original;
  let replace = false;
  const regular: JsonObject[] = [];
  for (const element of patch) {
    const directive = element[PATCH_DIRECTIVE];
    if (directive === undefined) {
      if (!Object.hasOwn(element, mergeKey)) throw PatchError.badRequest(`list element ${describe(element)} has no merge key "${mergeKey}"`);
      regular.push(element);
    } else if (directive === 'delete') {
      if (!Object.hasOwn(element, mergeKey)) throw PatchError.badRequest(`$patch: delete element ${describe(element)} has no merge key "${mergeKey}"`);
      live = live.filter((x) => !deepEqual(keyOf(x), element[mergeKey]));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive !== 'merge') {
      throw PatchError.badRequest(`unknown $patch directive ${describe(directive)} in a list`);
    }
  }
  if (replace) return regular.map((e) => materialize(e, schema.items));

  const merged = [...live];
  for (const element of regular) {
    const at = indexIn(merged, element, keyOf);
    if (at >= 0) merged[at] = mergeMap(merged[at] as JsonObject, element, schema.items);
    else merged.push(materialize(element, schema.items));
  }
  const [patchItems, serverOnly] = partition(merged, regular, keyOf);
  return normalizeElementOrder(patchItems, serverOnly, regular, live, keyOf);
}

/**
 * `$setElementOrder/<field>`: merges the field's list (if the patch has one) and then orders
 * it: the listed elements in the given order, live-only elements placed among them by their
 * live position. Returns undefined when neither side has the list.
 */
export function mergeWithElementOrder(
  original: unknown,
  patchList: unknown,
  order: unknown,
  schema: ArraySchema | undefined,
): unknown[] | undefined {
  if (!Array.isArray(order)) throw PatchError.badRequest('$setElementOrder must be a list');
  if (patchList !== undefined && !Array.isArray(patchList)) throw PatchError.badRequest('a list with $setElementOrder must be a list');
  const live = Array.isArray(original) ? original : undefined;
  const keyOf = keyFunction(schema);
  if (patchList) checkOrderCoversPatch(patchList, order, schema?.patchMergeKey);

  let merged: unknown[];
  if (live && patchList) merged = mergeListField(live, patchList, schema);
  else if (patchList) merged = materialize(patchList, schema) as unknown[];
  else if (live) merged = live;
  else return undefined;

  const [listed, serverOnly] = partition(merged, order, keyOf);
  return normalizeElementOrder(listed, serverOnly, order, live ?? [], keyOf);
}

/** The patch's own elements must appear in `$setElementOrder`, in the same relative order. */
function checkOrderCoversPatch(patchList: unknown[], order: unknown[], mergeKey: string | undefined): void {
  const keyOf: KeyOf = (item) => {
    if (!mergeKey) return item;
    if (!isObject(item) || !Object.hasOwn(item, mergeKey)) throw PatchError.badRequest(`$setElementOrder element ${describe(item)} has no merge key "${mergeKey}"`);
    return item[mergeKey];
  };
  const elements = patchList.filter((e) => !(isObject(e) && Object.hasOwn(e, PATCH_DIRECTIVE)));
  let o = 0;
  for (const element of elements) {
    const key = keyOf(element);
    while (o < order.length && !deepEqual(keyOf(order[o]), key)) o++;
    if (o === order.length) throw PatchError.badRequest(`the order of the patch list ${describe(patchList)} does not match $setElementOrder ${describe(order)}`);
    o++;
  }
}
