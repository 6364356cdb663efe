// CertificateSigningRequests end to end with real kubectl and openssl: a request made with
// openssl, `kubectl certificate approve`, the controller-manager's signer issuing a
// certificate that chains to the cluster CA and logs in as the requested user; `deny`;
// validation; the approver approving a kubelet client request from a bootstrapper
// (a client certificate in system:bootstrappers, the identity a bootstrap token yields).
import t from 'tap';
import { NODE_BOOTSTRAP_TOKEN_GROUP } from '../../src/cli/node-bootstrap.js';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeKubeconfig } from '../../src/client/index.js';
import { issueCert } from '../../src/pki/index.js';
import { createCSR } from '../../src/pki/csr.js';
import { startCSRCluster } from '../helpers/csr-cluster.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const { api, server, admin, dir } = await startCSRCluster(t, 'csr');
const kubectl = kubectlFor(t, admin);
const caCert = new X509Certificate(api.pki.ca.certPem);

function opensslCSR(name: string, subject: string): { csrPem: string; keyFile: string } {
  const keyFile = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-subj', subject, '-out', join(dir, `${name}.csr`)], { stdio: 'pipe' });
  return { csrPem: readFileSync(join(dir, `${name}.csr`), 'utf8'), keyFile };
}

const manifest = (name: string, csrPem: string, spec: Record<string, unknown> = {}) => JSON.stringify({
  apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
  spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
});

const getCSR = async (name: string) => JSON.parse(await kubectl.ok(['get', 'csr', name, '-o', 'json']));

