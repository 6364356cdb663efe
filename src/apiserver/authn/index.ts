// Authentication, assembled as kube-apiserver's flags describe it: client certificates, the
// static token file, ServiceAccount tokens, bootstrap tokens, then anonymous; impersonation on
// top. server.ts builds one of these; the handlers use its parts (TokenReview its tokens,
// TokenRequest its issuer, OIDC discovery its keys).
import type { Logger } from '../../log/index.js';
import { BootstrapTokenAuthenticator } from './bootstrap-token.js';
import { withImpersonation, type ImpersonationAuthorizer } from './impersonation.js';
import type { ServiceAccountKeys } from './keys.js';
import { LegacyServiceAccountTokenAuthenticator } from './legacy-token.js';
import { OIDCDiscovery, jwksPath } from './oidc.js';
import { requestAuthenticator } from './request.js';
import { ServiceAccountTokenAuthenticator, defaultIssuer, type ObjectGetter, type TokenIssuerConfig } from './service-account.js';
import { TokenFileAuthenticator } from './token-file.js';
import { audienceAgnostic, unionTokens } from './tokens.js';
import type { Authenticator, RequestAuthenticator, TokenAuthenticator } from './types.js';
import { ClientCertAuthenticator } from './x509.js';

export * from './types.js';
export { parseTokenFile, TokenFileAuthenticator } from './token-file.js';
export { ClientCertAuthenticator } from './x509.js';
export { defaultIssuer, serviceAccountUsername, splitServiceAccountUsername, type TokenIssuerConfig } from './service-account.js';
export { ensureSigningKeyFile, loadServiceAccountKeyFiles, loadServiceAccountKeys, ephemeralServiceAccountKeys, type ServiceAccountKeys } from './keys.js';
export { registryObjectGetter } from './objects.js';
export { withImpersonation } from './impersonation.js';

export interface AuthenticationConfig {
  /** --token-auth-file. */
  tokenFile?: string;
  /** The ServiceAccount token keys (--service-account-signing-key-file and --service-account-key-file). */
  keys: ServiceAccountKeys;
  /** --service-account-issuer (repeatable; the first signs). */
  issuers?: string[];
  /** --api-audiences; default the first issuer. */
  apiAudiences?: string[];
  /** --service-account-jwks-uri; default https://<advertised address>/openid/v1/jwks. */
  jwksURI?: string;
  /** --service-account-max-token-expiration in seconds (0: none). */
  maxTokenExpirationSeconds?: number;
  /** --service-account-extend-token-expiration (default true). */
  extendTokenExpiration?: boolean;
  /** --anonymous-auth. */
  anonymous: boolean;
  objects: ObjectGetter;
  log: Logger;
  now?: () => number;
}

export interface Authentication {
  /** The stage the handler runs: who the request is, after impersonation. */
  stage(authz: ImpersonationAuthorizer, clientCerts?: RequestAuthenticator, wrap?: (a: Authenticator) => Authenticator): Authenticator;
  tokens: TokenAuthenticator;
  apiAudiences: string[];
  issuer: TokenIssuerConfig;
  /** `externalAddress` (host:port) is read at the first discovery request. */
  oidc(externalAddress: () => string): OIDCDiscovery;
}

export function buildAuthentication(cfg: AuthenticationConfig): Authentication {
  const issuers = cfg.issuers?.length ? cfg.issuers : [defaultIssuer];
  const apiAudiences = cfg.apiAudiences?.length ? cfg.apiAudiences : [issuers[0]];
  const refused = (why: string) => cfg.log.info('authentication refused', { reason: why });
  const list: TokenAuthenticator[] = [];
  if (cfg.tokenFile) list.push(audienceAgnostic(new TokenFileAuthenticator(cfg.tokenFile), apiAudiences));
  list.push(new ServiceAccountTokenAuthenticator({ issuers, keys: cfg.keys, objects: cfg.objects, now: cfg.now }));
  // Legacy tokens carry no audience: they are tokens for this API server only.
  list.push(audienceAgnostic(new LegacyServiceAccountTokenAuthenticator(cfg.keys, cfg.objects), apiAudiences));
  list.push(audienceAgnostic(new BootstrapTokenAuthenticator(cfg.objects, cfg.now, refused), apiAudiences));
  const tokens = unionTokens(list);
  return {
    tokens,
    apiAudiences,
    issuer: {
      issuer: issuers[0], keys: cfg.keys, apiAudiences,
      maxExpirationSeconds: cfg.maxTokenExpirationSeconds ?? 0, extendExpiration: cfg.extendTokenExpiration ?? true,
    },
    stage(authz, clientCerts = new ClientCertAuthenticator(), wrap = (a) => a) {
      const base = requestAuthenticator({ clientCerts, tokens, apiAudiences, anonymous: cfg.anonymous, refused });
      return withImpersonation(wrap(base), authz);
    },
    oidc: (externalAddress) => new OIDCDiscovery(issuers[0], () => cfg.jwksURI ?? `https://${externalAddress()}${jwksPath}`, cfg.keys),
  };
}
