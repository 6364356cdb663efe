// Authorization: may this user do this verb on this resource or path? Each authorizer answers
// allow, deny or no opinion (k8s.io/apiserver's authorizer.Decision); a union asks them in
// order and the first that is not "no opinion" decides. Nothing allowing means 403.
import type { UserInfo } from '../authn/index.js';
import type { RequestInfo } from '../request-info.js';
import type { FieldRequirement, Selector } from '../../api/labels.js';
import { forbidden, qualified, type StatusError } from '../errors.js';

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface Verdict {
  decision: Decision;
  /** Why; appended to the 403 message when not empty (RBAC leaves it empty on no opinion). */
  reason: string;
}

/** What is asked: a request's info (SubjectAccessReviews build one from their attributes). */
export type Attributes = Pick<RequestInfo, 'isResourceRequest' | 'path' | 'verb' | 'group' | 'namespace' | 'resource' | 'subresource' | 'name'> & {
  version?: string;
  /** list, watch and deletecollection: the request's field selector (attributes.ts); absent is unlimited. */
  fieldSelector?: FieldRequirement[];
  labelSelector?: Selector;
};

/** What a user may do in a namespace, as SelfSubjectRulesReview reports it. */
export interface RuleList {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  /** True when some authorizer cannot list what it would allow (the list may miss rules). */
  incomplete: boolean;
}

export interface DecisionAuthorizer {
  /** Called per request: must not do I/O or walk every binding. */
  decide(user: UserInfo, attrs: Attributes): Verdict | Promise<Verdict>;
  /** The rules behind decide, when the authorizer can list them; absent means incomplete. */
  rulesFor?(user: UserInfo, namespace: string): RuleList;
}

export interface Authorizer extends DecisionAuthorizer {
  rulesFor(user: UserInfo, namespace: string): RuleList;
  /** Returns null when allowed, or the message of the 403 (upstream's Forbidden wording). */
  authorize(user: UserInfo, info: Attributes): Promise<string | null>;
}

export const allow = (reason = ''): Verdict => ({ decision: 'allow', reason });
export const deny = (reason = ''): Verdict => ({ decision: 'deny', reason });
export const noOpinion = (reason = ''): Verdict => ({ decision: 'no-opinion', reason });

/** The group whose members may do anything (upstream's system:masters privileged group). */
export const SUPERUSER_GROUP = 'system:masters';

const everything: RuleList = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false,
};
export const alwaysAllowDecider: DecisionAuthorizer = { decide: () => allow(), rulesFor: () => everything };
export const alwaysDenyDecider: DecisionAuthorizer = { decide: () => deny('Everything is forbidden.') };
export const superuserDecider: DecisionAuthorizer = {
  decide: (user) => (user.groups.includes(SUPERUSER_GROUP) ? allow() : noOpinion()),
};

/** Asks each in turn; the first allow or deny wins; only no opinions is a denial. */
export function unionAuthorizer(list: DecisionAuthorizer[]): Authorizer {
  const decide = async (user: UserInfo, attrs: Attributes): Promise<Verdict> => {
    const reasons: string[] = [];
    for (const a of list) {
      const answer = a.decide(user, attrs);
      // Most authorizers answer synchronously; awaiting only promises saves a turn per request.
      const v = answer instanceof Promise ? await answer : answer;
      if (v.decision !== 'no-opinion') return v;
      if (v.reason) reasons.push(v.reason);
    }
    return noOpinion(reasons.join('\n'));
  };
  return {
    decide,
    rulesFor(user, namespace) {
      const out: RuleList = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const a of list) {
        if (a === superuserDecider) continue;
        if (!a.rulesFor) { out.incomplete = true; continue; }
        const r = a.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
      }
      return out;
    },
    async authorize(user, info) {
      const v = await decide(user, info);
      return v.decision === 'allow' ? null : forbiddenText(user, info, v.reason);
    },
  };
}

export const alwaysAllow: Authorizer = unionAuthorizer([alwaysAllowDecider]);

/** `User "x" cannot list resource "pods" in API group "" in the namespace "y"` (upstream's forbiddenMessage). */
export function forbiddenMessage(user: UserInfo, a: Attributes): string {
  if (!a.isResourceRequest) return `User ${JSON.stringify(user.username)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${where}`;
}

/** The whole 403 message, as apierrors.NewForbidden words it around forbiddenMessage. */
export function forbiddenText(user: UserInfo, a: Attributes, reason = ''): string {
  const why = reason ? `${forbiddenMessage(user, a)}: ${reason}` : forbiddenMessage(user, a);
  return forbiddenWording(a.isResourceRequest ? a.resource : '', a.group, a.name, why);
}

/** `pods "web" is forbidden: <why>`, `pods is forbidden: <why>`, `forbidden: <why>`. */
export function forbiddenWording(resource: string, group: string, name: string, why: string): string {
  if (!resource) return `forbidden: ${why}`;
  return name ? `${qualified(resource, group)} ${JSON.stringify(name)} is forbidden: ${why}` : `${qualified(resource, group)} is forbidden: ${why}`;
}

/** The 403 for a denied request, with the details upstream sends ({kind: resource, group, name}). */
export function forbiddenError(a: Attributes, message: string): StatusError {
  return forbidden(message, a.isResourceRequest ? { name: a.name || undefined, group: a.group || undefined, kind: a.resource } : {});
}
