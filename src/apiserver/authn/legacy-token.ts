// Legacy ServiceAccount tokens (Secrets of type kubernetes.io/service-account-token): good
// while the signature holds, the ServiceAccount exists with the claimed uid, and the Secret
// exists, still holds this very token and has not been marked invalid.
import { timingSafeEqual } from 'node:crypto';
import {
  legacyClaimKeys, legacyIssuer, legacyTokenInvalidSinceLabel, serviceAccountNameAnnotation,
} from '../../api/legacy-serviceaccount-token.js';
import { decodeJWT, verifySignature } from '../../util/jwt.js';
import type { ServiceAccountKeys } from './keys.js';
import { serviceAccountGroups, serviceAccountUsername, type ObjectGetter } from './service-account.js';
import { AuthenticationError, type TokenAuthenticator, type TokenResult } from './types.js';

export class LegacyServiceAccountTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly keys: ServiceAccountKeys, private readonly objects: ObjectGetter) {}

  async authenticateToken(token: string, audiences: string[]): Promise<TokenResult | null> {
    const jwt = decodeJWT(token);
    if (!jwt || jwt.claims.iss !== legacyIssuer) return null;
    if (!verifySignature(jwt, this.keys.verifying)) throw new AuthenticationError('invalid signature');
    const claim = (k: keyof typeof legacyClaimKeys) => jwt.claims[legacyClaimKeys[k]];
    const ns = claim('namespace'), secretName = claim('secretName'), saName = claim('serviceAccountName'), saUID = claim('serviceAccountUID');
    if (typeof ns !== 'string' || !ns) throw new AuthenticationError('namespace claim is missing');
    if (typeof secretName !== 'string' || !secretName) throw new AuthenticationError('secretName claim is missing');
    if (typeof saName !== 'string' || !saName) throw new AuthenticationError('serviceAccountName claim is missing');
    if (typeof saUID !== 'string' || !saUID) throw new AuthenticationError('serviceAccountUID claim is missing');
    const sa = await this.objects.get('serviceaccounts', ns, saName);
    if (!sa || sa.metadata.deletionTimestamp) throw new AuthenticationError(`serviceaccounts "${saName}" not found`);
    if (sa.metadata.uid !== saUID) throw new AuthenticationError(`service account UID (${String(sa.metadata.uid)}) does not match claim (${saUID})`);
    const secret = await this.objects.get('secrets', ns, secretName);
    if (!secret || secret.metadata.deletionTimestamp) throw new AuthenticationError('token has been invalidated');
    const held = Buffer.from(typeof secret.data?.token === 'string' ? Buffer.from(secret.data.token, 'base64').toString('utf8') : '');
    const presented = Buffer.from(token);
    if (held.length !== presented.length || !timingSafeEqual(held, presented)) throw new AuthenticationError('token does not match the secret');
    if (secret.metadata.annotations?.[serviceAccountNameAnnotation] !== saName) throw new AuthenticationError('token does not match the secret');
    if (secret.metadata.labels?.[legacyTokenInvalidSinceLabel]) throw new AuthenticationError(`the token in secret ${ns}/${secretName} for service account ${ns}/${saName} has been marked invalid`);
    return { user: { username: serviceAccountUsername(ns, saName), uid: saUID, groups: serviceAccountGroups(ns) }, audiences };
  }
}
