// Bootstrap token authentication: `<id>.<secret>` is system:bootstrap:<id> in
// system:bootstrappers (and its auth-extra-groups) while its Secret exists, matches, allows
// authentication and has not expired. Any mismatch is "not a token I know" (the request is
// then 401 as an invalid bearer token), as upstream's authenticator answers.
import { timingSafeEqual } from 'node:crypto';
import {
  bootstrapTokenExpiry, bootstrapTokenGroups, bootstrapTokenKeys, bootstrapTokenNamespace, bootstrapTokenSecretPrefix,
  bootstrapTokenSecretType, bootstrapUserPrefix, parseBootstrapToken, secretValue,
} from '../../api/bootstrap-token.js';
import type { ObjectGetter } from './service-account.js';
import type { TokenAuthenticator, TokenResult } from './types.js';

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly objects: ObjectGetter, private readonly now: () => number = Date.now, private readonly refused?: (why: string) => void) {}

  async authenticateToken(token: string, audiences: string[]): Promise<TokenResult | null> {
    const parsed = parseBootstrapToken(token);
    if (!parsed) return null;
    const name = bootstrapTokenSecretPrefix + parsed.id;
    const secret = await this.objects.get('secrets', bootstrapTokenNamespace, name);
    const no = (why: string) => { this.refused?.(`bootstrap token ${bootstrapTokenNamespace}/${name} ${why}`); return null; };
    if (!secret) return no('not found');
    if (secret.metadata.deletionTimestamp) return no('is deleted and awaiting removal');
    if (secret.type !== bootstrapTokenSecretType || !secret.data) return no(`has invalid type, expected ${bootstrapTokenSecretType}`);
    const want = Buffer.from(secretValue(secret, bootstrapTokenKeys.secret));
    const got = Buffer.from(parsed.secret);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return no(`has invalid value for key ${bootstrapTokenKeys.secret}`);
    if (secretValue(secret, bootstrapTokenKeys.id) !== parsed.id) return no(`has invalid value for key ${bootstrapTokenKeys.id}`);
    if (bootstrapTokenExpiry(secret) < this.now()) return no('has expired');
    if (secretValue(secret, bootstrapTokenKeys.usageAuthentication) !== 'true') return no(`not marked ${bootstrapTokenKeys.usageAuthentication}=true`);
    let groups: string[];
    try {
      groups = bootstrapTokenGroups(secret);
    } catch (e) {
      return no(`has invalid value for key ${bootstrapTokenKeys.extraGroups}: ${(e as Error).message}`);
    }
    return { user: { username: bootstrapUserPrefix + parsed.id, groups }, audiences };
  }
}
