// Builders for the bootstrap policy's rules, so the policy reads like upstream's tables.
import type { PolicyRule } from '../rbac/rules.js';

export const Read = ['get', 'list', 'watch'];
export const Write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
export const ReadWrite = [...Read, ...Write];

/** A resource rule: verbs on resources of groups, optionally only the named objects. */
export function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  return names ? { verbs, apiGroups: groups, resources, resourceNames: names } : { verbs, apiGroups: groups, resources };
}

/** A non-resource rule: verbs on paths (`/api/*`). */
export const urls = (verbs: string[], paths: string[]): PolicyRule => ({ verbs, nonResourceURLs: paths });

/** Creating and updating Events, in the core group and events.k8s.io. */
export const eventsRule = (): PolicyRule => rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);
