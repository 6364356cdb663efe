// Bootstrap tokens (k8s.io/cluster-bootstrap): `<id>.<secret>` bearer tokens backed by
// kube-system Secrets of type bootstrap.kubernetes.io/token named bootstrap-token-<id>. The
// API server authenticates them; the token cleaner deletes them once expired.

export const bootstrapTokenSecretType = 'bootstrap.kubernetes.io/token';
export const bootstrapTokenSecretPrefix = 'bootstrap-token-';
export const bootstrapTokenNamespace = 'kube-system';
export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrapDefaultGroup = 'system:bootstrappers';

export const bootstrapTokenKeys = {
  id: 'token-id',
  secret: 'token-secret',
  expiration: 'expiration',
  usageAuthentication: 'usage-bootstrap-authentication',
  usageSigning: 'usage-bootstrap-signing',
  extraGroups: 'auth-extra-groups',
  description: 'description',
};

const tokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const extraGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** `<id>.<secret>` split, or null when the string is not a bootstrap token. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | null {
  const m = tokenPattern.exec(token);
  return m ? { id: m[1], secret: m[2] } : null;
}

interface SecretLike {
  metadata?: unknown;
  type?: string;
  data?: Record<string, string>;
}

/** One data value of a Secret, decoded from base64 (empty when absent). */
export function secretValue(secret: SecretLike, key: string): string {
  const v = secret.data?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/**
 * When the token stops being valid: a time in ms, Infinity for no expiration, or -Infinity
 * when `expiration` does not parse as RFC 3339 (such a token counts as expired, as upstream).
 */
export function bootstrapTokenExpiry(secret: SecretLike): number {
  const raw = secretValue(secret, bootstrapTokenKeys.expiration);
  if (!raw) return Infinity;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) return -Infinity;
  const t = Date.parse(raw);
  return Number.isNaN(t) ? -Infinity : t;
}

/** `system:bootstrappers` and the auth-extra-groups; throws on a group outside system:bootstrappers:. */
export function bootstrapTokenGroups(secret: SecretLike): string[] {
  const groups = [bootstrapDefaultGroup];
  for (const g of secretValue(secret, bootstrapTokenKeys.extraGroups).split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!extraGroupPattern.test(g)) throw new Error(`group ${JSON.stringify(g)} must match ${extraGroupPattern.source}`);
    if (!groups.includes(g)) groups.push(g);
  }
  return groups;
}
