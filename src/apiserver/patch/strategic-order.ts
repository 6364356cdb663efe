// Element order after merging a list, as Kubernetes computes it (strategicpatch
// normalizeElementOrder / mergeSortedSlice): items named by the patch (or by
// `$setElementOrder`) take the patch's order, items only on the server keep the live order,
// and the two runs are interleaved using the live order where both items are known. An item
// new to the live list is emitted as soon as it comes up, so without `$setElementOrder` new
// items land before the server-only ones.
import { deepEqual } from '../../api/json.js';

/** The identity of a list element: its merge key value for maps, itself for scalars. */
export type KeyOf = (item: unknown) => unknown;

export function indexIn(list: readonly unknown[], item: unknown, keyOf: KeyOf): number {
  const key = keyOf(item);
  return list.findIndex((x) => deepEqual(keyOf(x), key));
}

function sortBy(items: unknown[], order: readonly unknown[], keyOf: KeyOf): unknown[] {
  return items
    .map((item, i) => ({ item, i, at: indexIn(order, item, keyOf) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
    .map((x) => x.item);
}

export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  keyOf: KeyOf,
): unknown[] {
  const right = sortBy(patchItems, patchOrder, keyOf);
  const left = sortBy(serverOnly, serverOrder, keyOf);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = indexIn(serverOrder, left[i], keyOf);
      const ri = indexIn(serverOrder, right[j], keyOf);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Splits `items` into those present in `by` and the rest, keeping their order. */
export function partition(items: readonly unknown[], by: readonly unknown[], keyOf: KeyOf): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) (indexIn(by, item, keyOf) >= 0 ? present : absent).push(item);
  return [present, absent];
}