t.test('kubectl certificate approve; the signer issues a certificate that chains to the CA', async (t) => {
  const { csrPem, keyFile } = opensslCSR('jane', '/O=devs/CN=jane');
  // The requester fields in the body are the client's word only: the server sets them.
  await kubectl.ok(['create', '-f', '-'], manifest('jane', csrPem, { expirationSeconds: 3600, username: 'mallory', groups: ['system:masters'] }));
  const pending = await getCSR('jane');
  t.equal(pending.spec.username, 'kubernetes-admin', 'username is the requester\'s');
  t.ok(pending.spec.groups.includes('system:masters') && pending.spec.groups.includes('system:authenticated'), 'groups are the requester\'s');
  t.match(await kubectl.ok(['get', 'csr', 'jane']), /jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubernetes-admin\s+60m\s+Pending/);

  t.match(await kubectl.ok(['certificate', 'approve', 'jane']), 'certificatesigningrequest.certificates.k8s.io/jane approved');
  await eventually(async () => !!(await getCSR('jane')).status?.certificate, 15_000, 'the certificate is issued');
  const csr = await getCSR('jane');
  t.match(csr.status.conditions, [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }]);
  t.match(await kubectl.ok(['get', 'csr', 'jane']), /Approved,Issued/);

  const certPem = Buffer.from(csr.status.certificate, 'base64').toString('utf8');
  const cert = new X509Certificate(certPem);
  t.ok(cert.checkIssued(caCert), 'issued by the cluster CA');
  t.ok(cert.verify(caCert.publicKey), 'signed by the cluster CA\'s key');
  t.match(cert.subject, /O=devs/);
  t.match(cert.subject, /CN=jane/);
  const lifetime = Date.parse(cert.validTo) - Date.now();
  t.ok(lifetime <= 3600_000 && lifetime > 3000_000, `valid for the requested hour (${Math.round(lifetime / 1000)} s left)`);
  writeFileSync(join(dir, 'jane.crt'), certPem);
  writeFileSync(join(dir, 'ca.crt'), api.pki.ca.certPem);
  t.match(execFileSync('openssl', ['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'jane.crt')]).toString(), /jane\.crt: OK/, 'openssl verifies the chain');

  const janeConfig = join(dir, 'jane.kubeconfig');
  writeKubeconfig(janeConfig, { server, caPem: api.pki.ca.certPem, certPem, keyPem: readFileSync(keyFile, 'utf8') });
  const whoami = JSON.parse(await kubectlFor(t, janeConfig).ok(['auth', 'whoami', '-o', 'json']));
  t.equal(whoami.status.userInfo.username, 'jane', 'the certificate logs in as jane');
  t.ok(whoami.status.userInfo.groups.includes('devs'));

  const again = await kubectl(['certificate', 'approve', 'jane']);
  t.equal(again.code, 0, 'approving again is harmless');
  const changed = await api.client.put('/apis/certificates.k8s.io/v1/certificatesigningrequests/jane/status', { ...csr, status: { ...csr.status, certificate: Buffer.from(api.pki.admin.certPem).toString('base64') } });
  t.equal(changed.status, 422, 'an issued certificate cannot be replaced');
  t.match(changed.body.message, 'updates may not modify existing certificate content');
});

t.test('kubectl certificate deny', async (t) => {
  const { csrPem } = opensslCSR('eve', '/CN=eve');
  await kubectl.ok(['create', '-f', '-'], manifest('eve', csrPem));
  t.match(await kubectl.ok(['certificate', 'deny', 'eve']), 'certificatesigningrequest.certificates.k8s.io/eve denied');
  const csr = await getCSR('eve');
  t.match(csr.status.conditions, [{ type: 'Denied', status: 'True', reason: 'KubectlDeny' }]);
  t.match(await kubectl.ok(['get', 'csr', 'eve']), /Denied/);
  const approve = await kubectl(['certificate', 'approve', 'eve']);
  t.not(approve.code, 0, 'a denied request cannot be approved');
});

t.test('a status update cannot approve', async (t) => {
  const { csrPem } = opensslCSR('sneak', '/CN=sneak');
  await kubectl.ok(['create', '-f', '-'], manifest('sneak', csrPem));
  const csr = await getCSR('sneak');
  const res = await api.client.put('/apis/certificates.k8s.io/v1/certificatesigningrequests/sneak/status', { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Sneaky' }] } });
  t.equal(res.status, 200);
  t.notOk((res.body.status?.conditions ?? []).some((c: { type: string }) => c.type === 'Approved'), 'the Approved condition written through /status is dropped');
});

t.test('validation', async (t) => {
  const { csrPem } = opensslCSR('v', '/CN=v');
  const cases: Array<[string, Record<string, unknown>, string, string?]> = [
    ['short', { expirationSeconds: 599 }, 'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)'],
    ['no-usages', { usages: [] }, 'spec.usages: Required value: usages must be provided'],
    ['bad-usage', { usages: ['client auth', 'world domination'] }, 'spec.usages[1]: Unsupported value: "world domination"'],
    ['bad-signer', { signerName: 'nope' }, "spec.signerName: Invalid value: \"nope\": must be a fully qualified domain and path of the form 'example.com/signer-name'"],
    ['not-pem', {}, 'spec.request: Invalid value', 'just text'],
  ];
  for (const [name, spec, message, request] of cases) {
    const r = await kubectl(['create', '-f', '-'], manifest(name, request ?? csrPem, spec));
    t.not(r.code, 0, name);
    t.match(r.stderr, message, name);
  }
});

t.test('the approver approves a kubelet client request from a bootstrapper', async (t) => {
  const bootstrapper = issueCert(api.pki.ca, { commonName: 'system:bootstrap:abcdef', organizations: ['system:bootstrappers', NODE_BOOTSTRAP_TOKEN_GROUP], usage: 'client' });
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'sec1' }) as string;
  const request = createCSR(key, { commonName: 'system:node:worker-1', organizations: ['system:nodes'] });
  const res = await api.client.as({ cert: bootstrapper.certPem, key: bootstrapper.keyPem }).post('/apis/certificates.k8s.io/v1/certificatesigningrequests', {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'node-csr-worker-1' },
    spec: { request: Buffer.from(request).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
  });
  t.equal(res.status, 201);
  t.equal(res.body.spec.username, 'system:bootstrap:abcdef');
  await eventually(async () => !!(await getCSR('node-csr-worker-1')).status?.certificate, 15_000, 'approved and issued without anyone running kubectl');
  const csr = await getCSR('node-csr-worker-1');
  t.match(csr.status.conditions, [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' }]);
  const cert = new X509Certificate(Buffer.from(csr.status.certificate, 'base64').toString('utf8'));
  t.ok(cert.verify(caCert.publicKey));
  t.match(cert.subject, /CN=system:node:worker-1/);
  t.match(cert.subject, /O=system:nodes/);
  t.match(await kubectl.ok(['get', 'csr', 'node-csr-worker-1']), /kube-apiserver-client-kubelet\s+system:bootstrap:abcdef\s+<none>\s+Approved,Issued/);
});

t.test('admission: approving needs approve on the signer, signing needs sign, no system:masters from kube-apiserver-client', async (t) => {
  // A user who may update approvals and status of every request, but holds no signer.
  const kp = issueCert(api.pki.ca, { commonName: 'csr-clerk', organizations: [], usage: 'client' });
  const clerkConfig = join(dir, 'clerk.kubeconfig');
  writeKubeconfig(clerkConfig, { server, caPem: api.pki.ca.certPem, certPem: kp.certPem, keyPem: kp.keyPem }, { user: 'clerk' });
  const clerk = kubectlFor(t, clerkConfig);
  await kubectl.ok(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: csr-clerk}
rules:
- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests], verbs: [get, list, watch, create]}
- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests/approval, certificatesigningrequests/status], verbs: [get, update, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: csr-clerk}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: csr-clerk}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: csr-clerk}]
`);
  const { csrPem } = opensslCSR('custom', '/CN=widget');
  await kubectl.ok(['create', '-f', '-'], manifest('custom', csrPem, { signerName: 'example.com/widgets' }));
  const refused = await clerk(['certificate', 'approve', 'custom']);
  t.not(refused.code, 0);
  t.match(refused.stderr, 'certificatesigningrequests.certificates.k8s.io "custom" is forbidden: user not permitted to approve requests with signerName "example.com/widgets"');

  // approve on the signer's domain with a wildcard is enough.
  await kubectl.ok(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: widget-approver}
rules: [{apiGroups: [certificates.k8s.io], resources: [signers], resourceNames: [example.com/*], verbs: [approve]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: widget-approver}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: widget-approver}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: csr-clerk}]
`);
  t.match(await clerk.ok(['certificate', 'approve', 'custom']), 'certificatesigningrequest.certificates.k8s.io/custom approved');

  // Issuing a certificate (status.certificate) needs sign on the signer.
  const fake = Buffer.from(api.pki.ca.certPem).toString('base64');
  const sign = await clerk(['patch', 'csr', 'custom', '--subresource', 'status', '--type', 'merge', '-p', JSON.stringify({ status: { certificate: fake } })]);
  t.not(sign.code, 0);
  t.match(sign.stderr, 'certificatesigningrequests.certificates.k8s.io "custom" is forbidden: user not permitted to sign requests with signerName "example.com/widgets"');
  t.notOk((await getCSR('custom')).status.certificate, 'no certificate was set');

  const masters = opensslCSR('root-wannabe', '/O=system:masters/CN=root-wannabe');
  const created = await kubectl(['create', '-f', '-'], manifest('root-wannabe', masters.csrPem));
  t.not(created.code, 0, 'refused even for an admin');
  t.match(created.stderr, 'certificatesigningrequests.certificates.k8s.io "root-wannabe" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
});
