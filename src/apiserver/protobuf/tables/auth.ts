// k8s.io/api authentication/v1 and authorization/v1: the review objects clients post.
import { msg, type Messages } from '../schema.js';

export const auth: Messages = {
  TokenRequest: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'TokenRequestSpec'], 3: ['status', 'TokenRequestStatus'] }),
  TokenRequestSpec: msg({ 1: ['audiences', '[]string'], 4: ['expirationSeconds', '*int64'], 3: ['boundObjectRef', '*BoundObjectReference'] }),
  BoundObjectReference: msg({ 1: ['kind', 'string'], 2: ['apiVersion', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'] }),
  TokenRequestStatus: msg({ 1: ['token', 'string'], 2: ['expirationTimestamp', 'Time'] }),
  TokenReview: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'TokenReviewSpec'], 3: ['status', 'TokenReviewStatus'] }),
  TokenReviewSpec: msg({ 1: ['token', 'string'], 2: ['audiences', '[]string'] }),
  TokenReviewStatus: msg({ 1: ['authenticated', 'bool'], 2: ['user', 'UserInfo'], 4: ['audiences', '[]string'], 3: ['error', 'string'] }),
  SelfSubjectReview: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['status', 'SelfSubjectReviewStatus'] }),
  SelfSubjectReviewStatus: msg({ 1: ['userInfo', 'UserInfo'] }),
  UserInfo: msg({ 1: ['username', 'string'], 2: ['uid', 'string'], 3: ['groups', '[]string'], 4: ['extra', 'map<ExtraValue>'] }),

  SelfSubjectAccessReview: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'SelfSubjectAccessReviewSpec'], 3: ['status', 'SubjectAccessReviewStatus'] }),
  SelfSubjectAccessReviewSpec: msg({ 1: ['resourceAttributes', '*ResourceAttributes'], 2: ['nonResourceAttributes', '*NonResourceAttributes'] }),
  ResourceAttributes: msg({
    1: ['namespace', 'string'], 2: ['verb', 'string'], 3: ['group', 'string'], 4: ['version', 'string'], 5: ['resource', 'string'],
    6: ['subresource', 'string'], 7: ['name', 'string'], 8: ['fieldSelector', '*FieldSelectorAttributes'], 9: ['labelSelector', '*LabelSelectorAttributes'],
  }),
  FieldSelectorAttributes: msg({ 1: ['rawSelector', 'string'], 2: ['requirements', '[]FieldSelectorRequirement'] }),
  // meta/v1, used only here.
  FieldSelectorRequirement: msg({ 1: ['key', 'string!'], 2: ['operator', 'string!'], 3: ['values', '[]string'] }),
  LabelSelectorAttributes: msg({ 1: ['rawSelector', 'string'], 2: ['requirements', '[]LabelSelectorRequirement'] }),
  NonResourceAttributes: msg({ 1: ['path', 'string'], 2: ['verb', 'string'] }),
  // Its status (the rules) is the server's answer and is not read.
  SelfSubjectRulesReview: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'SelfSubjectRulesReviewSpec'] }),
  SelfSubjectRulesReviewSpec: msg({ 1: ['namespace', 'string'] }),
  SubjectAccessReview: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'SubjectAccessReviewSpec'], 3: ['status', 'SubjectAccessReviewStatus'] }),
  LocalSubjectAccessReview: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'SubjectAccessReviewSpec'], 3: ['status', 'SubjectAccessReviewStatus'] }),
  SubjectAccessReviewSpec: msg({
    1: ['resourceAttributes', '*ResourceAttributes'], 2: ['nonResourceAttributes', '*NonResourceAttributes'], 3: ['user', 'string'],
    4: ['groups', '[]string'], 5: ['extra', 'map<ExtraValue>'], 6: ['uid', 'string'],
  }),
  SubjectAccessReviewStatus: msg({ 1: ['allowed', 'bool!'], 4: ['denied', 'bool'], 2: ['reason', 'string'], 3: ['evaluationError', 'string'] }),
};
