// Which requests a policy and a binding apply to (apiserver's admission/plugin/policy/matching):
// resourceRules (with resourceNames), excludeResourceRules, matchPolicy, and the namespace and
// object selectors, read as the webhook predicates read them.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { AdmissionAttributes } from '../../admission.js';
import { matchingVersion, namespaceSelected, objectSelected } from '../webhook/match.js';

function rulesFor(rules: Fields[] | undefined, name: string): Fields[] {
  return (rules ?? []).filter((r) => !(r.resourceNames ?? []).length || (r.resourceNames as string[]).includes(name));
}

/**
 * The version the request is matched in, or null when `m` does not apply to it. An absent
 * MatchResources (a binding's) applies to everything the policy matched.
 */
export async function matchResources(m: Fields | undefined, a: AdmissionAttributes, namespace: (name: string) => Promise<KubeObject | undefined>, matchAll: boolean): Promise<string | null> {
  if (!m) return matchAll ? a.info.version : null;
  const name = a.info.name || a.object?.metadata?.name || '';
  const selectors = { namespaceSelector: m.namespaceSelector, objectSelector: m.objectSelector };
  if (!await namespaceSelected(selectors, a, namespace) || !objectSelected(selectors, a)) return null;
  const excluded = matchingVersion({ rules: rulesFor(m.excludeResourceRules, name), matchPolicy: m.matchPolicy }, a);
  if (excluded) return null;
  if (!(m.resourceRules ?? []).length) return matchAll ? a.info.version : null;
  return matchingVersion({ rules: rulesFor(m.resourceRules, name), matchPolicy: m.matchPolicy }, a);
}
