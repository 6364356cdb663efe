// The CSR approver and signer against the in-memory API: which requests the approver
// approves (kubelet client requests a permitted requester makes, a node's serving request
// for its own names and addresses) and which it leaves for a person; the signer issuing
// certificates for approved requests and failing the ones that do not fit their signer.
import t, { type Test } from 'tap';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { CSRApprovingController, CSRSigningController } from '../../src/controllers/certificates/index.js';
import { createCA } from '../../src/pki/index.js';
import { createCSR, type CSRSubject } from '../../src/pki/csr.js';
import type { CertificateSigningRequest } from '../../src/api/kinds.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';

const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'sec1' }) as string;
const request = (s: CSRSubject) => Buffer.from(createCSR(key, s)).toString('base64');
const nodeClient = { commonName: 'system:node:n1', organizations: ['system:nodes'] };

function csr(name: string, spec: Partial<CertificateSigningRequest['spec']> & { subject?: CSRSubject }, status?: CertificateSigningRequest['status']): CertificateSigningRequest {
  const { subject = nodeClient, ...rest } = spec;
  return {
    metadata: { name },
    spec: { request: request(subject), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'], username: 'system:bootstrap:abc', groups: ['system:bootstrappers', 'system:authenticated'], ...rest },
    ...(status ? { status } : {}),
  };
}

// The default bindings: bootstrappers may have new node certificates approved, nodes renewals.
const access = async (c: CertificateSigningRequest, sub: 'nodeclient' | 'selfnodeclient') =>
  (c.spec.groups ?? []).includes(sub === 'nodeclient' ? 'system:bootstrappers' : 'system:nodes');

async function approver(t: Test, seed: CertificateSigningRequest[]) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, { metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '10.1.0.7' }, { type: 'Hostname', address: 'n1.lab' }] } });
  fake.seed(resources.certificatesigningrequests, ...seed);
  const informers = new SharedInformerFactory(fake, { clock });
  const c = new CSRApprovingController(controllerContext({ clients: fake, informers, clock }), access);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  await queueDriver(c, fake, clock).drain();
  const approvals = new Map<string, string>();
  for (const a of fake.actions) {
    if (a.verb === 'update' && a.subresource === 'approval') approvals.set(a.name, (a.object?.status?.conditions as Array<{ type: string; message: string }>).find((x) => x.type === 'Approved')!.message);
  }
  return approvals;
}

t.test('approver', async (t) => {
  const approvals = await approver(t, [
    csr('bootstrap', {}),
    csr('renewal', { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] }),
    csr('stranger', { username: 'bob', groups: ['devs'] }),
    csr('renewal-for-another', { username: 'system:node:n2', groups: ['system:nodes'] }),
    csr('wrong-org', { subject: { commonName: 'system:node:n1', organizations: ['system:masters'] } }),
    csr('wrong-usages', { usages: ['digital signature', 'client auth', 'server auth'] }),
    csr('with-sans', { subject: { ...nodeClient, dnsNames: ['n1'] } }),
    csr('generic-client', { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] }),
    csr('denied', {}, { conditions: [{ type: 'Denied', status: 'True', reason: 'ByHand' }] }),
    csr('serving', { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'], username: 'system:node:n1', groups: ['system:nodes'], subject: { ...nodeClient, dnsNames: ['n1', 'n1.lab'], ipAddresses: ['10.1.0.7'] } }),
    csr('serving-foreign-ip', { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'], username: 'system:node:n1', groups: ['system:nodes'], subject: { ...nodeClient, dnsNames: ['n1'], ipAddresses: ['10.9.9.9'] } }),
    csr('serving-by-bootstrapper', { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'], subject: { ...nodeClient, dnsNames: ['n1'] } }),
  ]);
  t.strictSame(Object.fromEntries(approvals), {
    bootstrap: 'Auto approving kubelet client certificate after SubjectAccessReview.',
    renewal: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    serving: "Auto approving kubelet serving certificate for the node's own name and addresses.",
  }, 'only these; the rest wait for a person');
});

async function signer(t: Test, seed: CertificateSigningRequest[]) {
  const clock = new FakeClock(Date.now());
  const fake = new FakeClientset(clock);
  fake.seed(resources.certificatesigningrequests, ...seed);
  const informers = new SharedInformerFactory(fake, { clock });
  const ca = createCA('test-ca');
  const c = new CSRSigningController(controllerContext({ clients: fake, informers, clock }), { ca, durationMs: 24 * 3600_000 });
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  await queueDriver(c, fake, clock).drain();
  return { get: (name: string) => fake.get(resources.certificatesigningrequests, undefined, name), ca: new X509Certificate(ca.certPem), clock };
}

t.test('signer', async (t) => {
  const approved = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] };
  const { get, ca, clock } = await signer(t, [
    csr('good', { expirationSeconds: 600 }, approved),
    csr('long', {}, approved),
    csr('pending', {}),
    csr('bad-org', { subject: { commonName: 'system:node:n1', organizations: ['system:masters'] } }, approved),
    csr('other-signer', { signerName: 'example.com/mine' }, approved),
  ]);
  const good = new X509Certificate(Buffer.from(get('good')!.status!.certificate!, 'base64').toString());
  t.ok(good.verify(ca.publicKey), 'issued with the CA');
  t.equal(Date.parse(good.validTo), Math.floor((clock.now() + 600_000) / 1000) * 1000, 'expirationSeconds honoured');
  t.equal(Date.parse(good.validFrom), Math.floor((clock.now() - 300_000) / 1000) * 1000, 'backdated five minutes');
  const long = new X509Certificate(Buffer.from(get('long')!.status!.certificate!, 'base64').toString());
  t.equal(Date.parse(long.validTo), Math.floor((clock.now() + 24 * 3600_000) / 1000) * 1000, 'capped at the signing duration');
  t.notOk(get('pending')!.status?.certificate, 'not approved: not signed');
  t.strictSame(get('other-signer')!.status, approved, 'another signer\'s request is left alone');
  t.match(get('bad-org')!.status, { conditions: [{ type: 'Approved' }, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'subject organization is not system:nodes' }] });
  t.notOk(get('bad-org')!.status?.certificate);
});
