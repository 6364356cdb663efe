// Inter-pod affinity terms and topology spread constraints, compiled once per pod version.
// matchLabelKeys / mismatchLabelKeys are folded into the selector here (as the API server
// does for affinity since 1.31), so matching reads one selector. A term's `key` names the
// term by its content: the cache groups identical terms of many pods (one Deployment's
// replicas) under it and keeps their counts per topology value incrementally.
import { fromLabelSelector, matches, type LabelSelector, type Requirement, type Selector } from '../api/labels.js';
import type { Pod } from '../api/kinds.js';

export interface AffinityTerm {
  selector: Selector;
  /** Namespaces listed, or the pod's own when neither list nor namespaceSelector is given. */
  namespaces: ReadonlySet<string>;
  /** namespaceSelector; an empty one matches every namespace. */
  namespaceSelector: Selector | null;
  topologyKey: string;
  /** Content identity, for grouping identical terms of different pods. */
  key: string;
  /** The selector's content, naming the cache's group of pods it matches. */
  selectorKey: string;
  /** The one namespace the term's pods are in, when it names exactly one (no namespaceSelector). */
  namespace?: string;
}

/** Several terms a pod must match all of, as one selector in one namespace. */
export interface AllOf {
  selector: Selector;
  selectorKey: string;
  namespace: string;
}

export interface WeightedTerm extends AffinityTerm {
  weight: number;
}

export interface PodAffinityTerms {
  requiredAffinity: AffinityTerm[];
  /** requiredAffinity as one selector, when its terms all name the same single namespace. */
  requiredAffinityAllOf?: AllOf;
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: WeightedTerm[];
  preferredAntiAffinity: WeightedTerm[];
}

export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  selector: Selector;
  /** The selector's content, naming the group of pods it counts. */
  selectorKey: string;
  minDomains: number;
  /** Count only nodes the pod's nodeSelector / required node affinity allow (default Honor). */
  honorNodeAffinity: boolean;
  /** Count only nodes whose taints the pod tolerates (default Ignore). */
  honorNodeTaints: boolean;
}

interface RawAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelector | null;
  topologyKey?: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

/** A selector with the pod's values for matchLabelKeys (In) and mismatchLabelKeys (NotIn) added. */
function withLabelKeys(sel: Selector, labels: Record<string, string>, match: string[] = [], mismatch: string[] = []): Selector {
  const extra: Requirement[] = [];
  for (const k of match) if (k in labels) extra.push({ key: k, operator: 'In', values: [labels[k]] });
  for (const k of mismatch) if (k in labels) extra.push({ key: k, operator: 'NotIn', values: [labels[k]] });
  return extra.length ? [...sel, ...extra] : sel;
}

function compileTerm(raw: RawAffinityTerm, pod: Pod): AffinityTerm {
  const labels = pod.metadata.labels ?? {};
  // A term without a labelSelector matches no pod: an impossible requirement says so.
  const base = fromLabelSelector(raw.labelSelector) ?? [{ key: '', operator: 'In', values: [] }];
  const selector = withLabelKeys(base, labels, raw.matchLabelKeys, raw.mismatchLabelKeys);
  const namespaceSelector = fromLabelSelector(raw.namespaceSelector);
  const listed = raw.namespaces ?? [];
  const namespaces = new Set(listed.length || namespaceSelector ? listed : [pod.metadata.namespace ?? '']);
  const topologyKey = raw.topologyKey ?? '';
  const key = JSON.stringify([selector, [...namespaces].sort(), namespaceSelector, topologyKey]);
  const namespace = !namespaceSelector && namespaces.size === 1 ? [...namespaces][0] : undefined;
  return { selector, namespaces, namespaceSelector, topologyKey, key, selectorKey: JSON.stringify(selector), namespace };
}

/** `terms` (every one must match) as one selector, when they all name the same one namespace. */
function allOf(terms: readonly AffinityTerm[]): AllOf | undefined {
  const namespace = terms[0]?.namespace;
  if (namespace === undefined || terms.some((t) => t.namespace !== namespace)) return undefined;
  const selector = terms.flatMap((t) => t.selector);
  return { selector, selectorKey: JSON.stringify(selector), namespace };
}

export function compileAffinityTerms(pod: Pod): PodAffinityTerms | undefined {
  const a = pod.spec?.affinity as { podAffinity?: Record<string, unknown[]>; podAntiAffinity?: Record<string, unknown[]> } | undefined;
  if (!a?.podAffinity && !a?.podAntiAffinity) return undefined;
  const req = (x?: Record<string, unknown[]>) => ((x?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as RawAffinityTerm[]).map((r) => compileTerm(r, pod));
  const pref = (x?: Record<string, unknown[]>) => ((x?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as { weight?: number; podAffinityTerm?: RawAffinityTerm }[])
    .filter((w) => w.weight && w.podAffinityTerm)
    .map((w) => ({ ...compileTerm(w.podAffinityTerm!, pod), weight: Number(w.weight) }));
  const out = {
    requiredAffinity: req(a.podAffinity), requiredAntiAffinity: req(a.podAntiAffinity),
    preferredAffinity: pref(a.podAffinity), preferredAntiAffinity: pref(a.podAntiAffinity),
  };
  const all = allOf(out.requiredAffinity);
  const any = out.requiredAffinity.length + out.requiredAntiAffinity.length + out.preferredAffinity.length + out.preferredAntiAffinity.length;
  return any ? { ...out, ...(all ? { requiredAffinityAllOf: all } : {}) } : undefined;
}

/** Whether `term`, written by a pod, selects the pod `labels` in namespace `ns`. */
export function termMatches(term: AffinityTerm, ns: string, labels: Record<string, string> | undefined, nsLabels: (ns: string) => Record<string, string> | undefined): boolean {
  if (!term.namespaces.has(ns) && !(term.namespaceSelector && matches(term.namespaceSelector, nsLabels(ns)))) return false;
  return matches(term.selector, labels);
}

interface RawConstraint {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelector | null;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  matchLabelKeys?: string[];
}

export function compileSpreadConstraints(pod: Pod): SpreadConstraint[] {
  const raw = (pod.spec?.topologySpreadConstraints ?? []) as RawConstraint[];
  const labels = pod.metadata.labels ?? {};
  return raw.map((c) => {
    // A constraint without a labelSelector counts no pods.
    const selector = withLabelKeys(fromLabelSelector(c.labelSelector) ?? [{ key: '', operator: 'In', values: [] }], labels, c.matchLabelKeys);
    return {
      maxSkew: Number(c.maxSkew ?? 1),
      topologyKey: c.topologyKey ?? '',
      whenUnsatisfiable: c.whenUnsatisfiable === 'ScheduleAnyway' ? 'ScheduleAnyway' : 'DoNotSchedule',
      selector, selectorKey: JSON.stringify(selector),
      minDomains: Number(c.minDomains ?? 1) || 1,
      honorNodeAffinity: c.nodeAffinityPolicy !== 'Ignore',
      honorNodeTaints: c.nodeTaintsPolicy === 'Honor',
    };
  });
}
