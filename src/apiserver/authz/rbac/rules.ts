// PolicyRule matching and coverage, after k8s.io/kubernetes pkg/apis/rbac/v1/evaluation_helpers
// and pkg/registry/rbac/validation (Covers): what a rule allows, and whether one set of rules
// holds every permission of another (the escalation check).
import type { Attributes } from '../index.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const has = (list: string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // `*/log` is every resource's log subresource.
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether the rule allows this request (resourceNames empty means every name). */
export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return urlMatches(rule, a.path);
  if (!has(rule.apiGroups, a.group) || !resourceMatches(rule, a.resource, a.subresource)) return false;
  const names = rule.resourceNames;
  return !names?.length || (names.length < 16 ? names.includes(a.name) : nameSet(names).has(a.name));
}

// Rules are read-only once indexed; a long resourceNames list (a hollow-nodes role names every
// node's user: thousands) is looked up per request, so each list gets its Set once.
const nameSets = new WeakMap<string[], Set<string>>();

function nameSet(names: string[]): Set<string> {
  let set = nameSets.get(names);
  if (!set) nameSets.set(names, (set = new Set(names)));
  return set;
}

/** Splits a rule into single-verb, single-group, single-resource(-name) or single-URL rules. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        if (rule.resourceNames?.length) for (const name of rule.resourceNames) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        else out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
      }
    }
    for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

const coversAll = (owner: string[] | undefined, servant: string[] | undefined): boolean =>
  (servant ?? []).every((s) => has(owner, s));

function coversResources(owner: string[] | undefined, servant: string[] | undefined): boolean {
  return (servant ?? []).every((s) => {
    if (has(owner, s)) return true;
    const slash = s.indexOf('/');
    return slash >= 0 && !!owner?.includes(`*${s.slice(slash)}`);
  });
}

function coversURLs(owner: string[] | undefined, servant: string[] | undefined): boolean {
  return (servant ?? []).every((s) => (owner ?? []).some((o) => o === '*' || o === s || (o.endsWith('*') && s.startsWith(o.slice(0, -1)))));
}

function ruleCovers(owner: PolicyRule, servant: PolicyRule): boolean {
  if (!coversAll(owner.verbs, servant.verbs) || !coversAll(owner.apiGroups, servant.apiGroups)) return false;
  if (!coversResources(owner.resources, servant.resources) || !coversURLs(owner.nonResourceURLs, servant.nonResourceURLs)) return false;
  // An owner limited to names covers only rules limited to those names.
  if (owner.resourceNames?.length) return !!servant.resourceNames?.length && servant.resourceNames.every((n) => owner.resourceNames!.includes(n));
  return true;
}

/** The parts of `servant` no rule of `owner` covers (empty: owner holds all of servant). */
export function uncovered(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of servant) for (const simple of breakdown(rule)) if (!owner.some((o) => ruleCovers(o, simple))) missing.push(simple);
  return missing;
}

/** `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, as upstream's CompactString prints a rule. */
export function compactString(rule: PolicyRule): string {
  const q = (l: string[]) => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${q(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${q(rule.resources)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${q(rule.resourceNames)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${q(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
