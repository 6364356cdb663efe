// authentication.k8s.io/v1: the requests a client posts and reads the answer of (TokenRequest,
// TokenReview, SelfSubjectReview); none is stored.
import { str, int64, bool, obj, arr, map, defineType, ref, pb } from '../../schema.js';
import { objectMeta, timeRef } from '../../meta/v1/names.js';

const authn = (name: string, description?: string) => ref(`io.k8s.api.authentication.v1.${name}`, description);
const gvk = (kind: string) => [{ group: 'authentication.k8s.io', version: 'v1', kind }];
const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. authentication.k8s.io/v1.'),
  kind: str('The type of this object in CamelCase, e.g. TokenReview.'),
};

defineType('io.k8s.api.authentication.v1.TokenRequest', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  spec: pb(2, authn('TokenRequestSpec', 'The token asked for.')),
  status: pb(3, authn('TokenRequestStatus', 'The token issued.')),
}, 'A request for a service account token (the serviceaccounts/token subresource).', { required: ['spec'], gvk: gvk('TokenRequest') }));

defineType('io.k8s.api.authentication.v1.TokenRequestSpec', obj({
  audiences: pb(1, arr(str(), 'Audiences the token is for; the API server\'s when empty.', { listType: 'atomic' })),
  expirationSeconds: pb(4, int64('Requested lifetime; the issuer may shorten it.'), 'keepZero'),
  boundObjectRef: pb(3, authn('BoundObjectReference', 'An object (Pod, Secret, Node) the token is valid only while it exists.')),
}, 'What a requested token is for and how long it lives.', { required: ['audiences'] }));

defineType('io.k8s.api.authentication.v1.BoundObjectReference', obj({
  kind: pb(1, str('Pod, Secret or Node.')),
  apiVersion: pb(2, str('API version of the referent.')),
  name: pb(3, str('Name of the referent.')),
  uid: pb(4, str('UID of the referent.')),
}, 'The object a token is bound to.'));

defineType('io.k8s.api.authentication.v1.TokenRequestStatus', obj({
  token: pb(1, str('The token.')),
  expirationTimestamp: pb(2, timeRef('When the token expires.')),
}, 'The issued token.', { required: ['token', 'expirationTimestamp'] }));

defineType('io.k8s.api.authentication.v1.TokenReview', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  spec: pb(2, authn('TokenReviewSpec', 'The token to check.')),
  status: pb(3, authn('TokenReviewStatus', 'Whether it authenticates, and as whom.')),
}, 'Asks whether a token authenticates, and as which user.', { required: ['spec'], gvk: gvk('TokenReview') }));

defineType('io.k8s.api.authentication.v1.TokenReviewSpec', obj({
  token: pb(1, str('The opaque bearer token.')),
  audiences: pb(2, arr(str(), 'Audiences the caller accepts; the token must be for one of them.', { listType: 'atomic' })),
}, 'The token to review.'));

defineType('io.k8s.api.authentication.v1.TokenReviewStatus', obj({
  authenticated: pb(1, bool('Whether the token authenticates.')),
  user: pb(2, authn('UserInfo', 'The user the token authenticates as.')),
  audiences: pb(4, arr(str(), 'The audiences of the token that the caller accepts.', { listType: 'atomic' })),
  error: pb(3, str('Why the token could not be checked.')),
}, 'The answer to a TokenReview.'));

defineType('io.k8s.api.authentication.v1.UserInfo', obj({
  username: pb(1, str('The name that uniquely identifies the user.')),
  uid: pb(2, str('A value unique to the user across time.')),
  groups: pb(3, arr(str(), 'The groups the user is in.', { listType: 'atomic' })),
  extra: pb(4, map(arr(str()), 'Further attributes the authenticator provided.')),
}, 'A user as an authenticator sees it.'));

defineType('io.k8s.api.authentication.v1.SelfSubjectReview', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  status: pb(2, authn('SelfSubjectReviewStatus', 'Who the request was authenticated as.')),
}, 'Asks who the caller is authenticated as (kubectl auth whoami).', { gvk: gvk('SelfSubjectReview') }));

defineType('io.k8s.api.authentication.v1.SelfSubjectReviewStatus', obj({
  userInfo: pb(1, authn('UserInfo', 'The user of the request.')),
}, 'The answer to a SelfSubjectReview.'));
