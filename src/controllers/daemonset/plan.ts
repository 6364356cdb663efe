// What one DaemonSet sync does, as pure functions over nodes and the pods on them, after
// upstream's manage (podsShouldBeOnNode) and rollingUpdate: create a pod where one belongs and
// none runs, delete pods that must go (misscheduled, failed, extras), and replace pods of old
// revisions — deleting up to maxUnavailable at a time, or with maxSurge starting the new pod
// first and deleting the old one once the new one is available.
import type { DaemonSet, Node, Pod } from '../../api/kinds.js';
import { resolveIntOrPercent } from '../deployment/util.js';
import { isPodAvailable, isPodReady } from '../replicaset/pod-util.js';
import { revisionHashLabel } from '../history/revisions.js';
import { placement } from './predicates.js';

export interface Plan {
  /** Nodes to create a daemon pod on. */
  create: string[];
  delete: Pod[];
  /** Failed pods among `delete` (reported as FailedDaemonPod). */
  failed: Pod[];
}

const created = (p: Pod) => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
const oldestFirst = (a: Pod, b: Pod) => created(a) - created(b) || String(a.metadata.name).localeCompare(String(b.metadata.name));
export const isUpdated = (pod: Pod, hash: string): boolean => pod.metadata.labels?.[revisionHashLabel] === hash;

/** [maxSurge, maxUnavailable] against the number of nodes that should run the pod (both round up). */
export function surgeAndUnavailable(ds: DaemonSet, desired: number): [number, number] {
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  const surge = resolveIntOrPercent(ru?.maxSurge ?? 0, desired, true);
  let unavailable = resolveIntOrPercent(ru?.maxUnavailable ?? 1, desired, true);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

/** manage: the pods each node should have, whatever their revision. */
function manage(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string, allowSurge: boolean, now: number): Plan {
  const plan: Plan = { create: [], delete: [], failed: [] };
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const name = node.metadata.name as string;
    const { shouldRun, shouldContinueRunning } = placement(ds.spec?.template?.spec, node);
    const all = byNode.get(name) ?? [];
    const pods = all.filter((p) => !p.metadata.deletionTimestamp);
    if (!shouldContinueRunning) { plan.delete.push(...pods); continue; }
    if (!shouldRun && !pods.length) continue;
    // A pod still terminating holds the node (its ports, its files) until it is gone.
    const terminating = pods.length < all.length;
    const running: Pod[] = [];
    for (const p of pods) {
      if (p.status?.phase === 'Failed') { plan.delete.push(p); plan.failed.push(p); } else running.push(p);
    }
    if (!running.length) {
      if (shouldRun && !terminating && running.length === pods.length) plan.create.push(name);
      continue;
    }
    if (running.length === 1) continue;
    running.sort(oldestFirst);
    if (!allowSurge) { plan.delete.push(...running.slice(1)); continue; }
    // With surge, two pods may share a node while the newest revision's pod is not yet available
    // and an old one still is; everything else goes.
    const newest = running.find((p) => isUpdated(p, hash));
    const keep = new Set<Pod>();
    if (newest) {
      keep.add(newest);
      const oldReady = running.find((p) => !isUpdated(p, hash) && isPodReady(p));
      if (!isPodAvailable(newest, minReady, now) && oldReady) keep.add(oldReady);
    } else keep.add(running[0]);
    plan.delete.push(...running.filter((p) => !keep.has(p)));
  }
  return plan;
}

/** The node's one new and one old pod; ok false when there are more (manage sorts that out first). */
function newAndOld(pods: Pod[], hash: string): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  let newPod: Pod | undefined, oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (isUpdated(p, hash)) { if (newPod) return { ok: false }; newPod = p; } else { if (oldPod) return { ok: false }; oldPod = p; }
  }
  return { newPod, oldPod, ok: true };
}

/** rollingUpdate: which old pods to delete and which nodes get a surge pod now. */
function rollingUpdate(ds: DaemonSet, eligible: string[], byNode: Map<string, Pod[]>, hash: string, now: number): { create: string[]; delete: Pod[] } {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod) => isPodAvailable(p, minReady, now);
  const [maxSurge, maxUnavailable] = surgeAndUnavailable(ds, eligible.length);
  if (maxSurge === 0) {
    let unavailable = 0;
    const replaceNow: Pod[] = [], candidates: Pod[] = [];
    for (const node of eligible) {
      const { newPod, oldPod, ok } = newAndOld(byNode.get(node) ?? [], hash);
      if (!ok || (!newPod && !oldPod) || (newPod && oldPod)) { unavailable++; continue; }
      if (newPod) { if (!available(newPod)) unavailable++; continue; }
      if (!available(oldPod!)) { replaceNow.push(oldPod!); unavailable++; continue; }
      if (unavailable < maxUnavailable) candidates.push(oldPod!);
    }
    const room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    return { create: [], delete: [...replaceNow, ...candidates.slice(0, room)] };
  }
  let surging = 0;
  const surgeNow: string[] = [], candidates: string[] = [], del: Pod[] = [];
  for (const node of eligible) {
    const { newPod, oldPod, ok } = newAndOld(byNode.get(node) ?? [], hash);
    if (!ok) { surging++; continue; }
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) surgeNow.push(node);
      else if (surging < maxSurge) candidates.push(node);
      continue;
    }
    if (!available(newPod)) { surging++; continue; }
    del.push(oldPod);
  }
  const room = Math.min(Math.max(0, maxSurge - surging), candidates.length);
  return { create: [...surgeNow, ...candidates.slice(0, room)], delete: del };
}

export function plan(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string, now: number): Plan {
  const rolling = ds.spec?.updateStrategy?.type !== 'OnDelete';
  const [maxSurge] = rolling ? surgeAndUnavailable(ds, nodes.length) : [0];
  const p = manage(ds, nodes, byNode, hash, maxSurge > 0, now);
  if (!rolling) return p;
  const eligible = nodes.filter((n) => placement(ds.spec?.template?.spec, n).shouldRun).map((n) => n.metadata.name as string);
  const r = rollingUpdate(ds, eligible, byNode, hash, now);
  const deleting = new Set(p.delete);
  for (const pod of r.delete) if (!deleting.has(pod)) p.delete.push(pod);
  for (const node of r.create) if (!p.create.includes(node)) p.create.push(node);
  return p;
}
