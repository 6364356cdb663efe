// Registry credentials from a pod's imagePullSecrets, as upstream's credentialprovider
// keyring reads them: `kubernetes.io/dockerconfigjson` (`.dockerconfigjson`: {"auths": {…}})
// and `kubernetes.io/dockercfg` (`.dockercfg`: the map itself). A key is a registry host with
// an optional port and path ("127.0.0.1:5443", "https://index.docker.io/v1/", "*.example.com/team");
// it matches an image whose repository has that host (glob per dot-separated label), the same
// port and the key's path as a prefix. Every matching entry is tried, most specific first.
import type { Secret } from '../api/kinds.js';
import type { AuthConfig } from '../../cri/index.js';

export interface Credential extends AuthConfig {
  /** The key the entry came from, for sorting and messages. */
  key: string;
}

interface Entry { username?: string; password?: string; auth?: string; email?: string; identitytoken?: string; registrytoken?: string }

const decodeField = (secret: Secret, key: string): string | undefined => {
  const v = secret.data?.[key];
  if (typeof v === 'string') return Buffer.from(v, 'base64').toString('utf8');
  return secret.stringData?.[key];
};

/** The entries of one secret of a docker type; other types and unparsable data give none. */
export function secretEntries(secret: Secret): Map<string, Entry> {
  const out = new Map<string, Entry>();
  let auths: Record<string, Entry> | undefined;
  try {
    if (secret.type === 'kubernetes.io/dockerconfigjson') auths = (JSON.parse(decodeField(secret, '.dockerconfigjson') ?? '{}') as { auths?: Record<string, Entry> }).auths;
    else if (secret.type === 'kubernetes.io/dockercfg') auths = JSON.parse(decodeField(secret, '.dockercfg') ?? '{}') as Record<string, Entry>;
  } catch {
    return out;
  }
  for (const [key, e] of Object.entries(auths ?? {})) if (e && typeof e === 'object') out.set(key, e);
  return out;
}

/** "docker.io/library/busybox" for "busybox:1", "127.0.0.1:5443/test/app" for "127.0.0.1:5443/test/app:1@sha256:…". */
export function repositoryOf(image: string): string {
  let name = image.split('@')[0];
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > slash) name = name.slice(0, colon);
  const first = name.split('/')[0];
  const hasHost = name.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasHost) return `docker.io/${name.includes('/') ? name : `library/${name}`}`;
  return name;
}

interface ParsedKey { host: string; port: string; path: string }

function parseKey(key: string): ParsedKey {
  let k = key.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  // Docker Hub's historic keys.
  if (/^(index\.)?docker\.io(\/v1)?$/.test(k) || k === 'registry-1.docker.io') k = 'docker.io';
  const slash = k.indexOf('/');
  const hostPort = slash < 0 ? k : k.slice(0, slash);
  const path = slash < 0 ? '' : k.slice(slash + 1);
  const [host, port = ''] = hostPort.split(':');
  return { host: host.toLowerCase(), port, path };
}

const globLabel = (pattern: string, label: string) => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*')}$`).test(label);

function matches(key: ParsedKey, repo: ParsedKey): boolean {
  const kl = key.host.split('.');
  const rl = repo.host.split('.');
  if (kl.length !== rl.length || !kl.every((p, i) => globLabel(p, rl[i]))) return false;
  if (key.port !== repo.port) return false;
  return !key.path || repo.path === key.path || repo.path.startsWith(`${key.path}/`);
}

/** Credentials for `image` from `secrets`, most specific key first, each secret's order kept. */
export function credentialsFor(image: string, secrets: Secret[]): Credential[] {
  const repo = parseKey(repositoryOf(image));
  const found: (Credential & { specificity: number; order: number })[] = [];
  for (const secret of secrets) {
    for (const [key, e] of secretEntries(secret)) {
      const parsed = parseKey(key);
      if (!matches(parsed, repo)) continue;
      let { username, password } = e;
      if (e.auth && !username) {
        const plain = Buffer.from(e.auth, 'base64').toString('utf8');
        const at = plain.indexOf(':');
        if (at > 0) [username, password] = [plain.slice(0, at), plain.slice(at + 1)];
      }
      found.push({
        // containerd 1.6 parses server_address as a URL and compares its host with the host it
        // pulls from: a bare "127.0.0.1:5000" fails to parse and "registry.local" has no host,
        // so it is the image's registry as a URL (Docker Hub's is pulled from another name:
        // left empty, which containerd takes as any host).
        key, username: username ?? '', password: password ?? '', auth: e.auth ?? '',
        server_address: repo.host === 'docker.io' ? '' : `https://${repo.host}${repo.port ? `:${repo.port}` : ''}`,
        identity_token: e.identitytoken ?? '', registry_token: e.registrytoken ?? '',
        specificity: parsed.host.length + parsed.path.length, order: found.length,
      });
    }
  }
  return found.sort((a, b) => b.specificity - a.specificity || a.order - b.order)
    .map(({ specificity: _s, order: _o, ...c }) => c);
}
