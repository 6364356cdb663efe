// Node-pressure eviction, after upstream's eviction manager: every monitoring period the
// kubelet samples memory.available and nodefs.available (imagefs is the same filesystem here),
// reports MemoryPressure / DiskPressure on the Node while any threshold is crossed, and evicts
// one pod per period while a hard threshold is crossed or a soft one has stayed crossed for
// its grace period. For memory the pods are ranked as upstream does — those using more than
// they request first, then lower priority, then the larger usage above request; without
// usage figures (disk) BestEffort, Burstable, Guaranteed, lower priority first. A hard
// eviction kills at once (grace 0), a soft one with the pod's grace period capped at
// --eviction-max-pod-grace-period; the status becomes Failed / Evicted with upstream's
// message and a DisruptionTarget condition, and an `Evicted` event is recorded.
import { formatMilli, podRequests } from '../api/core/pod-resources.js';
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
  /** A soft threshold's grace period (--eviction-soft-grace-period); hard ones have none. */
  gracePeriodMs?: number;
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

/** `--eviction-soft` with `--eviction-soft-grace-period` (`signal=duration` pairs): each soft threshold needs its grace period. */
export function parseSoftThresholds(spec: string, gracePeriods: string, parseDuration: (s: string) => number): Threshold[] {
  const periods = new Map<string, number>();
  for (const part of gracePeriods.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([a-zA-Z.]+)=(.+)$/.exec(part);
    if (!m || !SIGNALS.has(m[1])) throw new Error(`invalid eviction grace period ${JSON.stringify(part)}`);
    periods.set(m[1], parseDuration(m[2]));
  }
  return parseThresholds(spec).map((t) => {
    const grace = periods.get(t.signal);
    if (grace === undefined) throw new Error(`grace period must be specified for the soft eviction threshold ${t.signal}`);
    return { ...t, gracePeriodMs: grace };
  });
}

/** When each crossed threshold was first seen crossed, to hold soft ones for their grace period. */
export class ThresholdTracker {
  private firstObserved = new Map<Threshold, number>();

  /** The crossings that may evict now: hard at once, soft once crossed for their grace period. */
  met(crossings: Crossing[], now: number): Crossing[] {
    const crossed = new Set(crossings.map((c) => c.threshold));
    for (const t of this.firstObserved.keys()) if (!crossed.has(t)) this.firstObserved.delete(t);
    for (const t of crossed) if (!this.firstObserved.has(t)) this.firstObserved.set(t, now);
    return crossings.filter((c) => now - this.firstObserved.get(c.threshold)! >= (c.threshold.gracePeriodMs ?? 0));
  }
}

/** The grace period an evicted pod gets: none for a hard threshold; for a soft one its own, at most `maxPodGraceSeconds`. */
export function evictionGrace(pod: Pod, threshold: Threshold, maxPodGraceSeconds: number): number {
  if (threshold.gracePeriodMs === undefined) return 0;
  const own = pod.spec?.terminationGracePeriodSeconds ?? 30;
  return Math.max(0, Math.min(own, maxPodGraceSeconds));
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

/** A pod's memory request in bytes. */
export const memoryRequest = (pod: Pod) => (podRequests(pod.spec).get('memory') ?? 0) / 1000;

/** Pods in the order they are evicted; with each pod's memory usage (bytes by uid) as upstream ranks memory. */
export function rankForEviction(pods: Pod[], memoryUsage?: Map<string, number>): Pod[] {
  const priority = (p: Pod) => p.spec?.priority ?? 0;
  if (!memoryUsage) return [...pods].sort((a, b) => QOS_RANK[qosClass(a)] - QOS_RANK[qosClass(b)] || priority(a) - priority(b));
  const above = (p: Pod) => (memoryUsage.get(p.metadata.uid as string) ?? 0) - memoryRequest(p);
  return [...pods].sort((a, b) => Number(above(b) > 0) - Number(above(a) > 0) || priority(a) - priority(b) || above(b) - above(a));
}

const quantity = (bytes: number) => formatMilli(Math.max(0, Math.floor(bytes)) * 1000, true);

export interface ContainerUsage { name: string; usageBytes: number; requestBytes: number }

/** Upstream's eviction message, with a sentence for each container using more memory than it requests. */
export function evictionMessage(c: Crossing, containers: ContainerUsage[] = []): string {
  const threshold = c.threshold.percentage !== undefined ? quantity(c.thresholdBytes) : c.threshold.text;
  let out = `The node was low on resource: ${c.resource}. Threshold quantity: ${threshold}, available: ${quantity(c.available)}. `;
  if (c.resource !== 'memory') return out;
  for (const u of containers) {
    if (u.usageBytes > u.requestBytes) out += `Container ${u.name} was using ${quantity(u.usageBytes)}, request is ${quantity(u.requestBytes)}, has larger consumption of memory. `;
  }
  return out;
}
