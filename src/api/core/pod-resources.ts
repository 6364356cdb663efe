// What a pod asks for as a whole, after upstream's resourcehelper.PodRequests/PodLimits: the
// larger of its containers' sum and its largest init container, plus its overhead. Values
// are thousandths (millicores for CPU, milli-bytes for memory) so sums stay exact integers.
import type { Fields } from '../object.js';
import { milliValue } from '../../util/quantity.js';

export type ResourceAmounts = Map<string, number>;

function amounts(list: unknown): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const [k, v] of Object.entries((list ?? {}) as Record<string, unknown>)) out.set(k, milliValue(v, 0));
  return out;
}

function addInto(into: ResourceAmounts, from: ResourceAmounts): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

function maxInto(into: ResourceAmounts, from: ResourceAmounts): void {
  for (const [k, v] of from) if (v > (into.get(k) ?? 0)) into.set(k, v);
}

function podAmounts(spec: Fields | undefined, field: 'requests' | 'limits'): ResourceAmounts {
  const total: ResourceAmounts = new Map();
  for (const c of (spec?.containers ?? []) as Fields[]) addInto(total, amounts(c.resources?.[field]));
  // Sidecars (restartable init containers) run beside what starts after them.
  const sidecars: ResourceAmounts = new Map();
  const init: ResourceAmounts = new Map();
  for (const c of (spec?.initContainers ?? []) as Fields[]) {
    const own = amounts(c.resources?.[field]);
    if (c.restartPolicy === 'Always') {
      addInto(sidecars, own);
      continue;
    }
    const withSidecars = new Map(sidecars);
    addInto(withSidecars, own);
    maxInto(init, withSidecars);
  }
  addInto(total, sidecars);
  maxInto(total, init);
  if (spec?.overhead) addInto(total, amounts(spec.overhead));
  return total;
}

export const podRequests = (spec: Fields | undefined): ResourceAmounts => podAmounts(spec, 'requests');
export const podLimits = (spec: Fields | undefined): ResourceAmounts => podAmounts(spec, 'limits');

/** A thousandths amount as a quantity string: `250m`, `2`, `128Mi` (binary for bytes), `1G`. */
export function formatMilli(milli: number, bytes = false): string {
  if (milli % 1000 !== 0) return `${milli}m`;
  const v = milli / 1000;
  if (v === 0) return '0';
  if (bytes) {
    for (const [suffix, n] of [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) {
      if (v % n === 0) return `${v / n}${suffix}`;
    }
    for (const [suffix, n] of [['E', 1e18], ['P', 1e15], ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]] as const) {
      if (v % n === 0) return `${v / n}${suffix}`;
    }
  }
  return String(v);
}

/** Whether a resource name counts bytes (memory, storage), which print with binary suffixes. */
export const isByteResource = (name: string): boolean => /memory|storage/.test(name);
