// Token join against a real API server and controller-manager (bootstrap signer, CSR approver
// and signer, running as system:kube-controller-manager under RBAC): `capstan token create`
// prints the join command; the bootstrap signer signs cluster-info with the token; `capstan
// join` refuses a wrong CA hash or a wrong token secret with kubeadm's words, and with the
// right ones gets the kubelet its system:node certificate from a CSR, holding no CA key.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { caCertHash } from '../../src/api/cluster-info.js';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { joinCluster } from '../../src/cli/join.js';
import { componentCredentials } from '../../src/kubelet/certificate/index.js';
import { realClock } from '../../src/client/index.js';
import { logger } from '../../src/log/index.js';
import { ensureClusterInfo, ensureNodeBootstrapRBAC } from '../../src/cli/node-bootstrap.js';
import { writeAdminKubeconfig, writeComponentKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig } from '../../src/client/index.js';
import { startAPIServer } from '../helpers/api.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const run = promisify(execFile);
const capstan = (args: string[]) => run(process.execPath, [capstanBin, ...args], { timeout: 60_000 }).then(
  (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
  (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
);

const api = await startAPIServer(t);
const server = `https://127.0.0.1:${api.port}`;
const admin = writeAdminKubeconfig(api.dir, api.pki, server);
const clients = clientsetFromKubeconfig(admin, 'join-test');
t.teardown(() => clients.close());
// What `capstan up` does after the API server starts (kubeadm init's bootstrap-token phase).
await ensureNodeBootstrapRBAC(clients);
await ensureClusterInfo(clients, server, api.pki.ca.certPem);
const cm = await startControllerManager(['--kubeconfig', writeComponentKubeconfig(api.dir, api.pki, server, 'controller-manager'),
  '--controllers', 'bootstrapsigner,csrapproving,csrsigning', '--leader-elect', 'false', '--secure-port', '0',
  '--cluster-signing-cert-file', join(api.dir, 'pki', 'ca.crt'), '--cluster-signing-key-file', join(api.dir, 'pki', 'ca.key')]);
t.teardown(() => cm.stop());
const dir = mkdtempSync(join(tmpdir(), 'capstan-join-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const created = await capstan(['token', 'create', '--ttl', '1h', '--kubeconfig', admin]);
t.equal(created.code, 0, created.stderr);
const m = /^capstan join --server (\S+) --token (([a-z0-9]{6})\.[a-z0-9]{16}) --discovery-token-ca-cert-hash (sha256:[0-9a-f]{64})\n$/.exec(created.stdout);
t.ok(m, `join command printed: ${created.stdout}`);
const [, joinServer, token, tokenID, hash] = m!;

t.test('token create: the Secret, the hash of the CA, the signature in cluster-info', async (t) => {
  t.equal(joinServer, server);
  t.equal(hash, caCertHash(api.pki.ca.certPem));
  const secret = (await api.client.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${tokenID}`)).body;
  t.equal(secret.type, 'bootstrap.kubernetes.io/token');
  t.equal(Buffer.from(secret.data['usage-bootstrap-signing'], 'base64').toString(), 'true');
  t.ok(secret.data.expiration, 'expires (--ttl 1h)');
  await eventually(async () => !!(await api.client.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body.data?.[`jws-kubeconfig-${tokenID}`], 15_000, 'the bootstrap signer signed cluster-info');
  const anonymous = await api.client.as({}).get('/api/v1/namespaces/kube-public/configmaps/cluster-info');
  t.equal(anonymous.status, 200, 'anyone may read cluster-info');
  t.equal((await api.client.as({}).get('/api/v1/namespaces/kube-public/configmaps')).status, 403, 'but nothing else there');
});

t.test('a wrong CA hash is refused before anything is written', async (t) => {
  const nodeDir = join(dir, 'wrong-hash');
  const wrong = `sha256:${'0'.repeat(64)}`;
  const r = await capstan(['join', '--server', server, '--token', token, '--discovery-token-ca-cert-hash', wrong, '--data-dir', nodeDir, '--node-name', 'w1']);
  t.not(r.code, 0);
  t.match(r.stderr, `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hash}" are pinned`);
  t.notOk(existsSync(join(nodeDir, 'bootstrap-kubelet.conf')), 'no bootstrap kubeconfig');
});

t.test('a token the cluster does not know, or the wrong secret, is refused', async (t) => {
  const otherSecret = `${tokenID}.${'x'.repeat(16)}`;
  const r = await capstan(['join', '--server', server, '--token', otherSecret, '--discovery-token-ca-cert-hash', hash, '--data-dir', join(dir, 'bad-secret')]);
  t.not(r.code, 0);
  t.match(r.stderr, 'failed to verify JWS signature of received cluster info object, can\'t trust this API Server');
  const unknown = await capstan(['join', '--server', server, '--token', 'zzzzzz.0123456789abcdef', '--discovery-token-ca-cert-hash', hash, '--data-dir', join(dir, 'unknown')]);
  t.match(unknown.stderr, 'token id "zzzzzz" is invalid for this cluster or it has expired');
});

t.test('the right hash: the kubelet gets system:node:<name> from a CSR; no CA key on the node', async (t) => {
  const nodeDir = join(dir, 'good');
  const joined = await joinCluster({ server, token, caCertHashes: [hash], dataDir: nodeDir, nodeName: 'worker-9' });
  const whoami = JSON.parse(await kubectlFor(t, joined.kubeconfig).ok(['auth', 'whoami', '-o', 'json']));
  t.equal(whoami.status.userInfo.username, 'system:node:worker-9');
  t.ok(whoami.status.userInfo.groups.includes('system:nodes'));
  const files = readdirSync(join(nodeDir, 'pki'));
  t.ok(files.includes('ca.crt'), 'the CA certificate');
  t.notOk(files.some((f) => f.startsWith('ca.key') || f === 'ca.key'), `no CA key among ${files.join(', ')}`);
});

t.test('the joined node gets its proxy, network agent and DNS their own identities by CSRs', async (t) => {
  const nodeDir = join(dir, 'components');
  const joined = await joinCluster({ server, token, caCertHashes: [hash], dataDir: nodeDir, nodeName: 'worker-10' });
  const creds = await componentCredentials({
    kubeletKubeconfig: joined.kubeconfig, certDir: join(nodeDir, 'pki'), components: ['proxy', 'networkAgent', 'dns'],
    kubeconfigPath: (c) => join(nodeDir, `${c}.kubeconfig`), clock: realClock, log: logger('join-test'),
  });
  t.teardown(() => creds.stop());
  const want = { proxy: 'system:kube-proxy', networkAgent: 'system:capstan-network-agent', dns: 'system:serviceaccount:kube-system:capstan-dns' };
  for (const [component, user] of Object.entries(want)) {
    const k = kubectlFor(t, creds.kubeconfigs[component as keyof typeof want]!);
    t.equal((await k.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim(), user, `${component} is ${user}`);
  }
  // The proxy's role (system:node-proxier) lists every Service and EndpointSlice; the node cannot list nodes.
  t.equal((await kubectlFor(t, creds.kubeconfigs.proxy!).ok(['auth', 'can-i', 'list', 'endpointslices.discovery.k8s.io', '-A'])).trim(), 'yes');
  t.equal((await kubectlFor(t, creds.kubeconfigs.networkAgent!).ok(['auth', 'can-i', 'watch', 'nodes'])).trim(), 'yes', 'the network agent watches every Node');
  const node = await kubectlFor(t, joined.kubeconfig)(['get', 'nodes']);
  t.match(node.stderr, "node 'worker-10' cannot read all nodes, only its own Node object", 'which its kubelet identity may not');
  const csrs = JSON.parse(await kubectlFor(t, admin).ok(['get', 'csr', '-o', 'json'])).items as { spec: { username: string; signerName: string }; status: { conditions?: { type: string; message: string }[] } }[];
  const mine = csrs.filter((c) => c.spec.username === 'system:node:worker-10' && c.spec.signerName === 'kubernetes.io/kube-apiserver-client');
  t.equal(mine.length, 3, 'three requests, made as the node');
  t.ok(mine.every((c) => c.status.conditions?.some((x) => x.type === 'Approved' && x.message === 'Auto approving node component client certificate after SubjectAccessReview.')));
  t.notOk(readdirSync(join(nodeDir, 'pki')).some((f) => f.startsWith('ca.key')), 'still no CA key');
});

t.test('a node component certificate is not approved for a bootstrap token or another subject', async (t) => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { createCSR } = await import('../../src/pki/csr.js');
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'sec1' }) as string;
  const ask = async (kubeconfig: string, name: string, commonName: string) => kubectlFor(t, kubeconfig).ok(['create', '-f', '-'], `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec:
  request: ${Buffer.from(createCSR(key, { commonName, organizations: [] })).toString('base64')}
  signerName: kubernetes.io/kube-apiserver-client
  usages: [digital signature, client auth]
`);
  const bootstrap = join(dir, 'good', 'bootstrap-kubelet.conf');
  await ask(bootstrap, 'from-bootstrapper', 'system:kube-proxy');
  await ask(join(dir, 'good', 'kubelet.conf'), 'someone-else', 'system:kube-scheduler');
  // The approver takes requests in the order it sees them: one approved after these shows it has judged them.
  const creds = await componentCredentials({
    kubeletKubeconfig: join(dir, 'good', 'kubelet.conf'), certDir: join(dir, 'good', 'pki'), components: ['proxy'],
    kubeconfigPath: (c) => join(dir, 'good', `${c}.kubeconfig`), clock: realClock, log: logger('join-test'),
  });
  creds.stop();
  for (const name of ['from-bootstrapper', 'someone-else']) {
    const csr = JSON.parse(await kubectlFor(t, admin).ok(['get', 'csr', name, '-o', 'json']));
    t.notOk(csr.status?.conditions?.length, `${name}: not approved`);
  }
});
