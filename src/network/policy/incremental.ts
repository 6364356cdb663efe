// The policy model kept between syncs, so a sync costs what changed and not the cluster.
// Objects are compared by identity first (an informer's lister hands out the same object
// until it changes), then by what the model reads of them. A policy is recomputed when it
// changed, when a pod of its namespace did, or — for one that sees other namespaces — when
// any pod or namespace did; only the local pods whose rules moved and the sets whose
// members moved are reported, and only those become nftables operations. computeModel
// (model.ts) stays the reference: the tests check both give the same model.
import type { Namespace, NetworkPolicy, Pod } from '../../api/kinds.js';
import {
  podAddress, policyContribution, policyKey, seesOtherNamespaces,
  type Contribution, type Direction, type Indexed, type IndexedPod, type LocalPod, type PodRules, type PolicyInput, type PolicyModel, type RuleMatch,
} from './model.js';

export interface ModelChanges {
  /** Local pods (by address) whose rules changed, or that came or went. */
  pods: Set<string>;
  /** Peer and tuple sets whose members changed, or that came or went. */
  sets: Set<string>;
}

type PodDirs = Partial<Record<Direction, RuleMatch[]>>;

interface PodEntry {
  obj: Pod;
  /** What the model reads of the pod: equal views, equal model. */
  view: string;
  indexed?: IndexedPod;
  local: boolean;
}

const EMPTY: Contribution = { pods: new Map(), peerSets: new Map(), tupleSets: new Map() };
const podView = (p: Pod): string => JSON.stringify([podAddress(p), p.metadata.labels ?? {}, p.spec?.nodeName, p.spec?.containers?.map((c) => c.ports)]);
const labelsOf = (n: Namespace): string => JSON.stringify(n.metadata.labels ?? {});

export class IncrementalModel {
  readonly model: PolicyModel = { pods: [], peerSets: new Map(), tupleSets: new Map() };
  private readonly pods = new Map<string, PodEntry>();
  /** The key of every object seen: an unchanged object costs a lookup, not a key built anew. */
  private readonly keyOf = new WeakMap<object, string>();
  private readonly podsByNs = new Map<string, Map<string, IndexedPod>>();
  private readonly namespaces = new Map<string, Namespace>();
  private readonly policies = new Map<string, NetworkPolicy>();
  private readonly contributions = new Map<string, Contribution>();
  private readonly policiesByNs = new Map<string, Set<string>>();
  private readonly globalPolicies = new Set<string>();
  private readonly ix: Indexed = { pods: [], byNs: new Map(), nsLabels: new Map() };
  /** Local pods by address: each selecting policy's rules for it. */
  private readonly local = new Map<string, { pod: LocalPod; byPolicy: Map<string, PodDirs> }>();
  /** Local pods came or went: `model.pods` is sorted anew. */
  private sortPending = false;

  constructor(private readonly nodeName?: string) {}

  private readonly isLocal = (p: IndexedPod): boolean => this.nodeName === undefined || p.pod.spec?.nodeName === this.nodeName;

  update(input: Omit<PolicyInput, 'nodeName'>): ModelChanges {
    const changes: ModelChanges = { pods: new Set(), sets: new Set() };
    const nsChanged = this.updateNamespaces(input.namespaces);
    const dirtyNs = this.updatePods(input.pods, changes);
    const recompute = this.updatePolicies(input.policies);
    for (const ns of dirtyNs) for (const key of this.policiesByNs.get(ns) ?? []) recompute.add(key);
    if (dirtyNs.size || nsChanged) for (const key of this.globalPolicies) recompute.add(key);
    for (const key of [...recompute].sort()) this.recompute(key, changes);
    for (const ip of changes.pods) this.rebuildPod(ip);
    return changes;
  }

  private updateNamespaces(list: Namespace[]): boolean {
    let changed = false;
    for (const n of list) {
      const name = n.metadata.name!;
      const prev = this.namespaces.get(name);
      if (prev === n) continue;
      this.namespaces.set(name, n);
      if (prev && labelsOf(prev) === labelsOf(n)) continue;
      this.ix.nsLabels.set(name, n.metadata.labels ?? {});
      changed = true;
    }
    if (list.length === this.namespaces.size) return changed;
    const seen = new Set(list.map((n) => n.metadata.name!));
    for (const name of [...this.namespaces.keys()]) {
      if (seen.has(name)) continue;
      this.namespaces.delete(name);
      this.ix.nsLabels.delete(name);
      changed = true;
    }
    return changed;
  }

