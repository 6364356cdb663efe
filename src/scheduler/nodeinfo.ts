// One node as the scheduler sees it: its spec/status in the shapes filters read, and the
// running totals of what pods assigned or assumed there request, kept incrementally so a
// scheduling decision never re-adds a node's pods.
import type { PodInfo } from './podinfo.js';
import { emptyResources, type Resources } from './resources.js';
import { milliValue, value } from '../util/index.js';
import type { Node } from '../api/kinds.js';
import { domainsOf } from './topology.js';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export const taintNotReady = 'node.kubernetes.io/not-ready';
export const taintUnreachable = 'node.kubernetes.io/unreachable';
export const taintUnschedulable = 'node.kubernetes.io/unschedulable';
export const zoneLabels = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];
export const regionLabels = ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'];

// Zones as small integers, so per-pod zone tallies are array slots rather than map entries.
const zoneIds = new Map<string, number>();
export function zoneCount(): number {
  return zoneIds.size;
}
function zoneId(zone: string): number {
  if (!zone) return -1;
  let id = zoneIds.get(zone);
  if (id === undefined) zoneIds.set(zone, (id = zoneIds.size));
  return id;
}

export interface Allocatable extends Resources {
  pods: number;
}

function parseAllocatable(list: Record<string, string> | undefined): Allocatable {
  const a: Allocatable = { ...emptyResources(), pods: 0 };
  for (const [name, q] of Object.entries(list ?? {})) {
    try {
      if (name === 'cpu') a.milliCPU = milliValue(q);
      else if (name === 'memory') a.memory = value(q);
      else if (name === 'ephemeral-storage') a.ephemeralStorage = value(q);
      else if (name === 'pods') a.pods = value(q);
      else (a.scalar ??= {})[name] = value(q);
    } catch { /* a malformed quantity offers nothing */ }
  }
  return a;
}

function addScalar(into: Resources, from: Resources, sign: number): void {
  if (!from.scalar) return;
  into.scalar ??= {};
  for (const [k, v] of Object.entries(from.scalar)) into.scalar[k] = (into.scalar[k] ?? 0) + sign * v;
}

export class NodeInfo {
  node?: Node;
  labels: Record<string, string> = {};
  /** Per topology key id, the domain id of this node's value (see topology.ts); -1 or past the end: no such label. */
  domains: Int32Array = new Int32Array(0);
  taints: Taint[] = [];
  unschedulable = false;
  /** "region:zone" when the node is labelled with a zone, else "". */
  zone = '';
  /** The zone as an index below zoneCount(), or -1. */
  zoneId = -1;
  allocatable: Allocatable = { ...emptyResources(), pods: 0 };
  readonly requested: Resources = emptyResources();
  readonly nonZeroRequested: Resources = emptyResources();
  readonly pods = new Map<string, PodInfo>();
  /** "TCP/8080" → host IP → pods using it. */
  readonly usedPorts = new Map<string, Map<string, number>>();
  /** Pods here per controlling owner UID. */
  readonly ownerCounts = new Map<string, number>();
  /**
   * Pending pods nominated to this node by preemption: their requests are held for them
   * against pods of no higher priority, so the room preemption made is not taken by others.
   */
  readonly nominated = new Map<string, PodInfo>();
  // allocatable − requested, kept current so the fit check reads four fields of this
  // object instead of chasing two nested ones per resource (it runs for every node tried).
  freeMilliCPU = 0;
  freeMemory = 0;
  freeEphemeralStorage = 0;
  freePods = 0;
  // The same for the scorers: allocatable, requested and non-zero requested CPU and memory.
  allocMilliCPU = 0;
  allocMemory = 0;
  reqMilliCPU = 0;
  reqMemory = 0;
  nonZeroMilliCPU = 0;
  nonZeroMemory = 0;
  /**
   * Scratch for a scorer: this node's index in the list being scored, valid only while
   * `list[scoreSlot] === this` (lets a scorer go from a node to its slot without a Map).
   */
  scoreSlot = -1;

  constructor(readonly name: string) {}

  setNode(node: Node | undefined): void {
    this.node = node;
    if (!node) return;
    this.labels = node.metadata.labels ?? {};
    this.domains = domainsOf(this.labels);
    this.unschedulable = !!node.spec?.unschedulable;
    this.allocatable = parseAllocatable(node.status?.allocatable ?? node.status?.capacity);
    const taints = [...((node.spec?.taints ?? []) as Taint[])];
    // A node that is not Ready is treated as carrying the taint the node lifecycle controller
    // would give it, so pods that tolerate it (DaemonSets) still land there.
    const ready = ((node.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === 'Ready');
    const implied = ready?.status === 'True' ? undefined : ready?.status === 'False' ? taintNotReady : taintUnreachable;
    if (implied && !taints.some((t) => t.key === implied && t.effect === 'NoSchedule')) taints.push({ key: implied, effect: 'NoSchedule' });
    this.taints = taints;
    const zone = zoneLabels.map((l) => this.labels[l]).find(Boolean) ?? '';
    const region = regionLabels.map((l) => this.labels[l]).find(Boolean) ?? '';
    this.zone = zone || region ? `${region}:${zone}` : '';
    this.zoneId = zoneId(this.zone);
    this.updateFree();
  }

  private updateFree(): void {
    this.freeMilliCPU = this.allocatable.milliCPU - this.requested.milliCPU;
    this.freeMemory = this.allocatable.memory - this.requested.memory;
    this.freeEphemeralStorage = this.allocatable.ephemeralStorage - this.requested.ephemeralStorage;
    this.freePods = this.allocatable.pods - this.pods.size;
    this.allocMilliCPU = this.allocatable.milliCPU;
    this.allocMemory = this.allocatable.memory;
    this.reqMilliCPU = this.requested.milliCPU;
    this.reqMemory = this.requested.memory;
    this.nonZeroMilliCPU = this.nonZeroRequested.milliCPU;
    this.nonZeroMemory = this.nonZeroRequested.memory;
  }

  addPod(p: PodInfo): void {
    this.pods.set(p.uid, p);
    this.account(p, 1);
    this.updateFree();
  }

  removePod(p: PodInfo): void {
    if (!this.pods.delete(p.uid)) return;
    this.account(p, -1);
    this.updateFree();
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    const r = this.requested, n = this.nonZeroRequested;
    r.milliCPU += sign * p.requests.milliCPU;
    r.memory += sign * p.requests.memory;
    r.ephemeralStorage += sign * p.requests.ephemeralStorage;
    addScalar(r, p.requests, sign);
    n.milliCPU += sign * p.nonZero.milliCPU;
    n.memory += sign * p.nonZero.memory;
    for (const hp of p.hostPorts) {
      const k = `${hp.protocol}/${hp.port}`;
      let ips = this.usedPorts.get(k);
      if (!ips) this.usedPorts.set(k, (ips = new Map()));
      const c = (ips.get(hp.ip) ?? 0) + sign;
      if (c > 0) ips.set(hp.ip, c);
      else ips.delete(hp.ip);
      if (!ips.size) this.usedPorts.delete(k);
    }
    if (p.ownerUID) {
      const c = (this.ownerCounts.get(p.ownerUID) ?? 0) + sign;
      if (c > 0) this.ownerCounts.set(p.ownerUID, c);
      else this.ownerCounts.delete(p.ownerUID);
    }
  }
}
