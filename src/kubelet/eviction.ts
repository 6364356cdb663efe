// Node-pressure eviction, after upstream's eviction manager (hard thresholds only): every
// monitoring period the kubelet samples memory.available and nodefs.available (imagefs is the
// same filesystem here), reports MemoryPressure / DiskPressure on the Node, and while a
// threshold is crossed evicts one pod per period — BestEffort first, then Burstable, then
// Guaranteed (capsan has no per-pod usage yet: upstream ranks by usage above requests), lower
// priority first within a class. The evicted pod's containers are killed at once (grace 0,
// as for hard thresholds), its status becomes Failed / Evicted with upstream's message and a
// DisruptionTarget condition, and an `Evicted` event is recorded.
import { formatMilli } from '../api/core/pod-resources.js';
import { value } from '../util/index.js';
import { qosClass } from './pod-spec.js';
import type { PressureSample } from './machine.js';
import type { Pod } from '../api/kinds.js';

export const DEFAULT_EVICTION_HARD = 'memory.available<100Mi,nodefs.available<10%,imagefs.available<15%,nodefs.inodesFree<5%';

export type Signal = 'memory.available' | 'nodefs.available' | 'imagefs.available' | 'nodefs.inodesFree';

export interface Threshold {
  signal: Signal;
  /** Bytes, or a fraction of capacity. */
  quantity?: number;
  percentage?: number;
  /** As given (for messages). */
  text: string;
}

const SIGNALS = new Set<string>(['memory.available', 'nodefs.available', 'imagefs.available', 'nodefs.inodesFree']);

/** `--eviction-hard`: `signal<quantity|percent` pairs, comma-separated. */
export function parseThresholds(spec: string): Threshold[] {
  return spec.split(',').map((s) => s.trim()).filter(Boolean).map((part) => {
    const m = /^([a-zA-Z.]+)<(.+)$/.exec(part);
    if (!m || !SIGNALS.has(m[1])) throw new Error(`invalid eviction threshold ${JSON.stringify(part)}`);
    const signal = m[1] as Signal;
    if (m[2].endsWith('%')) {
      const pct = Number(m[2].slice(0, -1));
      if (!(pct >= 0 && pct <= 100)) throw new Error(`invalid eviction threshold percentage ${JSON.stringify(part)}`);
      return { signal, percentage: pct / 100, text: m[2] };
    }
    return { signal, quantity: value(m[2]), text: m[2] };
  });
}

export interface Crossing { threshold: Threshold; resource: 'memory' | 'ephemeral-storage'; available: number; thresholdBytes: number }

/** The thresholds the sample crosses (inodes are not sampled: never crossed). */
export function crossedThresholds(thresholds: Threshold[], s: PressureSample): Crossing[] {
  const out: Crossing[] = [];
  for (const t of thresholds) {
    let available: number, capacity: number, resource: Crossing['resource'];
    if (t.signal === 'memory.available') [available, capacity, resource] = [s.memoryAvailableBytes, s.memoryCapacityBytes ?? 0, 'memory'];
    else if (t.signal === 'nodefs.available' || t.signal === 'imagefs.available') [available, capacity, resource] = [s.diskAvailableBytes, s.diskSizeBytes, 'ephemeral-storage'];
    else continue;
    if (capacity <= 0 && t.percentage !== undefined) continue;
    const thresholdBytes = t.percentage !== undefined ? Math.floor(capacity * t.percentage) : t.quantity!;
    if (available < thresholdBytes) out.push({ threshold: t, resource, available, thresholdBytes });
  }
  return out;
}

const QOS_RANK = { BestEffort: 0, Burstable: 1, Guaranteed: 2 } as const;

/** Pods in the order they are evicted. */
export function rankForEviction(pods: Pod[]): Pod[] {
  return [...pods].sort((a, b) => QOS_RANK[qosClass(a)] - QOS_RANK[qosClass(b)] || (a.spec?.priority ?? 0) - (b.spec?.priority ?? 0));
}

const quantity = (bytes: number) => formatMilli(Math.max(0, Math.floor(bytes)) * 1000, true);

/** Upstream's eviction message (without its per-container usage lines: no usage stats here). */
export function evictionMessage(c: Crossing): string {
  const threshold = c.threshold.percentage !== undefined ? quantity(c.thresholdBytes) : c.threshold.text;
  return `The node was low on resource: ${c.resource}. Threshold quantity: ${threshold}, available: ${quantity(c.available)}. `;
}
