// Legacy ServiceAccount tokens: the long-lived JWTs the tokens controller writes into
// Secrets of type kubernetes.io/service-account-token, with the claims kube-apiserver's
// legacy validator reads. They carry no expiry and no audience; the Secret is the lease.

export const legacyIssuer = 'kubernetes/serviceaccount';
export const serviceAccountTokenSecretType = 'kubernetes.io/service-account-token';
export const serviceAccountNameAnnotation = 'kubernetes.io/service-account.name';
export const serviceAccountUIDAnnotation = 'kubernetes.io/service-account.uid';
/** Set on a legacy token Secret to refuse its token from that date on. */
export const legacyTokenInvalidSinceLabel = 'kubernetes.io/legacy-token-invalid-since';

export const legacyClaimKeys = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUID: 'kubernetes.io/serviceaccount/service-account.uid',
};

export function legacyTokenClaims(namespace: string, serviceAccountName: string, serviceAccountUID: string, secretName: string): Record<string, unknown> {
  return {
    iss: legacyIssuer,
    [legacyClaimKeys.namespace]: namespace,
    [legacyClaimKeys.secretName]: secretName,
    [legacyClaimKeys.serviceAccountName]: serviceAccountName,
    [legacyClaimKeys.serviceAccountUID]: serviceAccountUID,
    sub: `system:serviceaccount:${namespace}:${serviceAccountName}`,
  };
}
