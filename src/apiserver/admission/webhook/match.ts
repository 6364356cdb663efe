// Which webhooks a request goes to, after k8s.io/apiserver's webhook/predicates: a rule's
// operations, groups, versions, resources (`*`, `*/*`, `pods/*`, `*/status`) and scope;
// matchPolicy Equivalent (the same resource in another served version); the namespace and
// object selectors.
import type { Fields, KubeObject } from '../../../api/object.js';
import { fromLabelSelector, matches, type LabelSelector } from '../../../api/labels.js';
import type { AdmissionAttributes } from '../../admission.js';

const has = (list: string[] | undefined, v: string): boolean => (list ?? []).some((x) => x === '*' || x === v);

function resourceMatches(patterns: string[] | undefined, resource: string, sub: string): boolean {
  return (patterns ?? []).some((p) => {
    if (p === '*/*') return true;
    if (p === '*') return !sub;
    const [r, s = ''] = p.split('/');
    if (s === '*') return r === resource && sub !== '';
    if (r === '*') return sub !== '' && s === sub;
    return r === resource && s === sub;
  });
}

/**
 * The version the webhook is sent the object in, or null when no rule matches: the
 * request's own version, else (matchPolicy Equivalent) another one the resource is served in.
 */
export function matchingVersion(webhook: Fields, a: AdmissionAttributes): string | null {
  const { group, resource, subresource } = a.info;
  const namespaced = a.registry.def.namespaced;
  const served = a.registry.def.versions.map((v) => v.version);
  const candidates = webhook.matchPolicy === 'Exact' ? [a.info.version] : [a.info.version, ...served.filter((v) => v !== a.info.version)];
  for (const version of candidates) {
    const hit = ((webhook.rules ?? []) as Fields[]).some((r) => has(r.operations, a.operation) && has(r.apiGroups, group) && has(r.apiVersions, version)
      && resourceMatches(r.resources, resource, subresource)
      && (r.scope === undefined || r.scope === '*' || (r.scope === 'Namespaced') === namespaced));
    if (hit) return version;
  }
  return null;
}

function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  const s = fromLabelSelector(sel ?? {});
  return s !== null && matches(s, labels ?? {});
}

/** objectSelector: the new or the old object's labels. */
export function objectSelected(webhook: Fields, a: AdmissionAttributes): boolean {
  const sel = webhook.objectSelector as LabelSelector | undefined;
  if (!sel || (!sel.matchLabels && !sel.matchExpressions)) return true;
  return [a.object, a.oldObject].some((o) => o && selectorMatches(sel, o.metadata?.labels));
}

/** namespaceSelector: the namespace's labels (a Namespace's own); cluster-scoped objects always match. */
export async function namespaceSelected(webhook: Fields, a: AdmissionAttributes, namespace: (name: string) => Promise<KubeObject | undefined>): Promise<boolean> {
  const sel = webhook.namespaceSelector as LabelSelector | undefined;
  if (!sel || (!sel.matchLabels && !sel.matchExpressions)) return true;
  if (a.info.group === '' && a.info.resource === 'namespaces') return selectorMatches(sel, (a.object ?? a.oldObject)?.metadata?.labels);
  if (!a.registry.def.namespaced) return true;
  const ns = await namespace(a.info.namespace);
  return selectorMatches(sel, ns?.metadata.labels);
}
