// The RBAC authorizer: allows what a rule bound to the user (by name, a group, or as a
// ServiceAccount) allows; otherwise no opinion, so a later authorizer may still decide.
import type { UserInfo } from '../../authn/index.js';
import { allow, noOpinion, type Attributes, type DecisionAuthorizer, type RuleList, type Verdict } from '../index.js';
import type { Grant, PolicyIndex } from './policy-index.js';
import { ruleAllows, type PolicyRule } from './rules.js';

const NO_OPINION = noOpinion();

export class RBACAuthorizer implements DecisionAuthorizer {
  constructor(readonly index: PolicyIndex) {}

  decide(user: UserInfo, a: Attributes): Verdict {
    const set = this.index.rulesFor(user);
    const grant = find(set.cluster, a) ?? (a.namespace ? find(set.namespaced.get(a.namespace), a) : undefined);
    return grant ? allow(grant.reason) : NO_OPINION;
  }

  rulesFor(user: UserInfo, namespace: string): RuleList {
    const out: RuleList = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const r of this.rules(user, namespace)) {
      if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
      else out.resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
    }
    return out;
  }

  /** Every rule the user holds in `namespace` ('' for cluster-wide only): escalation checks and SelfSubjectRulesReview. */
  rules(user: UserInfo, namespace: string): PolicyRule[] {
    const set = this.index.rulesFor(user);
    const local = namespace ? set.namespaced.get(namespace) ?? [] : [];
    return [...set.cluster, ...local].map((g) => g.rule);
  }
}

function find(grants: Grant[] | undefined, a: Attributes): Grant | undefined {
  if (!grants) return undefined;
  for (const g of grants) if (ruleAllows(g.rule, a)) return g;
  return undefined;
}
