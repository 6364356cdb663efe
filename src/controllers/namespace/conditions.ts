// The status conditions a terminating Namespace reports, with Kubernetes' types, reasons and
// messages, so `kubectl describe ns` tells why a deletion is stuck.
import type { ContentStatus } from './content.js';

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

const order = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const ok: Record<(typeof order)[number], [string, string]> = {
  NamespaceDeletionDiscoveryFailure: ['ResourcesDiscovered', 'All resources successfully discovered'],
  NamespaceDeletionGroupVersionParsingFailure: ['ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  NamespaceDeletionContentFailure: ['ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  NamespaceContentRemaining: ['ContentRemoved', 'All content successfully removed'],
  NamespaceFinalizersRemaining: ['ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
};

const sortedEntries = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The five deletion conditions for one pass over the namespace's content. */
export function deletionConditions(discoveryFailures: string[], content: ContentStatus): NamespaceCondition[] {
  const failing = new Map<string, [string, string]>();
  if (discoveryFailures.length) {
    failing.set('NamespaceDeletionDiscoveryFailure', ['DiscoveryFailed', `Discovery failed for some groups, ${discoveryFailures.length} failing: ${discoveryFailures.join(', ')}`]);
  }
  if (content.failures.length) {
    failing.set('NamespaceDeletionContentFailure', ['ContentDeletionFailed', `Failed to delete all resource types, ${content.failures.length} remaining: ${content.failures.join(', ')}`]);
  }
  if (content.remaining.size) {
    const what = sortedEntries(content.remaining).map(([r, n]) => `${r} has ${n} resource instances`).join(', ');
    failing.set('NamespaceContentRemaining', ['SomeResourcesRemain', `Some resources are remaining: ${what}`]);
  }
  if (content.finalizers.size) {
    const what = sortedEntries(content.finalizers).map(([f, n]) => `${f} in ${n} resource instances`).join(', ');
    failing.set('NamespaceFinalizersRemaining', ['SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${what}`]);
  }
  return order.map((type) => {
    const f = failing.get(type);
    const [reason, message] = f ?? ok[type];
    return { type, status: f ? 'True' : 'False', reason, message };
  });
}

/**
 * `current` with `next` merged in: a condition whose status, reason and message are
 * unchanged is kept as it is (with its transition time); null when nothing changed.
 */
export function mergeConditions(current: readonly NamespaceCondition[], next: readonly NamespaceCondition[], now: string): NamespaceCondition[] | null {
  const out = current.map((c) => ({ ...c }));
  let changed = false;
  for (const n of next) {
    const i = out.findIndex((c) => c.type === n.type);
    if (i >= 0 && out[i].status === n.status && out[i].reason === n.reason && out[i].message === n.message) continue;
    changed = true;
    const c = { ...n, lastTransitionTime: now };
    if (i >= 0) out[i] = c;
    else out.push(c);
  }
  return changed ? out : null;
}
