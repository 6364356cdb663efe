// The kubectl suite: real /usr/bin/kubectl against a real `capstan apiserver` process. Run
// once per storage backend by the *.test.ts files next to it.
import type { Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeKubeconfig } from '../../src/client/kubeconfig.js';
import { kubectlFor, eventually } from '../helpers/kubectl.js';
import type { APIServerProcess } from '../helpers/apiserver-process.js';

const deployment = (replicas: number, image = 'localhost/capstan/busybox:1', extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
${extra}`;

export async function kubectlSuite(t: Test, start: (t: Test) => Promise<APIServerProcess>): Promise<void> {
  const server = await start(t);
  const k = kubectlFor(t, server.kubeconfig);
  const ns = ['-n', 'suite'];
  await k.ok(['create', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: {name: suite}\n');

  await t.test('apply creates, reports unchanged, then configures', async (t) => {
    t.match(await k.ok(['apply', ...ns, '-f', '-'], deployment(2)), /deployment.apps\/web created/);
    t.match(await k.ok(['apply', ...ns, '-f', '-'], deployment(2)), /deployment.apps\/web unchanged/);
    t.match(await k.ok(['apply', ...ns, '-f', '-'], deployment(3)), /deployment.apps\/web configured/);
    t.equal(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '3');
    t.equal(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'jsonpath={.metadata.generation}']), '2');
  });

  await t.test('create -f twice is AlreadyExists', async (t) => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice}\ndata: {a: "1"}\n';
    await k.ok(['create', ...ns, '-f', '-'], cm);
    const again = await k(['create', ...ns, '-f', '-'], cm);
    t.not(again.code, 0);
    t.match(again.stderr, /Error from server \(AlreadyExists\).*configmaps "twice" already exists/);
  });

  await t.test('get in every output format, with selectors, across namespaces, in chunks', async (t) => {
    for (let i = 0; i < 5; i++) await k.ok(['create', ...ns, '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: chunk-${i}}\ndata: {i: "${i}"}\n`);
    await k.ok(['label', ...ns, 'configmap', 'chunk-1', 'chunk-3', 'pick=yes']);
    const table = await k.ok(['get', ...ns, 'deploy']);
    t.match(table, /NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/);
    t.match(await k.ok(['get', ...ns, 'deploy', '-o', 'wide']), /CONTAINERS\s+IMAGES\s+SELECTOR[\s\S]*web\s+localhost\/capstan\/busybox:1\s+app=web/);
    t.match(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'yaml']), /apiVersion: apps\/v1\nkind: Deployment/);
    const json = JSON.parse(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'json']));
    t.equal(json.spec.template.spec.containers[0].name, 'web');
    t.equal(await k.ok(['get', ...ns, 'deploy', '-o', 'name']), 'deployment.apps/web\n');
    t.equal(await k.ok(['get', ...ns, 'cm', '-l', 'pick=yes', '-o', 'name']), 'configmap/chunk-1\nconfigmap/chunk-3\n');
    t.equal(await k.ok(['get', ...ns, 'cm', '-l', 'pick!=yes,!kube-root', '-o', 'name', '--selector', 'pick notin (yes)']).then((s) => s.split('\n').filter((l) => l.startsWith('configmap/chunk')).length), 3);
    t.match(await k.ok(['get', 'services', '-A']), /NAMESPACE\s+NAME[\s\S]*default\s+kubernetes\s+ClusterIP\s+10\.96\.0\.1/);
    const chunked = await k.ok(['get', ...ns, 'cm', '--chunk-size=2', '-o', 'name', '-v=6']);
    const lines = chunked.split('\n').filter((l) => l.startsWith('configmap/chunk'));
    t.same(lines, [0, 1, 2, 3, 4].map((i) => `configmap/chunk-${i}`));
    const raw = JSON.parse(await k.ok(['get', '--raw', '/api/v1/namespaces/suite/configmaps?limit=2']));
    t.equal(raw.items.length, 2);
    t.ok(raw.metadata.continue, 'a continue token when more remain');
  });

  await t.test('get -w sees ADDED, MODIFIED and DELETED', async (t) => {
    const w = k.background(['get', ...ns, 'configmaps', '--watch', '--output-watch-events']);
    await eventually(() => /ADDED\s+chunk-0/.test(w.output()), 20_000, 'initial list');
    await k.ok(['create', ...ns, '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched}\ndata: {a: "1"}\n');
    await k.ok(['patch', ...ns, 'configmap', 'watched', '--type=merge', '-p', '{"data":{"a":"2"}}']);
    await k.ok(['delete', ...ns, 'configmap', 'watched']);
    await eventually(() => /DELETED\s+watched/.test(w.output()), 20_000, 'DELETED event');
    t.match(w.output(), /ADDED\s+watched\s[\s\S]*MODIFIED\s+watched\s[\s\S]*DELETED\s+watched\s/, 'in order');
    await w.stop();
  });

  await t.test('label, annotate, and the three patch types', async (t) => {
    await k.ok(['label', ...ns, 'deploy', 'web', 'tier=frontend']);
    await k.ok(['annotate', ...ns, 'deploy', 'web', 'owner=team-a']);
    await k.ok(['patch', ...ns, 'deploy', 'web', '--type=merge', '-p', '{"spec":{"minReadySeconds":2}}']);
    await k.ok(['patch', ...ns, 'deploy', 'web', '--type=json', '-p', '[{"op":"replace","path":"/spec/revisionHistoryLimit","value":4}]']);
    await k.ok(['patch', ...ns, 'deploy', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"localhost/capstan/busybox:2"}]}}}}']);
    const d = JSON.parse(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'json']));
    t.equal(d.metadata.labels.tier, 'frontend');
    t.equal(d.metadata.annotations.owner, 'team-a');
    t.equal(d.spec.minReadySeconds, 2);
    t.equal(d.spec.revisionHistoryLimit, 4);
    t.equal(d.spec.template.spec.containers.length, 1, 'strategic merge kept one container, merged by name');
    t.equal(d.spec.template.spec.containers[0].image, 'localhost/capstan/busybox:2');
    t.equal(d.spec.template.spec.containers[0].ports[0].containerPort, 80);
    const bad = await k(['patch', ...ns, 'deploy', 'web', '--type=json', '-p', '[{"op":"test","path":"/spec/replicas","value":99}]']);
    t.not(bad.code, 0);
    t.match(bad.stderr, /test failed at \/spec\/replicas/);
  });

  await t.test('scale through the scale subresource', async (t) => {
    t.match(await k.ok(['scale', ...ns, 'deploy', 'web', '--replicas=5']), /deployment.apps\/web scaled/);
    t.equal(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '5');
    const scale = JSON.parse(await k.ok(['get', '--raw', '/apis/apps/v1/namespaces/suite/deployments/web/scale']));
    t.equal(scale.kind, 'Scale');
    t.equal(scale.spec.replicas, 5);
    t.equal(scale.status.selector, 'app=web');
  });

  await t.test('server-side apply conflicts with another manager, force takes over', async (t) => {
    const conflict = await k(['apply', ...ns, '--server-side', '-f', '-'], deployment(3, 'localhost/capstan/busybox:2'));
    t.not(conflict.code, 0);
    t.match(conflict.stderr, /Apply failed with \d+ conflicts?: conflict with "kubectl[^"]*"/);
    t.match(conflict.stderr, /\.spec\.replicas/);
    t.match(await k.ok(['apply', ...ns, '--server-side', '--force-conflicts', '-f', '-'], deployment(3, 'localhost/capstan/busybox:2')), /serverside-applied/);
    t.equal(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '3');
    const managers = JSON.parse(await k.ok(['get', ...ns, 'deploy', 'web', '-o', 'json', '--show-managed-fields'])).metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`);
    t.ok(managers.includes('kubectl/Apply'), `managers: ${managers.join(', ')}`);
  });

  await t.test('describe, explain, api-resources, api-versions, auth whoami', async (t) => {
    const described = await k.ok(['describe', ...ns, 'deploy', 'web']);
    t.match(described, /Name:\s+web/);
    t.match(described, /Selector:\s+app=web/);
    t.match(described, /StrategyType:\s+RollingUpdate/);
    const explained = await k.ok(['explain', 'deployment.spec.strategy']);
    t.match(explained, /KIND:\s+Deployment/);
    t.match(explained, /rollingUpdate/);
    const resources = await k.ok(['api-resources']);
    for (const r of [/^pods\s+po\s+v1\s+true\s+Pod$/m, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m, /^endpointslices\s+discovery\.k8s\.io\/v1\s+true\s+EndpointSlice$/m, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m, /^nodes\s+no\s+v1\s+false\s+Node$/m]) t.match(resources, r);
    const versions = (await k.ok(['api-versions'])).split('\n');
    for (const v of ['v1', 'apps/v1', 'apps/v1beta1', 'discovery.k8s.io/v1', 'coordination.k8s.io/v1']) t.ok(versions.includes(v), v);
    t.match(await k.ok(['auth', 'whoami']), /Username\s+kubernetes-admin[\s\S]*system:masters/);
  });

  await t.test('an unknown field is rejected under strict validation', async (t) => {
    const bad = await k(['apply', ...ns, '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict}\nspec: {foo: bar}\ndata: {a: b}\n');
    t.not(bad.code, 0);
    t.match(bad.stderr, /unknown field "spec"/);
    t.equal((await k(['get', ...ns, 'cm', 'strict'])).code, 1, 'nothing was written');
    const warned = await k(['apply', ...ns, '--validate=warn', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict}\nspec: {foo: bar}\ndata: {a: b}\n');
    t.equal(warned.code, 0);
    t.match(warned.stderr, /unknown field "spec"/);
  });

  await t.test('apps/v1beta1 and apps/v1 round trip', async (t) => {
    const old = `apiVersion: apps/v1beta1
kind: Deployment
metadata: {name: legacy}
spec:
  template:
    metadata:
      labels: {app: legacy}
    spec:
      containers:
      - {name: c, image: localhost/capstan/busybox:1}
`;
    await k.ok(['create', ...ns, '-f', '-'], old);
    const v1 = JSON.parse(await k.ok(['get', ...ns, 'deployments.v1.apps', 'legacy', '-o', 'json']));
    t.equal(v1.apiVersion, 'apps/v1');
    t.same(v1.spec.selector, { matchLabels: { app: 'legacy' } }, 'v1beta1 defaulted the selector from the template');
    t.equal(v1.spec.replicas, 1, 'replicas defaulted on the internal path');
    t.equal(v1.spec.revisionHistoryLimit, 2, 'v1beta1 default history limit');
    const beta = await k.ok(['get', ...ns, 'deployments.v1beta1.apps', 'legacy', '-o', 'yaml']);
    t.match(beta, /^apiVersion: apps\/v1beta1$/m);
    const fromBeta = await k.ok(['get', ...ns, 'deployments.v1beta1.apps', 'web', '-o', 'jsonpath={.apiVersion} {.spec.replicas}']);
    t.equal(fromBeta, 'apps/v1beta1 3', 'an apps/v1 Deployment reads back as v1beta1');
  });

  await t.test('delete --wait removes the object', async (t) => {
    t.match(await k.ok(['delete', ...ns, 'deploy', 'legacy', '--wait']), /deployment.apps "legacy" deleted/);
    const gone = await k(['get', ...ns, 'deploy', 'legacy']);
    t.match(gone.stderr, /NotFound/);
  });

  await t.test('bearer tokens from the token file authenticate; others are refused', async (t) => {
    const token = readFileSync(server.pki.tokenFile, 'utf8').split(',')[0];
    const tokenConfig = (tok: string) => {
      const path = join(server.dataDir, `token-${tok.slice(0, 6)}.kubeconfig`);
      writeKubeconfig(path, { server: server.url, caPem: server.pki.ca.certPem, token: tok });
      return kubectlFor(t, path);
    };
    const withToken = await tokenConfig(token)(['get', 'ns', 'default', '-o', 'name']);
    t.equal(withToken.stdout, 'namespace/default\n', withToken.stderr);
    const bad = await tokenConfig('nope-not-a-token')(['get', 'ns']);
    t.not(bad.code, 0);
    t.match(bad.stderr, /Unauthorized|must be logged in/);
  });
}
