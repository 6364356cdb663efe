// authorization.k8s.io/v1 reviews: SubjectAccessReview (any user, as cluster admins and
// webhooks ask), LocalSubjectAccessReview (the same within one namespace),
// SelfSubjectAccessReview (`kubectl auth can-i`) and SelfSubjectRulesReview
// (`kubectl auth can-i --list`). Create-only and never stored: the answer is in `status`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fields } from '../../api/object.js';
import type { UserInfo } from '../authn/index.js';
import type { Attributes, Authorizer } from '../authz/index.js';
import type { RequestInfo } from '../request-info.js';
import type { ExtraResource } from '../discovery.js';
import { decodeBody, readBody } from '../body.js';
import { badRequest, invalid, methodNotAllowed } from '../errors.js';
import { invalidValue } from '../../api/validation.js';
import { sendObject } from '../respond.js';
import { reviewSelectors, validateReviewSelectors } from '../authz/review-selectors.js';

export const GROUP = 'authorization.k8s.io';

export const accessReviewResources: ExtraResource[] = [
  { group: GROUP, version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: ['create'] },
  { group: GROUP, version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true, verbs: ['create'] },
  { group: GROUP, version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'] },
  { group: GROUP, version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: ['create'] },
];

export const isAccessReview = (info: RequestInfo): boolean =>
  info.group === GROUP && info.version === 'v1' && accessReviewResources.some((r) => r.resource === info.resource) && !info.name;

/** The attributes a review's spec asks about. */
function attributesOf(spec: Fields): Attributes {
  const r: Fields | undefined = spec.resourceAttributes;
  if (r) {
    return {
      isResourceRequest: true, path: '', verb: r.verb ?? '', group: r.group ?? '', version: r.version ?? '', namespace: r.namespace ?? '', resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
      ...reviewSelectors(r),
    };
  }
  const n: Fields = spec.nonResourceAttributes ?? {};
  return { isResourceRequest: false, path: n.path ?? '', verb: n.verb ?? '', group: '', namespace: '', resource: '', subresource: '', name: '' };
}

export async function serveAccessReview(req: IncomingMessage, res: ServerResponse, info: RequestInfo, user: UserInfo, authz: Authorizer): Promise<void> {
  if (info.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const kind = accessReviewResources.find((r) => r.resource === info.resource)!.kind;
  const body = decodeBody(await readBody(req), req.headers['content-type']).value as Fields;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`the body of the request must be a ${kind}`);
  if (body.kind !== undefined && body.kind !== kind) throw badRequest(`expected a ${kind}, got ${String(body.kind)}`);
  const spec: Fields = body.spec ?? {};
  const out = { kind, apiVersion: `${GROUP}/v1`, metadata: { ...body.metadata, creationTimestamp: null }, spec };

  if (kind === 'SelfSubjectRulesReview') {
    const rules = authz.rulesFor(user, spec.namespace ?? '');
    return sendObject(res, 201, { ...out, status: rules });
  }
  const hasResource = !!spec.resourceAttributes, hasNonResource = !!spec.nonResourceAttributes;
  if (hasResource === hasNonResource) {
    throw invalid(kind, GROUP, '', [invalidValue('spec.resourceAttributes', spec.resourceAttributes ?? null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')]);
  }
  let subject = user;
  if (kind === 'SubjectAccessReview' || kind === 'LocalSubjectAccessReview') {
    if (!spec.user && !spec.groups?.length) throw invalid(kind, GROUP, '', [invalidValue('spec.user', spec.user ?? '', 'at least one of user or group must be specified')]);
    subject = { username: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid, extra: spec.extra };
  }
  const selectorErrors = hasResource ? validateReviewSelectors(spec.resourceAttributes, 'spec.resourceAttributes') : [];
  if (selectorErrors.length) throw invalid(kind, GROUP, '', selectorErrors);
  const attrs = attributesOf(spec);
  if (kind === 'LocalSubjectAccessReview') {
    if (!hasResource) throw invalid(kind, GROUP, '', [invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request')]);
    if (attrs.namespace !== info.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${info.namespace}`);
    out.metadata = { ...out.metadata, namespace: info.namespace };
  }
  const v = await authz.decide(subject, attrs);
  const status: Fields = { allowed: v.decision === 'allow' };
  if (v.decision === 'deny') status.denied = true;
  if (v.reason) status.reason = v.reason;
  sendObject(res, 201, { ...out, status });
}
