// OIDC discovery for ServiceAccount tokens (ServiceAccountIssuerDiscovery): the issuer's
// configuration at /.well-known/openid-configuration and its public keys at /openid/v1/jwks,
// so anyone holding a token can verify it without asking this server.
import type { ServerResponse } from 'node:http';
import { jwks, type ServiceAccountKeys } from './keys.js';

export const openIDConfigurationPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';

export class OIDCDiscovery {
  private configuration?: Buffer;
  private readonly keySet: Buffer;

  /** `jwksURI` is read at the first request (the server's port is known only once it listens). */
  constructor(private readonly issuer: string, private readonly jwksURI: () => string, private readonly keys: ServiceAccountKeys) {
    this.keySet = Buffer.from(JSON.stringify(jwks(keys)));
  }

  private configurationDocument(): Buffer {
    this.configuration ??= Buffer.from(JSON.stringify({
      issuer: this.issuer, jwks_uri: this.jwksURI(), response_types_supported: ['id_token'], subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [...new Set(this.keys.verifying.map((k) => k.alg))].sort(),
    }));
    return this.configuration;
  }

  /** Answers the two discovery paths; false for any other path. */
  serve(path: string, res: ServerResponse): boolean {
    const body = path === openIDConfigurationPath ? this.configurationDocument() : path === jwksPath ? this.keySet : undefined;
    if (!body) return false;
    res.writeHead(200, {
      'Content-Type': path === jwksPath ? 'application/jwk-set+json' : 'application/json',
      'Cache-Control': 'public, max-age=3600',
      'Content-Length': body.length,
    });
    res.end(body);
    return true;
  }
}
