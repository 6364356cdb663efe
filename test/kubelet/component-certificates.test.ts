// The service proxy's, network agent's and DNS's client certificates an installed node requested
// for them are renewed before they expire, the way the kubelet's own is (70–90% of the lifetime,
// a new key and CSR, asked for as the node), by the kubelet (`--rotate-component-certificates`:
// renewComponentCertificates), and a component's running API client switches to the renewed
// certificate without a restart. Against a real API server and the real controller-manager's
// approver and signer (1 h certificates); the renewers' clock is a fake one stepped to the deadline.
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { ensureNodeBootstrapRBAC } from '../../src/cli/node-bootstrap.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { Clientset, clientsetFromKubeconfig, FakeClock, loadKubeconfig, realClock, resources, RESTClient, writeKubeconfig } from '../../src/client/index.js';
import { writeCertDirKubeconfig } from '../../src/kubelet/certificate/bootstrap.js';
import { CertificateStore, componentCredentials, renewComponentCertificates, type NodeComponent } from '../../src/kubelet/certificate/index.js';
import { logger } from '../../src/log/index.js';
import { issueCert } from '../../src/pki/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const api = await startAPIServer(t);
const dir = mkdtempSync(join(tmpdir(), 'capstan-component-certs-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const server = `https://127.0.0.1:${api.port}`;
const admin = writeAdminKubeconfig(api.dir, api.pki, server);
const adminClients = clientsetFromKubeconfig(admin, 'component-certs');
t.teardown(() => adminClients.close());
await ensureNodeBootstrapRBAC(adminClients);
const cm = await startControllerManager(['--kubeconfig', admin, '--controllers', 'csrapproving,csrsigning', '--leader-elect', 'false', '--secure-port', '0',
  '--cluster-signing-cert-file', join(api.dir, 'pki', 'ca.crt'), '--cluster-signing-key-file', join(api.dir, 'pki', 'ca.key'), '--cluster-signing-duration', '1h']);
t.teardown(() => cm.stop());
const ca = new X509Certificate(api.pki.ca.certPem);
const quiet = logger('test', {}, () => undefined);

// The node as an installed one is: its own identity in kubelet.conf, the components' kubeconfigs
// beside it, their certificates in pki/ — requested once by the installer, which then exits.
const nodeDir = join(dir, 'node');
const certDir = join(nodeDir, 'pki');
const nodeCert = issueCert(api.pki.ca, { commonName: 'system:node:worker-c', organizations: ['system:nodes'], usage: 'client' });
const kubeletKubeconfig = join(nodeDir, 'kubelet.conf');
mkdirSync(certDir, { recursive: true });
writeKubeconfig(kubeletKubeconfig, { server, caPem: api.pki.ca.certPem, certPem: nodeCert.certPem, keyPem: nodeCert.keyPem });
const kubeconfigPath = (c: NodeComponent) => join(nodeDir, `${c}.kubeconfig`);
const components: NodeComponent[] = ['proxy', 'networkAgent', 'dns'];
const installed = await componentCredentials({ kubeletKubeconfig, certDir, components, kubeconfigPath, clock: realClock, log: quiet });
installed.stop();

const serial = (c: NodeComponent) => new X509Certificate(readFileSync(join(certDir, `${c}-client-current.pem`), 'utf8')).serialNumber;
type CSRItem = { metadata: { name: string }; spec: { username: string; signerName: string; request: string }; status?: { conditions?: { type: string; message: string }[] } };
const componentCSRs = async () => ((await adminClients.resource(resources.certificatesigningrequests).list()).items as unknown as CSRItem[])
  .filter((c) => c.spec.signerName === 'kubernetes.io/kube-apiserver-client');

t.test('the kubelet renews each component\'s certificate at its deadline, as the node, and the running component switches to it', async (t) => {
  // The proxy, running: its client built from its kubeconfig, looking at the file every 200 ms.
  const proxyRest = new RESTClient(loadKubeconfig(kubeconfigPath('proxy')), 'capstan-proxy', 200);
  t.teardown(() => proxyRest.close());
  const proxy = new Clientset(proxyRest);
  t.ok(await proxy.resource(resources.endpointslices).list(), 'the proxy lists EndpointSlices with the installed certificate');

  const before = Object.fromEntries(components.map((c) => [c, serial(c)]));
  const csrsBefore = (await componentCSRs()).length;
  t.equal(csrsBefore, 3, 'the installer asked for three');
  const clock = new FakeClock(Date.now());
  const renewal = renewComponentCertificates({ kubeletKubeconfig, certDir, components, kubeconfigPath, clock, log: quiet, random: () => 0.5 });
  t.teardown(() => renewal.stop());
  await renewal.scanned;
  t.same([...renewal.managers.keys()].sort(), [...components].sort(), 'all three are renewed by the kubelet');
  const first = new X509Certificate(readFileSync(join(certDir, 'proxy-client-current.pem'), 'utf8'));
  const nb = Date.parse(first.validFrom), na = Date.parse(first.validTo);
  t.ok(na - nb <= 65 * 60_000 + 1000, 'a 1 h certificate (backdated 5 minutes)');
  const deadline = Math.max(...[...renewal.managers.values()].map((m) => m.deadline));
  t.equal(Math.round(renewal.managers.get('proxy')!.deadline), Math.round(nb + 0.8 * (na - nb)), 'the deadline: 80% of the lifetime (random 0.5), as the kubelet\'s');
  t.ok(deadline < na, 'before it expires');

  clock.step(Math.min(...[...renewal.managers.values()].map((m) => m.deadline)) - clock.now() - 1000);
  t.same(Object.fromEntries(components.map((c) => [c, serial(c)])), before, 'a second before the deadline: the same certificates');
  t.equal((await componentCSRs()).length, 3, 'and no new request');

  clock.step(deadline - clock.now() + 1000);
  await eventually(() => components.every((c) => serial(c) !== before[c]), 30_000, 'every certificate is renewed');
  const csrs = await componentCSRs();
  t.equal(csrs.length, 6, 'three new requests');
  for (const csr of csrs.slice(-3)) {
    t.equal(csr.spec.username, 'system:node:worker-c', `${csr.metadata.name} was requested by the node`);
    t.match(csr.status?.conditions, [{ type: 'Approved', message: 'Auto approving node component client certificate after SubjectAccessReview.' }]);
  }
  const want = { proxy: 'system:kube-proxy', networkAgent: 'system:capstan-network-agent', dns: 'system:serviceaccount:kube-system:capstan-dns' };
  for (const c of components) {
    const pem = readFileSync(join(certDir, `${c}-client-current.pem`), 'utf8');
    const cert = new X509Certificate(pem);
    t.ok(cert.verify(ca.publicKey), `${c}: signed by the cluster CA`);
    t.match(cert.subject, `CN=${want[c as keyof typeof want]}`, `${c}: the same identity`);
    t.not(cert.publicKey.export({ format: 'der', type: 'spki' }).toString('hex'), first.publicKey.export({ format: 'der', type: 'spki' }).toString('hex'), `${c}: a new key`);
    t.equal((await kubectlFor(t, kubeconfigPath(c)).ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim(), want[c as keyof typeof want], `${c}: its kubeconfig logs in with it`);
  }
  // The proxy's client, started before the renewal, now presents the renewed certificate.
  await eventually(() => new X509Certificate(proxyRest.config.certPem!).serialNumber === serial('proxy'), 10_000, 'the running proxy client switches certificates');
  t.ok(await proxy.resource(resources.endpointslices).list(), 'and keeps working');
  // The next renewal follows the new certificate's lifetime. (Not simply "later than the old
  // deadline": the signer issues on the real clock, and two certificates issued within the same
  // second carry the same validity.)
  const scheduledForCurrent = () => {
    const cur = new X509Certificate(readFileSync(join(certDir, 'proxy-client-current.pem'), 'utf8'));
    const [from, to] = [Date.parse(cur.validFrom), Date.parse(cur.validTo)];
    return Math.round(renewal.managers.get('proxy')!.deadline) === Math.round(from + 0.8 * (to - from));
  };
  await eventually(scheduledForCurrent, 10_000, 'the next renewal is scheduled at 80% of the new certificate\'s lifetime');
  t.ok(scheduledForCurrent(), 'the next renewal is scheduled for the new certificate');
});

t.test('a certificate that expired while nothing renewed it is renewed at once', async (t) => {
  const expired = new X509Certificate(readFileSync(join(certDir, 'dns-client-current.pem'), 'utf8'));
  const clock = new FakeClock(Date.parse(expired.validTo) + 3600_000);
  const renewal = renewComponentCertificates({ kubeletKubeconfig, certDir, components: ['dns'], kubeconfigPath, clock, log: quiet });
  t.teardown(() => renewal.stop());
  await renewal.scanned;
  t.not(serial('dns'), expired.serialNumber, 'a new certificate before anything else');
  t.ok(renewal.managers.has('dns'));
});

t.test('a component whose certificate comes later is picked up; an operator\'s certificate is left alone', async (t) => {
  const dir2 = join(dir, 'node2');
  const certDir2 = join(dir2, 'pki');
  mkdirSync(certDir2, { recursive: true });
  const path2 = (c: NodeComponent) => join(dir2, `${c}.kubeconfig`);
  // DNS runs with a kubeconfig an operator wrote (inline certificate): not the kubelet's to renew.
  const operators = issueCert(api.pki.ca, { commonName: 'system:serviceaccount:kube-system:capstan-dns', organizations: [], usage: 'client' });
  writeKubeconfig(path2('dns'), { server, caPem: api.pki.ca.certPem, certPem: operators.certPem, keyPem: operators.keyPem });
  const clock = new FakeClock(Date.now());
  const renewal = renewComponentCertificates({ kubeletKubeconfig, certDir: certDir2, components, kubeconfigPath: path2, clock, log: quiet, rescanMs: 60_000 });
  t.teardown(() => renewal.stop());
  await renewal.scanned;
  t.equal(renewal.managers.size, 0, 'nothing to renew yet');
  // The installer requests the proxy's once the Node is registered.
  const creds = await componentCredentials({ kubeletKubeconfig, certDir: certDir2, components: ['proxy'], kubeconfigPath: path2, clock: realClock, log: quiet });
  creds.stop();
  clock.step(60_000);
  await eventually(() => renewal.managers.has('proxy'), 10_000, 'the next look finds the proxy\'s');
  t.notOk(renewal.managers.has('dns'), 'the operator\'s DNS certificate is not managed');
  t.equal(loadKubeconfig(path2('dns')).certPem, operators.certPem, 'nor rewritten');
});

t.test('a client whose kubeconfig names certificate files presents what the files hold now', async (t) => {
  // Two identities, so the API server itself shows which certificate the connection presented.
  const store = new CertificateStore(join(dir, 'reload'), 'someone-client');
  const alice = issueCert(api.pki.ca, { commonName: 'alice', organizations: [], usage: 'client' });
  const bob = issueCert(api.pki.ca, { commonName: 'bob', organizations: [], usage: 'client' });
  store.update(alice.certPem, alice.keyPem, new Date(Date.now() - 1000));
  const kubeconfig = join(dir, 'reload', 'someone.kubeconfig');
  writeCertDirKubeconfig(kubeconfig, { server, caPem: api.pki.ca.certPem }, store.currentPath);
  const rest = new RESTClient(loadKubeconfig(kubeconfig), 'test', 100);
  t.teardown(() => rest.close());
  const whoami = async () => (await rest.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } })).status.userInfo.username;
  t.equal(await whoami(), 'alice');
  store.update(bob.certPem, bob.keyPem, new Date());
  await eventually(async () => await whoami() === 'bob', 10_000, 'the connection presents the new certificate');
  t.notOk(rest.reloadClientCertificate(), 'nothing more to switch to');
});
