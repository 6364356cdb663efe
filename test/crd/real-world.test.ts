// Real-world CRDs (test/fixtures/crds, with their origin) apply unchanged with kubectl apply
// and kubectl apply --server-side, are served, and objects of their kinds validate,
// default and print as kube-apiserver would have them.
import t from 'tap';
import { join } from 'node:path';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';

const fixtures = join(process.cwd(), 'test/fixtures/crds');
const api = await startAPIServer(t);
const c = api.client;
const kubectl = kubectlFor(t, writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`));

// Client-side apply keeps the whole manifest (as JSON) in an annotation, capped at 256 KiB:
// the Prometheus definition (483 KB as JSON) goes only through server-side apply, as its
// project installs it.
const crds: { file: string; name: string; clientSide: boolean }[] = [
  { file: 'cert-manager.io_certificates.yaml', name: 'certificates.cert-manager.io', clientSide: true },
  { file: 'monitoring.coreos.com_servicemonitors.yaml', name: 'servicemonitors.monitoring.coreos.com', clientSide: true },
  { file: 'monitoring.coreos.com_prometheusrules.yaml', name: 'prometheusrules.monitoring.coreos.com', clientSide: true },
  { file: 'monitoring.coreos.com_prometheuses.yaml', name: 'prometheuses.monitoring.coreos.com', clientSide: false },
  { file: 'rabbitmq.com_rabbitmqclusters.yaml', name: 'rabbitmqclusters.rabbitmq.com', clientSide: true },
];

t.test('the definitions apply client-side and server-side and are established', async (t) => {
  for (const crd of crds) {
    const path = join(fixtures, crd.file);
    if (crd.clientSide) {
      t.match(await kubectl.ok(['apply', '-f', path]), new RegExp(`${crd.name} created`), `${crd.file}: kubectl apply`);
      t.match(await kubectl.ok(['apply', '-f', path]), new RegExp(`${crd.name} unchanged`), `${crd.file}: applied again, unchanged`);
    }
    t.match(await kubectl.ok(['apply', '--server-side', '--force-conflicts', '-f', path]), new RegExp(`${crd.name} (serverside-applied|created)`), `${crd.file}: kubectl apply --server-side`);
    await kubectl.ok(['wait', '--for=condition=Established', '--timeout=10s', `crd/${crd.name}`]);
  }
  const big = await kubectl(['apply', '-f', join(fixtures, 'monitoring.coreos.com_prometheuses.yaml')]);
  t.match(big.stderr, /metadata.annotations: Too long/, 'client-side apply of the 833 KB definition is refused as upstream refuses it');
});

t.test('cert-manager Certificate', async (t) => {
  const bad = await kubectl(['apply', '-f', '-'], `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: bad}
spec: {dnsNames: [a.example.com], privateKey: {algorithm: DSA}}
`);
  t.match(bad.stderr, /spec.issuerRef: Required value/);
  t.match(bad.stderr, /spec.secretName: Required value/);
  t.match(bad.stderr, /spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"/);
  await kubectl.ok(['apply', '-f', '-'], `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec: {secretName: web-tls, dnsNames: [web.example.com], issuerRef: {name: ca, kind: Issuer}}
`);
  const table = await kubectl.ok(['get', 'certificates']);
  t.match(table, /NAME\s+READY\s+SECRET\s+AGE/, 'printer columns (priority-1 columns only with -o wide)');
  t.match(table, /web\s+web-tls\s+\d+s/, 'a missing value is an empty cell');
  await kubectl.ok(['patch', 'certificate', 'web', '--subresource=status', '--type=merge', '-p',
    JSON.stringify({ status: { conditions: [{ type: 'Issuing', status: 'True' }, { type: 'Ready', status: 'True', message: 'Certificate is up to date' }] } })]);
  t.match(await kubectl.ok(['get', 'certificates']), /web\s+True\s+web-tls\s+\d+s/, 'a column filtered on the Ready condition');
  t.match(await kubectl.ok(['get', 'certificates', '-o', 'wide']), /web\s+True\s+web-tls\s+ca\s+Certificate is up to date\s+\d+s/, 'priority-1 columns in -o wide');
  t.match(await kubectl.ok(['get', 'cert-manager']), /web\s+True\s+web-tls/, 'category cert-manager');
  t.match(await kubectl.ok(['explain', 'certificate.spec.issuerRef']), /name\s+<string> -required-/);
});

t.test('prometheus-operator ServiceMonitor and PrometheusRule', async (t) => {
  const bad = await kubectl(['apply', '-f', '-'], `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: bad}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: web, interval: 30 seconds, scheme: ftp}]
`);
  t.match(bad.stderr, /spec.endpoints\[0\].interval: Invalid value: "30 seconds": spec.endpoints\[0\].interval in body should match/);
  t.match(bad.stderr, /spec.endpoints\[0\].scheme: Unsupported value: "ftp"/);
  await kubectl.ok(['apply', '--server-side', '-f', '-'], `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: web, interval: 30s}]
`);
  await kubectl.ok(['apply', '-f', '-'], `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: rules}
spec:
  groups:
  - name: web
    rules:
    - alert: Down
      expr: up == 0
      for: 5m
      labels: {severity: page}
`);
  const rule = (await c.get('/apis/monitoring.coreos.com/v1/namespaces/default/prometheusrules/rules')).body;
  t.equal(rule.spec.groups[0].rules[0].expr, 'up == 0', 'int-or-string expr kept');
});

t.test('RabbitmqCluster and Prometheus: defaults, minimum, scale', async (t) => {
  const bad = await kubectl(['apply', '--server-side', '-f', '-'], `apiVersion: rabbitmq.com/v1beta1
kind: RabbitmqCluster
metadata: {name: bad}
spec: {replicas: -1}
`);
  t.match(bad.stderr, /spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0/);
  await kubectl.ok(['apply', '--server-side', '-f', '-'], `apiVersion: rabbitmq.com/v1beta1
kind: RabbitmqCluster
metadata: {name: rmq}
spec: {}
`);
  const rmq = (await c.get('/apis/rabbitmq.com/v1beta1/namespaces/default/rabbitmqclusters/rmq')).body;
  t.equal(rmq.spec.replicas, 1, 'defaulted from the schema');
  await kubectl.ok(['apply', '--server-side', '-f', '-'], `apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: main}
spec: {replicas: 1, serviceAccountName: prometheus}
`);
  // Its scale subresource is over .spec.shards.
  await kubectl.ok(['scale', 'prometheus/main', '--replicas=2']);
  const main = (await c.get('/apis/monitoring.coreos.com/v1/namespaces/default/prometheuses/main')).body;
  t.equal(main.spec.shards, 2);
  t.equal(main.spec.replicas, 1);
});
