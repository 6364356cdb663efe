// The RBAC state the authorizer reads, kept flat in the number of bindings: bindings indexed
// by subject (`u/<user>`, `g/<group>`; a ServiceAccount subject is its user name
// `system:serviceaccount:<ns>:<name>`), roles by name, and each user's resolved rules cached
// until the next change to any role or binding. A request costs a cache lookup and a walk of
// that user's own rules; upstream walks every binding per request instead.
import type { UserInfo } from '../../authn/index.js';
import type { PolicyRule } from './rules.js';

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface BindingObject {
  metadata: { name?: string; namespace?: string };
  subjects?: Subject[] | null;
  roleRef: RoleRef;
}

/** A rule and the binding that grants it (for SubjectAccessReview reasons). */
export interface Grant {
  rule: PolicyRule;
  /** `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`, made once per cached rule set. */
  reason: string;
}

/** One user's rules: cluster-wide, and per namespace from RoleBindings. */
export interface RuleSet {
  cluster: Grant[];
  namespaced: Map<string, Grant[]>;
}

interface BindingEntry {
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  name: string;
  roleRef: RoleRef;
  subjects: Subject[];
  keys: string[];
}

const MAX_CACHED_USERS = 10_000;

export const serviceAccountUser = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;

function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User': return `u/${s.name}`;
    case 'Group': return `g/${s.name}`;
    case 'ServiceAccount': return `u/${serviceAccountUser(s.namespace || bindingNamespace, s.name)}`;
    default: return undefined;
  }
}

const userKeys = (user: UserInfo): string[] => [`u/${user.username}`, ...user.groups.map((g) => `g/${g}`)];

export class PolicyIndex {
  private roles = new Map<string, PolicyRule[]>();
  private clusterRoles = new Map<string, PolicyRule[]>();
  private bindings = new Map<string, BindingEntry>();
  private bySubject = new Map<string, Set<BindingEntry>>();
  private cache = new Map<string, RuleSet>();
  /** Bumped on every change; tests and benchmarks read it. */
  generation = 0;

  private changed(): void {
    this.generation++;
    this.cache.clear();
  }

  clear(): void {
    this.roles.clear(); this.clusterRoles.clear(); this.bindings.clear(); this.bySubject.clear();
    this.changed();
  }

  setRole(namespace: string, name: string, rules: PolicyRule[] | undefined): void {
    const key = `${namespace}/${name}`;
    if (rules) this.roles.set(key, rules);
    else this.roles.delete(key);
    this.changed();
  }

  setClusterRole(name: string, rules: PolicyRule[] | undefined): void {
    if (rules) this.clusterRoles.set(name, rules);
    else this.clusterRoles.delete(name);
    this.changed();
  }

  /** A RoleBinding (namespace set) or ClusterRoleBinding (namespace ''); undefined removes it. */
  setBinding(namespace: string, name: string, binding: BindingObject | undefined): void {
    const id = `${namespace}/${name}`;
    const old = this.bindings.get(id);
    if (old) {
      for (const k of old.keys) {
        const set = this.bySubject.get(k);
        set?.delete(old);
        if (set?.size === 0) this.bySubject.delete(k);
      }
      this.bindings.delete(id);
    }
    if (binding) {
      const subjects = binding.subjects ?? [];
      const keys = [...new Set(subjects.map((s) => subjectKey(s, namespace)).filter((k): k is string => !!k))];
      const entry: BindingEntry = { namespace, name, roleRef: binding.roleRef, subjects, keys };
      this.bindings.set(id, entry);
      for (const k of keys) {
        let set = this.bySubject.get(k);
        if (!set) this.bySubject.set(k, (set = new Set()));
        set.add(entry);
      }
    }
    this.changed();
  }

  get bindingCount(): number {
    return this.bindings.size;
  }

  /** The rules of a role reference as a binding in `namespace` ('' for cluster) resolves it; undefined when the role does not exist. */
  roleRules(ref: RoleRef, namespace: string): PolicyRule[] | undefined {
    return ref.kind === 'ClusterRole' ? this.clusterRoles.get(ref.name) : ref.kind === 'Role' && namespace ? this.roles.get(`${namespace}/${ref.name}`) : undefined;
  }

  clusterRoleRules(name: string): PolicyRule[] | undefined {
    return this.clusterRoles.get(name);
  }

  /** The user's rules, from the cache or resolved from the bindings of the user's own subjects. */
  rulesFor(user: UserInfo): RuleSet {
    const cacheKey = `${user.username}\0${user.groups.join('\0')}`;
    const hit = this.cache.get(cacheKey);
    if (hit) return hit;
    const set: RuleSet = { cluster: [], namespaced: new Map() };
    const seen = new Set<BindingEntry>();
    for (const key of userKeys(user)) {
      for (const b of this.bySubject.get(key) ?? []) {
        if (seen.has(b)) continue;
        seen.add(b);
        const rules = this.roleRules(b.roleRef, b.namespace);
        if (!rules) continue;
        const reason = `RBAC: allowed by ${describe(b, key)}`;
        const grants = rules.map((rule) => ({ rule, reason }));
        if (!b.namespace) set.cluster.push(...grants);
        else {
          const list = set.namespaced.get(b.namespace);
          if (list) list.push(...grants);
          else set.namespaced.set(b.namespace, grants);
        }
      }
    }
    if (this.cache.size >= MAX_CACHED_USERS) this.cache.clear();
    this.cache.set(cacheKey, set);
    return set;
  }
}

/** `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`, upstream's wording of an allowing binding. */
function describe(b: BindingEntry, key: string): string {
  const subject = b.subjects.find((s) => subjectKey(s, b.namespace) === key);
  const who = subject ? `${subject.kind} ${JSON.stringify(subject.namespace ? `${subject.namespace}/${subject.name}` : subject.name)}` : '';
  const binding = b.namespace ? `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)}` : `ClusterRoleBinding ${JSON.stringify(b.name)}`;
  return `${binding} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${who}`;
}
