// The kubelet's client certificate from the cluster, against a real API server and the real
// controller-manager (approver and signer): with only a bootstrap kubeconfig (a client
// certificate in system:bootstrappers, the identity a bootstrap token yields) it obtains
// `system:node:<name>` in system:nodes, writes kubelet-client-current.pem and a kubeconfig
// kubectl logs in with; when the injected clock passes 70–90% of the certificate's 10-minute
// lifetime it renews as the node itself, and its API client switches to the new certificate.
import t from 'tap';
import { NODE_BOOTSTRAP_TOKEN_GROUP } from '../../src/cli/node-bootstrap.js';
import { X509Certificate } from 'node:crypto';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeClock, resources, writeKubeconfig } from '../../src/client/index.js';
import { clientCredentials, rotationDeadline, servingCertificateManager } from '../../src/kubelet/certificate/index.js';
import { logger } from '../../src/log/index.js';
import { issueCert } from '../../src/pki/index.js';
import { startCSRCluster } from '../helpers/csr-cluster.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const { api, server, admin, dir } = await startCSRCluster(t, 'kubelet-certs');
const adminKubectl = kubectlFor(t, admin);
const ca = new X509Certificate(api.pki.ca.certPem);

t.test('the deadline falls in 70–90% of the lifetime', async (t) => {
  t.equal(Math.round(rotationDeadline(0, 1000, () => 0)), 700);
  t.equal(Math.round(rotationDeadline(0, 1000, () => 1)), 900);
  t.equal(Math.round(rotationDeadline(1000, 2000, () => 0.5)), 1800);
});

