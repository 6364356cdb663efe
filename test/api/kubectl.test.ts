// Runs the real kubectl against a fixture server that serves our discovery and OpenAPI v3
// documents: `explain` must find the schemas, and `apply` with the default
// --validate=strict must accept that the server validates fields (it needs a PATCH
// operation with x-kubernetes-group-version-kind and fieldValidation to do so).
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixture, type Fixture } from './fixture-server.js';
import { served } from './served.js';

const KUBECTL = '/usr/bin/kubectl';

const skip = existsSync(KUBECTL) ? false : 'kubectl is not installed';

const dir = mkdtempSync(join(tmpdir(), 'capstan-kubectl-'));
let fixture: Fixture;
t.before(async () => { if (!skip) fixture = await startFixture(served); });
t.teardown(async () => {
  await fixture?.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (server: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    // A cache per server: kubectl caches discovery and OpenAPI documents by host.
    execFile(KUBECTL, ['--server', server, '--cache-dir', join(dir, 'cache', new URL(server).port), ...args],
      { env: { ...process.env, KUBECONFIG: join(dir, 'no-kubeconfig'), HOME: dir }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
const kubectl = (...args: string[]) => run(fixture.url, args);

t.test('explain deployment.spec.strategy', { skip }, async (t) => {
  const r = await kubectl('explain', 'deployment.spec.strategy');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /GROUP:\s+apps/);
  t.match(r.stdout, /KIND:\s+Deployment/);
  t.match(r.stdout, /VERSION:\s+v1/);
  t.match(r.stdout, /FIELD: strategy <DeploymentStrategy>/);
  t.match(r.stdout, /rollingUpdate\s+<RollingUpdateDeployment>/);
  t.match(r.stdout, /enum: Recreate, RollingUpdate/);
});

t.test('explain follows refs through lists, maps and the core group', { skip }, async (t) => {
  const r = await kubectl('explain', 'pods.spec.containers.resources.limits');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /FIELD: limits <map\[string\]Quantity>/);
  const strat = await kubectl('explain', 'deployments.spec.strategy.rollingUpdate.maxSurge');
  t.equal(strat.code, 0, strat.stderr);
  t.match(strat.stdout, /FIELD: maxSurge <IntOrString>/);
  const missing = await kubectl('explain', 'deployments.spec.nosuchfield');
  t.not(missing.code, 0);
  t.match(missing.stderr, /field "nosuchfield" does not exist/);
});

t.test('apply --dry-run=client passes strict validation', { skip }, async (t) => {
  const file = join(dir, 'web.yaml');
  writeFileSync(file, [
    'apiVersion: apps/v1', 'kind: Deployment', 'metadata: {name: web, namespace: default}',
    'spec:', '  replicas: 2', '  selector: {matchLabels: {app: web}}',
    '  template:', '    metadata: {labels: {app: web}}',
    '    spec:', '      containers: [{name: web, image: nginx, ports: [{containerPort: 80}]}]', '',
  ].join('\n'));
  const r = await kubectl('apply', '--dry-run=client', '-f', file);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, 'deployment.apps/web created (dry run)');
  t.ok(fixture.requests.some((q) => q.url.startsWith('/openapi/v3/apis/apps/v1?hash=')), 'kubectl fetched the apps/v1 document by its hashed URL');
});

t.test('apply --dry-run=server sends fieldValidation=Strict', { skip }, async (t) => {
  const file = join(dir, 'cm.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {a: b}\n');
  await kubectl('apply', '--dry-run=server', '-f', file);
  const post = fixture.requests.find((q) => q.method === 'POST' && q.url.startsWith('/api/v1/namespaces/default/configmaps'));
  t.ok(post, 'kubectl got as far as creating the object');
  t.match(post?.url ?? '', 'fieldValidation=Strict');
});

t.test('apply of a kind: List manifest gets past the OpenAPI v2 read', { skip }, async (t) => {
  const file = join(dir, 'list.yaml');
  writeFileSync(file, [
    'apiVersion: v1', 'kind: List', 'items:',
    '- {apiVersion: v1, kind: ConfigMap, metadata: {name: one, namespace: default}, data: {a: b}}',
    '- {apiVersion: v1, kind: Secret, metadata: {name: two, namespace: default}, stringData: {c: d}}', '',
  ].join('\n'));
  const withV2 = await startFixture(served, { openAPIV2: true });
  try {
    const r = await run(withV2.url, ['apply', '--dry-run=client', '-f', file]);
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, 'configmap/one created (dry run)');
    t.match(r.stdout, 'secret/two created (dry run)');
    t.ok(withV2.requests.some((q) => q.url.startsWith('/openapi/v2')), 'kubectl read the v2 document');
  } finally {
    await withV2.close();
  }
});

t.test('without fieldValidation on PATCH operations, strict apply cannot proceed', { skip }, async (t) => {
  // The control case: shows the marker above is what kubectl relies on.
  const stripped = await startFixture(served, {
    transformDocument: (doc) => {
      for (const item of Object.values<any>(doc.paths)) {
        if (item.patch) item.patch.parameters = item.patch.parameters.filter((p: any) => p.name !== 'fieldValidation');
      }
      return doc;
    },
  });
  try {
    const file = join(dir, 'cm2.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: default}\n');
    const r = await run(stripped.url, ['apply', '--dry-run=client', '-f', file]);
    t.not(r.code, 0);
    t.match(r.stderr, /--validate=false/);
  } finally {
    await stripped.close();
  }
});
