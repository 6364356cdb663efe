// Paths are routed as sent: dot segments (`..`, `%2e%2e`, ...), encoded slashes and
// double-encoded dots never reach another namespace. Sent with real curl --path-as-is, which
// passes the path through untouched, as a hostile client would.
import t from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fixtures, startAPIServer } from '../helpers/api.js';

const run = promisify(execFile);
const api = await startAPIServer(t);
const c = api.client;
const caFile = join(api.dir, 'curl-ca.crt');
writeFileSync(caFile, api.pki.ca.certPem);

/** GET through curl exactly as written; the status code and the body. */
async function curl(path: string): Promise<{ status: number; body: any; text: string }> {
  const { stdout } = await run('curl', [
    '--silent', '--max-time', '10', '--path-as-is', '--cacert', caFile, '-H', `Authorization: Bearer ${api.token}`,
    '--write-out', '\n%{http_code}', `https://localhost:${api.port}${path}`,
  ], { maxBuffer: 1 << 20 });
  const nl = stdout.lastIndexOf('\n');
  const text = stdout.slice(0, nl);
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: Number(stdout.slice(nl + 1)), body, text };
}

const secret = 'hidden-in-kube-system';
t.before(async () => {
  t.equal((await c.post('/api/v1/namespaces/kube-system/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret }, stringData: { password: 'hunter2' } })).status, 201);
  t.equal((await c.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('a.b'))).status, 201);
});

t.test('traversals out of a namespace are refused before routing', async (t) => {
  const base = '/api/v1/namespaces/default/configmaps';
  const variants = [
    `${base}/%2e%2e/%2e%2e/kube-system/secrets`,
    `${base}/%2E%2E/%2E%2E/kube-system/secrets`,
    `${base}/../../kube-system/secrets`,
    `${base}/.%2e/%2e./kube-system/secrets`,
    `${base}/./../../kube-system/secrets`,
    `${base}/..%2f..%2fkube-system%2fsecrets`,
    `${base}/..%2F..%2Fkube-system%2Fsecrets/${secret}`,
    `${base}/%252e%252e/%252e%252e/kube-system/secrets`,
    `${base}/..\\..\\kube-system\\secrets`,
    `/api/v1/namespaces/default/%2e%2e/kube-system/secrets/${secret}`,
    `/api/v1/namespaces/default%2F..%2Fkube-system/secrets`,
    `/api/v1/watch/namespaces/default/configmaps/%2e%2e/%2e%2e/kube-system/secrets`,
    `/api/v1/namespaces/default/configmaps/%2e%2e/%2e%2e/kube-system/secrets?watch=true&timeoutSeconds=1`,
  ];
  for (const path of variants) {
    const r = await curl(path);
    t.equal(r.status, 404, path);
    t.match(r.body, { kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' }, path);
    t.notMatch(r.text, secret, `nothing from kube-system: ${path}`);
    t.notMatch(r.text, 'hunter2', path);
  }
});

t.test('a name that is a dot segment or holds an encoded slash or % is a bad request, as upstream', async (t) => {
  const cases: Array<[string, string]> = [
    ['/api/v1/namespaces/default/configmaps/..', `Name parameter invalid: "..": may not be '..'`],
    ['/api/v1/namespaces/default/configmaps/%2e', `Name parameter invalid: ".": may not be '.'`],
    ['/api/v1/namespaces/default/configmaps/%252e%252e', `Name parameter invalid: "%2e%2e": may not contain '%'`],
    ['/api/v1/namespaces/%2E%2E', `Name parameter invalid: "..": may not be '..'`],
  ];
  for (const [path, message] of cases) {
    const r = await curl(path);
    t.equal(r.status, 400, path);
    t.match(r.body, { kind: 'Status', reason: 'BadRequest', message }, path);
  }
});

t.test('ordinary paths still route: dots inside names, the target namespace itself', async (t) => {
  const cm = await curl('/api/v1/namespaces/default/configmaps/a.b');
  t.equal(cm.status, 200);
  t.equal(cm.body.metadata.name, 'a.b');
  const own = await curl('/api/v1/namespaces/kube-system/secrets');
  t.equal(own.status, 200, 'asking kube-system directly is routed (and authorised) as kube-system');
  t.ok(own.body.items.some((s: any) => s.metadata.name === secret));
  const encodedName = await curl('/api/v1/namespaces/default/configmaps/a%2Eb');
  t.equal(encodedName.status, 200, 'an encoded dot inside a name is just a dot');
});