  /** Pods in, the namespaces whose pods changed out; local pods that came or went are changes. */
  private updatePods(list: Pod[], changes: ModelChanges): Set<string> {
    const dirty = new Set<string>();
    const forget = (key: string, e: PodEntry) => {
      if (!e.indexed) return;
      dirty.add(e.indexed.ns);
      this.podsByNs.get(e.indexed.ns)?.delete(key);
      if (e.local) this.dropLocal(e.indexed.ip, changes);
    };
    for (const p of list) {
      const known = this.keyOf.get(p);
      if (known !== undefined && this.pods.get(known)?.obj === p) continue;
      const ns = p.metadata.namespace ?? 'default';
      const key = `${ns}/${p.metadata.name}`;
      this.keyOf.set(p, key);
      const prev = this.pods.get(key);
      const view = podView(p);
      if (prev && prev.view === view) { prev.obj = p; continue; }
      if (prev) forget(key, prev);
      const ip = podAddress(p);
      const entry: PodEntry = { obj: p, view, local: false };
      if (ip) {
        entry.indexed = { pod: p, ip, ns, labels: p.metadata.labels ?? {} };
        entry.local = this.isLocal(entry.indexed);
        let byNs = this.podsByNs.get(ns);
        if (!byNs) this.podsByNs.set(ns, byNs = new Map());
        byNs.set(key, entry.indexed);
        dirty.add(ns);
        if (entry.local) this.addLocal(key, ip, changes);
      }
      this.pods.set(key, entry);
    }
    if (list.length !== this.pods.size) {
      const seen = new Set(list.map((p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`));
      for (const [key, e] of [...this.pods]) {
        if (seen.has(key)) continue;
        this.pods.delete(key);
        forget(key, e);
      }
    }
    for (const ns of dirty) {
      const pods = this.podsByNs.get(ns);
      if (pods?.size) this.ix.byNs.set(ns, [...pods.values()]);
      else { this.ix.byNs.delete(ns); this.podsByNs.delete(ns); }
    }
    if (dirty.size) this.ix.pods = [...this.ix.byNs.values()].flat();
    return dirty;
  }

  private addLocal(key: string, ip: string, changes: ModelChanges): void {
    this.local.set(ip, { pod: { key, ip }, byPolicy: new Map() });
    changes.pods.add(ip);
    this.sortPending = true;
  }

  private dropLocal(ip: string, changes: ModelChanges): void {
    if (!this.local.delete(ip)) return;
    changes.pods.add(ip);
    this.sortPending = true;
  }

  /** Policies in; the keys of those that came, went or changed out. */
  private updatePolicies(list: NetworkPolicy[]): Set<string> {
    const changed = new Set<string>();
    for (const np of list) {
      const known = this.keyOf.get(np);
      if (known !== undefined && this.policies.get(known) === np) continue;
      const key = policyKey(np);
      this.keyOf.set(np, key);
      const prev = this.policies.get(key);
      if (prev && JSON.stringify(prev.spec) === JSON.stringify(np.spec)) { this.policies.set(key, np); continue; }
      if (prev) this.unindex(key, prev);
      this.policies.set(key, np);
      this.index(key, np);
      changed.add(key);
    }
    // Keys are unique in a list: as many as we hold means none went.
    if (list.length === this.policies.size) return changed;
    const seen = new Set(list.map(policyKey));
    for (const [key, np] of [...this.policies]) {
      if (seen.has(key)) continue;
      this.policies.delete(key);
      this.unindex(key, np);
      changed.add(key);
    }
    return changed;
  }

  private index(key: string, np: NetworkPolicy): void {
    const ns = np.metadata.namespace ?? 'default';
    let set = this.policiesByNs.get(ns);
    if (!set) this.policiesByNs.set(ns, set = new Set());
    set.add(key);
    if (seesOtherNamespaces(np)) this.globalPolicies.add(key);
  }

  private unindex(key: string, np: NetworkPolicy): void {
    const ns = np.metadata.namespace ?? 'default';
    this.policiesByNs.get(ns)?.delete(key);
    if (!this.policiesByNs.get(ns)?.size) this.policiesByNs.delete(ns);
    this.globalPolicies.delete(key);
  }

  private recompute(key: string, changes: ModelChanges): void {
    const np = this.policies.get(key);
    const next = np ? policyContribution(this.ix, np, this.isLocal) : EMPTY;
    const prev = this.contributions.get(key) ?? EMPTY;
    if (np) this.contributions.set(key, next);
    else this.contributions.delete(key);
    for (const ip of prev.pods.keys()) {
      if (next.pods.has(ip)) continue;
      if (this.local.get(ip)?.byPolicy.delete(key)) changes.pods.add(ip);
    }
    for (const [ip, dirs] of next.pods) {
      const entry = this.local.get(ip);
      if (!entry) continue;
      const before = entry.byPolicy.get(key);
      if (before && JSON.stringify(before) === JSON.stringify(dirs)) continue;
      entry.byPolicy.set(key, dirs);
      changes.pods.add(ip);
    }
    syncSets(this.model.peerSets, prev.peerSets, next.peerSets, changes);
    syncSets(this.model.tupleSets, prev.tupleSets, next.tupleSets, changes);
  }

  private rebuildPod(ip: string): void {
    const entry = this.local.get(ip);
    if (!entry) return;
    const pod: LocalPod = { key: entry.pod.key, ip };
    for (const key of [...entry.byPolicy.keys()].sort()) {
      const dirs = entry.byPolicy.get(key)!;
      for (const dir of ['ingress', 'egress'] as const) {
        const rules = dirs[dir];
        if (!rules) continue;
        const pr: PodRules = pod[dir] ??= { policies: [], rules: [] };
        pr.policies.push(key);
        pr.rules.push(...rules);
      }
    }
    entry.pod = pod;
    if (this.sortPending) return;
    const i = this.model.pods.findIndex((p) => p.ip === ip);
    if (i >= 0) this.model.pods[i] = pod;
  }

  /** The model after `update`: local pods in address order. */
  current(): PolicyModel {
    if (this.sortPending) {
      this.model.pods = [...this.local.values()].map((e) => e.pod).sort((a, b) => a.ip.localeCompare(b.ip));
      this.sortPending = false;
    }
    return this.model;
  }
}

function syncSets<T>(model: Map<string, T[]>, prev: Map<string, T[]>, next: Map<string, T[]>, changes: ModelChanges): void {
  for (const name of prev.keys()) if (!next.has(name) && model.delete(name)) changes.sets.add(name);
  for (const [name, members] of next) {
    const before = model.get(name);
    if (before && JSON.stringify(before) === JSON.stringify(members)) continue;
    model.set(name, members);
    changes.sets.add(name);
  }
}
