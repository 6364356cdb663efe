// kube-apiserver's authentication flags, shared by `capstan apiserver` and `capstan up`, and
// what they become in APIServerOptions. Without signing-key flags the ServiceAccount key is
// <data-dir>/sa.key, created on first start.
import { join } from 'node:path';
import { ensureSigningKeyFile, loadServiceAccountKeyFiles } from '../apiserver/authn/index.js';
import type { APIServerOptions } from '../apiserver/server.js';
import { parseDuration } from '../util/duration.js';

export const authenticationFlags = {
  'anonymous-auth': { type: 'string', default: 'true' },
  'service-account-key-file': { type: 'string', multiple: true },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-issuer': { type: 'string', multiple: true },
  'service-account-jwks-uri': { type: 'string' },
  'service-account-max-token-expiration': { type: 'string' },
  'service-account-extend-token-expiration': { type: 'string', default: 'true' },
  'api-audiences': { type: 'string' },
} as const;

export interface AuthenticationFlagValues {
  'anonymous-auth'?: string;
  'service-account-key-file'?: string[];
  'service-account-signing-key-file'?: string;
  'service-account-issuer'?: string[];
  'service-account-jwks-uri'?: string;
  'service-account-max-token-expiration'?: string;
  'service-account-extend-token-expiration'?: string;
  'api-audiences'?: string;
}

function flagBool(name: string, v: string | undefined, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new Error(`--${name}: invalid boolean ${JSON.stringify(v)}`);
}

/** The ServiceAccount signing key's file: the flag's, or <data-dir>/sa.key (created when missing). */
export function signingKeyFile(values: AuthenticationFlagValues, dataDir: string): string {
  return values['service-account-signing-key-file'] ?? ensureSigningKeyFile(join(dataDir, 'sa.key'));
}

export function authenticationOptions(values: AuthenticationFlagValues, dataDir: string): Partial<APIServerOptions> {
  const signingFile = signingKeyFile(values, dataDir);
  const maxExp = values['service-account-max-token-expiration'];
  return {
    serviceAccountKeys: loadServiceAccountKeyFiles(signingFile, values['service-account-key-file'] ?? []),
    serviceAccountIssuers: values['service-account-issuer'],
    serviceAccountJWKSURI: values['service-account-jwks-uri'],
    serviceAccountMaxTokenExpirationSeconds: maxExp ? Math.floor(parseDuration(maxExp) / 1000) : undefined,
    serviceAccountExtendTokenExpiration: flagBool('service-account-extend-token-expiration', values['service-account-extend-token-expiration'], true),
    apiAudiences: values['api-audiences']?.split(',').map((a) => a.trim()).filter(Boolean),
    anonymousAuth: flagBool('anonymous-auth', values['anonymous-auth'], true),
  };
}