t.test('bootstrap, then rotation at the deadline', async (t) => {
  const bootstrapper = issueCert(api.pki.ca, { commonName: 'system:bootstrap:07401b', organizations: ['system:bootstrappers', NODE_BOOTSTRAP_TOKEN_GROUP], usage: 'client' });
  const bootstrapKubeconfig = join(dir, 'bootstrap-kubelet.conf');
  writeKubeconfig(bootstrapKubeconfig, { server, caPem: api.pki.ca.certPem, certPem: bootstrapper.certPem, keyPem: bootstrapper.keyPem });
  const kubeconfig = join(dir, 'kubelet.conf');
  const certDir = join(dir, 'pki');
  const clock = new FakeClock(Date.now());
  const creds = await clientCredentials({
    nodeName: 'worker-7', kubeconfig, bootstrapKubeconfig, certDir, rotate: true, clock, random: () => 0.5,
    log: logger('kubelet', {}, () => undefined), expirationSeconds: 600,
  });
  t.teardown(() => creds.stop());

  const current = join(certDir, 'kubelet-client-current.pem');
  t.ok(lstatSync(current).isSymbolicLink(), 'kubelet-client-current.pem points at the issued pair');
  const first = new X509Certificate(readFileSync(current, 'utf8'));
  t.match(first.subject, /O=system:nodes/);
  t.match(first.subject, /CN=system:node:worker-7/);
  t.ok(first.verify(ca.publicKey), 'signed by the cluster CA');
  t.ok(Date.parse(first.validTo) - Date.now() <= 600_000, 'no longer than the 600 s asked for');

  const whoami = JSON.parse(await kubectlFor(t, kubeconfig).ok(['auth', 'whoami', '-o', 'json']));
  t.equal(whoami.status.userInfo.username, 'system:node:worker-7', 'the written kubeconfig logs in as the node');
  t.ok(whoami.status.userInfo.groups.includes('system:nodes'));

  const csrs = async () => JSON.parse(await adminKubectl.ok(['get', 'csr', '-o', 'json']));
  const list1 = await csrs();
  t.equal(list1.items.length, 1);
  t.equal(list1.items[0].spec.username, 'system:bootstrap:07401b', 'the first request was the bootstrapper\'s');
  t.equal(list1.items[0].spec.expirationSeconds, 600);
  t.match(list1.items[0].status.conditions, [{ type: 'Approved', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' }]);

  // The deadline: notBefore + 80% (random 0.5) of notBefore..notAfter.
  const deadline = creds.manager!.deadline;
  const nb = Date.parse(first.validFrom), na = Date.parse(first.validTo);
  t.equal(Math.round(deadline), Math.round(nb + 0.8 * (na - nb)));
  clock.step(deadline - clock.now() - 1000);
  t.equal(new X509Certificate(readFileSync(current, 'utf8')).serialNumber, first.serialNumber, 'a second before the deadline: the same certificate');
  t.equal((await csrs()).items.length, 1, 'and no new request');

  clock.step(2000);
  await eventually(() => new X509Certificate(readFileSync(current, 'utf8')).serialNumber !== first.serialNumber, 20_000, 'the certificate is renewed');
  const second = new X509Certificate(readFileSync(current, 'utf8'));
  t.match(second.subject, /CN=system:node:worker-7/);
  t.ok(second.verify(ca.publicKey));
  t.not(second.publicKey.export({ format: 'der', type: 'spki' }).toString('hex'), first.publicKey.export({ format: 'der', type: 'spki' }).toString('hex'), 'with a new key');
  const list2 = await csrs();
  t.equal(list2.items.length, 2);
  const renewal = list2.items.find((c: { spec: { username: string } }) => c.spec.username === 'system:node:worker-7');
  t.ok(renewal, 'the renewal was requested by the node itself');
  t.match(renewal.status.conditions, [{ type: 'Approved', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' }]);

  // The kubelet's own client now presents the new certificate.
  const review = await creds.rest.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  t.equal(review.status.userInfo.username, 'system:node:worker-7');
  t.equal(new X509Certificate(creds.rest.config.certPem!).serialNumber, second.serialNumber, 'the API client switched certificates');
  t.ok(await creds.clients.resource(resources.services).list(), 'and keeps working');
  t.ok(existsSync(kubeconfig));
  t.equal(JSON.parse(await kubectlFor(t, kubeconfig).ok(['auth', 'whoami', '-o', 'json'])).status.userInfo.username, 'system:node:worker-7', 'the kubeconfig follows the rotation');
});

t.test('a kubelet restarted with a valid certificate uses it and asks nothing', async (t) => {
  const certDir = join(dir, 'pki');
  const kubeconfig = join(dir, 'kubelet.conf');
  const before = (JSON.parse(await adminKubectl.ok(['get', 'csr', '-o', 'json'])).items as unknown[]).length;
  const creds = await clientCredentials({
    nodeName: 'worker-7', kubeconfig, certDir, rotate: true, clock: new FakeClock(Date.now()),
    log: logger('kubelet', {}, () => undefined),
  });
  t.teardown(() => creds.stop());
  t.ok(creds.manager, 'the cert dir\'s certificate is managed');
  const after = (JSON.parse(await adminKubectl.ok(['get', 'csr', '-o', 'json'])).items as unknown[]).length;
  t.equal(after, before, 'no new request');
});

t.test('a serving certificate for the node\'s own name and addresses', async (t) => {
  const certDir = join(dir, 'pki');
  const kubeconfig = join(dir, 'kubelet.conf');
  const creds = await clientCredentials({ nodeName: 'worker-7', kubeconfig, certDir, rotate: false, clock: new FakeClock(Date.now()), log: logger('kubelet', {}, () => undefined) });
  t.teardown(() => creds.stop());
  // As the node registers itself (NodeRestriction lets it).
  await creds.clients.resource(resources.nodes).create(undefined, { metadata: { name: 'worker-7' } });
  await creds.clients.resource(resources.nodes).patch(undefined, 'worker-7', 'merge', { status: { addresses: [{ type: 'InternalIP', address: '10.77.0.7' }, { type: 'Hostname', address: 'worker-7' }] } }, 'status');
  let rotated = 0;
  const manager = servingCertificateManager({ nodeName: 'worker-7', certDir, clients: creds.clients, clock: new FakeClock(Date.now()), log: logger('kubelet', {}, () => undefined), onRotate: () => { rotated++; } });
  t.teardown(() => manager.stop());
  const pair = await manager.start();
  t.equal(rotated, 1);
  t.ok(pair.cert.verify(ca.publicKey), 'signed by the cluster CA');
  t.equal(pair.cert.subjectAltName, 'DNS:worker-7, IP Address:10.77.0.7', 'its name and its Node\'s address');
  t.ok(lstatSync(join(certDir, 'kubelet-server-current.pem')).isSymbolicLink());
  const csr = (JSON.parse(await adminKubectl.ok(['get', 'csr', '-o', 'json'])).items as Array<{ spec: { signerName: string }; status: { conditions: Array<{ message: string }> } }>)
    .find((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving')!;
  t.match(csr.status.conditions, [{ message: "Auto approving kubelet serving certificate for the node's own name and addresses." }]);
});
