// The approver's one permission check: may the CSR's requester create
// `certificatesigningrequests/<subresource>`? Asked of the API server's authorizer with a
// SubjectAccessReview, as upstream does. A server that does not serve SubjectAccessReviews
// (capstan before RBAC) is answered by the default bindings kubeadm creates instead:
// `nodeclient` for group system:bootstrappers, `selfnodeclient` for group system:nodes.
import type { CertificateSigningRequest } from '../../api/kinds.js';
import { isNotFound, type ClientsetAPI, type ResourceType } from '../../client/index.js';
import { fallbacks } from '../../log/fallback.js';
import type { Logger } from '../../log/index.js';
import type { KubeObject } from '../../api/object.js';

export type AccessCheck = (csr: CertificateSigningRequest, subresource: 'nodeclient' | 'selfnodeclient') => Promise<boolean>;

const subjectAccessReviews: ResourceType<KubeObject> = {
  group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false,
};

const defaultBindings: Record<string, string> = { nodeclient: 'system:bootstrappers', selfnodeclient: 'system:nodes' };

export function subjectAccessReview(clients: ClientsetAPI, log: Logger): AccessCheck {
  const fallback = fallbacks('controller-manager', log);
  return async (csr, subresource) => {
    const spec = csr.spec;
    try {
      const review = await clients.resource(subjectAccessReviews).create(undefined, {
        apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {},
        spec: {
          user: spec.username, uid: spec.uid, groups: spec.groups, extra: spec.extra,
          resourceAttributes: { group: 'certificates.k8s.io', version: '*', resource: 'certificatesigningrequests', subresource, verb: 'create' },
        },
      });
      return review.status?.allowed === true;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      fallback('subjectaccessreview-not-served', { error: e });
      return (spec.groups ?? []).includes(defaultBindings[subresource]);
    }
  };
}
