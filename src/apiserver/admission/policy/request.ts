// What CEL in admission sees of a request (apiserver's admission/plugin/cel activation):
// `object` and `oldObject` in the matched version, `request` as the AdmissionReview's
// request, and `authorizer` answered by the API server's own authorizer for the requester.
import type { CelInput } from '@bufbuild/cel';
import type { AdmissionAttributes } from '../../admission.js';
import type { DecisionAuthorizer } from '../../authz/index.js';
import type { UserInfo } from '../../authn/index.js';
import { AuthzSession, authorizerValue, toCel } from '../../cel/index.js';
import { admissionReview } from '../webhook/review.js';
import { versionedObject } from '../webhook/index.js';

/** object, oldObject, request and (unless `withAuthorizer` is false) authorizer for a request matched in `version`. */
export async function requestBindings(a: AdmissionAttributes, version: string, withAuthorizer = true): Promise<Record<string, CelInput>> {
  const object = a.operation === 'DELETE' ? undefined : await versionedObject(a, version, a.object);
  const oldObject = await versionedObject(a, version, a.oldObject);
  const { object: _o, oldObject: _old, uid: _u, ...request } = admissionReview(a, version).body.request as Record<string, unknown>;
  const vars: Record<string, CelInput> = { object: toCel(object), oldObject: toCel(oldObject), request: toCel(request) };
  if (!withAuthorizer) return vars;
  return {
    ...vars,
    authorizer: authorizerValue({
      group: a.info.group, resource: a.info.resource, subresource: a.info.subresource ?? '', namespace: a.info.namespace ?? '',
      name: a.info.name || a.object?.metadata?.name || '',
    }),
  };
}

function serviceAccountUser(sa: string): UserInfo {
  const [ns, name] = sa.split('/');
  return { username: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] };
}

/** The requester's authorizer session (answers are kept for the request). */
export function authzSession(authorizer: DecisionAuthorizer, user: UserInfo): AuthzSession {
  return new AuthzSession(async (q) => {
    const who = q.serviceAccount ? serviceAccountUser(q.serviceAccount) : user;
    const v = await authorizer.decide(who, {
      isResourceRequest: q.isResourceRequest, path: q.path, verb: q.verb, group: q.group, namespace: q.namespace,
      resource: q.resource, subresource: q.subresource, name: q.name,
    });
    return { allowed: v.decision === 'allow', reason: v.reason };
  });
}

