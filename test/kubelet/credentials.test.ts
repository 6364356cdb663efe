// Which pull-secret entries apply to an image, as upstream's keyring matches them.
import t from 'tap';
import { credentialsFor, repositoryOf } from '../../src/kubelet/credentials.js';
import type { Secret } from '../../src/api/kinds.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const json = (name: string, auths: Record<string, unknown>): Secret => ({
  metadata: { name }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) },
} as Secret);
const cfg = (name: string, auths: Record<string, unknown>): Secret => ({
  metadata: { name }, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64(JSON.stringify(auths)) },
} as Secret);

t.test('repositories', async (t) => {
  t.equal(repositoryOf('busybox'), 'docker.io/library/busybox');
  t.equal(repositoryOf('team/app:1'), 'docker.io/team/app');
  t.equal(repositoryOf('127.0.0.1:5000/test/app:1'), '127.0.0.1:5000/test/app');
  t.equal(repositoryOf('registry.example.com/a/b@sha256:abc'), 'registry.example.com/a/b');
  t.equal(repositoryOf('localhost/capstan/busybox:1'), 'localhost/capstan/busybox');
});

t.test('matching: host, port, path prefix, globs, Docker Hub keys', async (t) => {
  const secrets = [
    json('a', {
      'registry.example.com': { username: 'host', password: 'p1' },
      'registry.example.com/team': { username: 'team', password: 'p2' },
      '*.example.org': { auth: b64('glob:p3') },
      'registry.example.com:5000': { username: 'port', password: 'p4' },
    }),
    cfg('b', { 'https://index.docker.io/v1/': { auth: b64('hub:p5') } }),
    { metadata: { name: 'c' }, type: 'Opaque', data: { '.dockerconfigjson': b64('{"auths":{"registry.example.com":{"username":"opaque"}}}') } } as Secret,
  ];
  const users = (image: string) => credentialsFor(image, secrets).map((c) => c.username);
  t.same(users('registry.example.com/team/app:1'), ['team', 'host'], 'most specific first');
  t.same(users('registry.example.com/other/app:1'), ['host']);
  t.same(users('registry.example.com/teamx/app'), ['host'], 'a path prefix matches whole segments');
  t.same(users('registry.example.com:5000/app'), ['port'], 'the port must match');
  t.same(users('a.example.org/app'), ['glob']);
  t.same(users('a.b.example.org/app'), [], 'a glob matches one label');
  t.same(users('busybox:1'), ['hub']);
  t.same(users('elsewhere.io/app'), []);
  const [c] = credentialsFor('a.example.org/app', secrets);
  t.match(c, { username: 'glob', password: 'p3', server_address: 'https://a.example.org' });
  t.equal(credentialsFor('registry.example.com:5000/app', secrets)[0].server_address, 'https://registry.example.com:5000');
});

t.test('unparsable secrets give nothing', async (t) => {
  t.same(credentialsFor('busybox', [{ metadata: { name: 'x' }, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{nope') } } as Secret]), []);
});
