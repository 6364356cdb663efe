// What a pod asks of a node, computed once per pod version: effective requests (regular
// containers and sidecars summed, each run-to-completion init container counted against
// that as a maximum, plus pod overhead), and the "non-zero" requests that scoring uses so
// pods without requests still spread (kube-scheduler's 100m CPU / 200Mi defaults).
import type { KubeObject } from '../api/object.js';
import { milliValue, value } from '../util/index.js';

export interface Resources {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Extended resources (example.com/gpu, hugepages-2Mi, ...) by name; undefined when none. */
  scalar?: Record<string, number>;
}

export const defaultMilliCPURequest = 100;
export const defaultMemoryRequest = 200 * 1024 * 1024;

export function emptyResources(): Resources {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0 };
}

type ResourceList = Record<string, string | number> | undefined;

function addList(into: Resources, list: ResourceList, sign = 1): void {
  if (!list) return;
  for (const [name, q] of Object.entries(list)) {
    if (name === 'cpu') into.milliCPU += sign * milliValue(q);
    else if (name === 'memory') into.memory += sign * value(q);
    else if (name === 'ephemeral-storage') into.ephemeralStorage += sign * value(q);
    else if (name !== 'pods') {
      into.scalar ??= {};
      into.scalar[name] = (into.scalar[name] ?? 0) + sign * value(q);
    }
  }
}

function maxInto(into: Resources, other: Resources): void {
  into.milliCPU = Math.max(into.milliCPU, other.milliCPU);
  into.memory = Math.max(into.memory, other.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, other.ephemeralStorage);
  for (const [k, v] of Object.entries(other.scalar ?? {})) {
    into.scalar ??= {};
    into.scalar[k] = Math.max(into.scalar[k] ?? 0, v);
  }
}

function plus(a: Resources, b: Resources): Resources {
  const out: Resources = { milliCPU: a.milliCPU + b.milliCPU, memory: a.memory + b.memory, ephemeralStorage: a.ephemeralStorage + b.ephemeralStorage };
  if (a.scalar || b.scalar) {
    out.scalar = { ...a.scalar };
    for (const [k, v] of Object.entries(b.scalar ?? {})) out.scalar[k] = (out.scalar[k] ?? 0) + v;
  }
  return out;
}

interface Container {
  resources?: { requests?: ResourceList; limits?: ResourceList };
  restartPolicy?: string;
}

/** Requests, falling back to limits per resource as API defaulting does. */
function containerRequests(c: Container, nonZero: boolean): Resources {
  const r = emptyResources();
  const requests = c.resources?.requests ?? {};
  const limits = c.resources?.limits ?? {};
  const merged: Record<string, string | number> = { ...limits, ...requests };
  addList(r, merged);
  if (nonZero) {
    if (merged.cpu === undefined) r.milliCPU = defaultMilliCPURequest;
    if (merged.memory === undefined) r.memory = defaultMemoryRequest;
  }
  return r;
}

/**
 * The pod's effective request. `nonZero` substitutes the scoring defaults for containers
 * that request no CPU or memory.
 */
export function podRequests(pod: KubeObject, nonZero = false): Resources {
  const spec = pod.spec ?? {};
  let sum = emptyResources();
  for (const c of (spec.containers ?? []) as Container[]) sum = plus(sum, containerRequests(c, nonZero));
  // Sidecars (init containers with restartPolicy Always) keep running beside the main
  // containers; an ordinary init container runs alone after the sidecars started before it.
  let sidecars = emptyResources();
  const initPeak = emptyResources();
  for (const c of (spec.initContainers ?? []) as Container[]) {
    const r = containerRequests(c, nonZero);
    if (c.restartPolicy === 'Always') {
      sidecars = plus(sidecars, r);
      maxInto(initPeak, sidecars);
    } else {
      maxInto(initPeak, plus(sidecars, r));
    }
  }
  const result = plus(sum, sidecars);
  maxInto(result, initPeak);
  if (spec.overhead) addList(result, spec.overhead);
  return result;
}
