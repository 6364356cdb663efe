// Pods' identity toward the API on a real node: `capstan up` (API server, controllers with
// the root CA publisher, scheduler, containerd, kubelet, proxy, DNS) in a network namespace
// of its own, driven by real kubectl. A pod's kube-api-access volume holds a token that
// authenticates as its service account, the cluster CA and its namespace; the token is
// refreshed; automount can be refused; downwardAPI and projected volumes follow their
// sources; and https://kubernetes.default.svc leads from the pod to the API server, which a
// plain `capstan up` advertises on the node's address: kubectl in a pod, with nothing but
// in-cluster config, lists pods.
import t from 'tap';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor, KUBECTL } from '../helpers/kubectl.js';
import { clientHello, serverCertificate } from '../helpers/tls-hello.js';
import { loadKubeconfig, writeKubeconfig } from '../../src/client/kubeconfig.js';

const root = process.getuid?.() === 0;
const saDir = '/var/run/secrets/kubernetes.io/serviceaccount';

t.test('pods get an identity toward the API', { skip: root ? false : 'needs root' }, async (t) => {
  const netns = `capstan-podid-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ } });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  // The node's uplink. A plain `capstan up` (no --bind-address) serves on 0.0.0.0 and
  // advertises the address of its default route's interface, so pods reach it through the Service.
  const nodeIP = addNodeUplink(netns);
  // Tokens older than 20 s are refreshed (upstream: 80 % of their lifetime, at most 24 h), so
  // a refresh shows within the test instead of after 8 minutes.
  const up = await startCapstanUp(t, ['--node-name', 'node-id', '--service-account-token-max-ttl', '20s'], { netns });
  const k = kubectlFor(t, up.kubeconfig, { netns });
  const admin = loadKubeconfig(up.kubeconfig);
  const ca = readFileSync(join(up.dataDir, 'pki', 'ca.crt'), 'utf8');
  /** kubectl with nothing but a bearer token (no client certificate to win over it). */
  const whoami = async (token: string) => {
    const path = join(up.dataDir, `token-${randomBytes(3).toString('hex')}.kubeconfig`);
    writeKubeconfig(path, { server: admin.server, caPem: ca, token });
    return (await kubectlFor(t, path, { netns }).ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim();
  };
  const exec = (pod: string, ...cmd: string[]) => k.ok(['exec', pod, '--', ...cmd]);

  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-id', '--no-headers'])), 60_000, 'node Ready');
  await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
data: {mode: blue}
---
apiVersion: v1
kind: Secret
metadata: {name: app-secret}
stringData: {password: first}
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  terminationGracePeriodSeconds: 1
  securityContext: {runAsUser: 65534}
  containers: [{name: main, image: localhost/capstan/busybox:1, command: [sleep, '3600']}]
---
apiVersion: v1
kind: Pod
metadata: {name: no-token}
spec:
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 1
  containers: [{name: main, image: localhost/capstan/busybox:1, command: [sleep, '3600']}]
---
apiVersion: v1
kind: Pod
metadata:
  name: projected
  labels: {app: projected}
  annotations: {note: first}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: localhost/capstan/busybox:1
    command: [sleep, '3600']
    resources: {limits: {memory: 64Mi}}
    volumeMounts:
    - {name: bundle, mountPath: /bundle}
    - {name: info, mountPath: /info}
  volumes:
  - name: bundle
    projected:
      sources:
      - serviceAccountToken: {path: token, expirationSeconds: 600}
      - configMap: {name: app-config, items: [{key: mode, path: config/mode}]}
      - secret: {name: app-secret, items: [{key: password, path: secret/password, mode: 0400}]}
      - downwardAPI: {items: [{path: pod-name, fieldRef: {fieldPath: metadata.name}}]}
  - name: info
    downwardAPI:
      items:
      - {path: labels, fieldRef: {fieldPath: metadata.labels}}
      - {path: annotations, fieldRef: {fieldPath: metadata.annotations}}
      - {path: uid, fieldRef: {fieldPath: metadata.uid}}
      - {path: mem, resourceFieldRef: {containerName: main, resource: limits.memory, divisor: 1Mi}}
`);
  await k.ok(['wait', '--for=condition=Ready', 'pod/plain', 'pod/no-token', 'pod/projected', '--timeout=180s']);

  await t.test('the root CA publisher put kube-root-ca.crt in the namespace', async (t) => {
    const cm = JSON.parse(await k.ok(['get', 'configmap', 'kube-root-ca.crt', '-o', 'json']));
    t.equal(cm.data['ca.crt'], ca);
    t.match(cm.metadata.annotations['kubernetes.io/description'], /^Contains a CA bundle that can be used to verify the kube-apiserver/);
  });

  await t.test('the kube-api-access volume: token, ca.crt, namespace; the token is the pod\'s service account', async (t) => {
    const pod = JSON.parse(await k.ok(['get', 'pod', 'plain', '-o', 'json']));
    t.equal(pod.spec.serviceAccountName, 'default');
    t.match(pod.spec.volumes.map((v: any) => v.name), [/^kube-api-access-[a-z0-9]{5}$/]);
    t.strictSame((await exec('plain', 'ls', saDir)).trim().split('\n'), ['ca.crt', 'namespace', 'token']);
    t.equal(await exec('plain', 'id', '-u'), '65534\n', 'the container runs as nobody…');
    t.equal(await exec('plain', 'cat', `${saDir}/namespace`), 'default', '…and can read the files');
    t.equal(await exec('plain', 'cat', `${saDir}/ca.crt`), ca);
    t.match(await exec('plain', 'ls', '-a', saDir), /\.\.data/, 'written by the atomic writer');
    const token = await exec('plain', 'cat', `${saDir}/token`);
    t.equal(await whoami(token), 'system:serviceaccount:default:default');
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    t.equal(claims['kubernetes.io'].pod.name, 'plain', 'bound to the pod');
    t.equal(claims['kubernetes.io'].pod.uid, pod.metadata.uid);
  });

  await t.test('automountServiceAccountToken: false mounts nothing', async (t) => {
    const pod = JSON.parse(await k.ok(['get', 'pod', 'no-token', '-o', 'json']));
    t.notOk(pod.spec.volumes, 'no volume');
    t.notOk(pod.spec.containers[0].volumeMounts, 'no mount');
    const r = await k(['exec', 'no-token', '--', 'ls', saDir]);
    t.not(r.code, 0, 'nothing at the token path');
  });

  await t.test('a projected token is refreshed, and both tokens authenticate', async (t) => {
    const first = await exec('projected', 'cat', '/bundle/token');
    const claims = JSON.parse(Buffer.from(first.split('.')[1], 'base64url').toString());
    t.equal(claims.exp - claims.iat, 600, 'the expiration the pod asked for');
    t.equal(await whoami(first), 'system:serviceaccount:default:default');
    let second = first;
    await eventually(async () => (second = await exec('projected', 'cat', '/bundle/token')) !== first, 90_000, 'a refreshed token');
    t.not(second, first);
    t.equal(await whoami(second), 'system:serviceaccount:default:default');
  });

  await t.test('projected configMap, secret and downward API files, updated after edits', async (t) => {
    t.equal(await exec('projected', 'cat', '/bundle/config/mode'), 'blue');
    t.equal(await exec('projected', 'cat', '/bundle/secret/password'), 'first');
    t.equal((await exec('projected', 'stat', '-L', '-c', '%a', '/bundle/secret/password')).trim(), '400');
    t.equal(await exec('projected', 'cat', '/bundle/pod-name'), 'projected');
    const uid = (await k.ok(['get', 'pod', 'projected', '-o', 'jsonpath={.metadata.uid}'])).trim();
    t.equal(await exec('projected', 'cat', '/info/uid'), uid);
    t.equal(await exec('projected', 'cat', '/info/labels'), 'app="projected"');
    t.match(await exec('projected', 'cat', '/info/annotations'), /^note="first"$/m, 'one line per annotation (kubectl apply adds its own)');
    t.equal(await exec('projected', 'cat', '/info/mem'), '64');

    await k.ok(['patch', 'configmap', 'app-config', '-p', '{"data":{"mode":"green"}}']);
    await k.ok(['patch', 'secret', 'app-secret', '-p', '{"stringData":{"password":"second"}}']);
    await k.ok(['label', 'pod', 'projected', 'tier=web']);
    await k.ok(['annotate', 'pod', 'projected', '--overwrite', 'note=second']);
    await eventually(async () => await exec('projected', 'cat', '/bundle/config/mode') === 'green', 60_000, 'the ConfigMap edit in the volume');
    await eventually(async () => await exec('projected', 'cat', '/bundle/secret/password') === 'second', 60_000, 'the Secret edit in the volume');
    await eventually(async () => await exec('projected', 'cat', '/info/labels') === 'app="projected"\ntier="web"', 60_000, 'the new label in the volume');
    await eventually(async () => /^note="second"$/m.test(await exec('projected', 'cat', '/info/annotations')), 60_000, 'the new annotation in the volume');
    t.pass('every edit reached the running container');
  });

  await t.test('https://kubernetes.default.svc reaches the API server from inside a pod', async (t) => {
    const port = new URL(admin.server).port;
    const ep = JSON.parse(await k.ok(['get', 'endpoints', 'kubernetes', '-o', 'json']));
    t.strictSame(ep.subsets.map((s: any) => [s.addresses.map((a: any) => a.ip), s.ports.map((p: any) => p.port)]), [[[nodeIP], [Number(port)]]], 'the advertise address (the node\'s) and port');
    t.equal(new URL(admin.server).hostname, '127.0.0.1', 'while the admin kubeconfig names loopback');
    const svc = JSON.parse(await k.ok(['get', 'service', 'kubernetes', '-o', 'json']));
    t.equal(svc.spec.ports[0].port, 443);
    const resolv = await exec('plain', 'cat', '/etc/resolv.conf');
    t.match(resolv, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local$/m);
    // busybox's nslookup asks for the name as given; the search list above is what turns
    // kubernetes.default.svc into this name for the resolver nc uses below.
    let lookup = '';
    await eventually(async () => /10\.96\.0\.1\b/.test(lookup = (await k(['exec', 'plain', '--', 'nslookup', 'kubernetes.default.svc.cluster.local'])).stdout), 30_000, 'cluster DNS answers')
      .catch((e: Error) => { throw new Error(`${e.message}: ${lookup}`); });
    t.equal(svc.spec.clusterIP, '10.96.0.1');
    t.pass('cluster DNS answers kubernetes.default.svc.cluster.local with the Service IP');

    // busybox has no TLS: nc sends a ClientHello made here and brings back the server's first
    // flight, whose certificate must be the API server's, for kubernetes.default.svc.
    const hello = (await clientHello('kubernetes.default.svc')).toString('base64');
    let cert: X509Certificate | undefined;
    await eventually(async () => {
      const out = await kubectlBinary(netns, up.kubeconfig, join(up.dataDir, 'kubectl-cache'), ['exec', '-i', 'plain', '--', 'sh', '-c', '(base64 -d; sleep 2) | nc kubernetes.default.svc 443 | base64'], `${hello}\n`);
      cert = serverCertificate(Buffer.from(out.toString(), 'base64'));
      return cert !== undefined;
    }, 30_000, 'a TLS answer through the Service');
    const serving = new X509Certificate(readFileSync(join(up.dataDir, 'pki', 'apiserver.crt')));
    t.equal(cert!.fingerprint256, serving.fingerprint256, 'the API server\'s serving certificate');
    t.ok(cert!.checkHost('kubernetes.default.svc'), 'valid for kubernetes.default.svc');
    t.ok(cert!.verify(new X509Certificate(ca).publicKey), 'signed by the CA in the pod\'s ca.crt');
  });

  await t.test('in-cluster config: a pod lists pods with its token when a Role allows it, and is refused without', async (t) => {
    await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: ServiceAccount
metadata: {name: lister}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-lister}
rules: [{apiGroups: [""], resources: [pods], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: lister-lists-pods}
subjects: [{kind: ServiceAccount, name: lister, namespace: default}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-lister}
`);
    // The client is the host's kubectl (a static Go binary) mounted read-only, given nothing:
    // no kubeconfig, no flags. client-go then builds its in-cluster config from
    // KUBERNETES_SERVICE_HOST/PORT (set by the kubelet), the token and ca.crt.
    const kubectlPath = realpathSync(KUBECTL);
    const kubectlDir = dirname(kubectlPath);
    for (const [name, sa] of [['in-cluster', 'lister'], ['in-cluster-refused', 'default']]) {
      await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  serviceAccountName: ${sa}
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: localhost/capstan/busybox:1, command: [sleep, '3600'], volumeMounts: [{name: kubectl, mountPath: /opt/kubectl, readOnly: true}]}]
  volumes: [{name: kubectl, hostPath: {path: ${kubectlDir}, type: Directory}}]
`);
    }
    await k.ok(['wait', '--for=condition=Ready', 'pod/in-cluster', 'pod/in-cluster-refused', '--timeout=120s']);
    t.match(await exec('in-cluster', 'env'), /^KUBERNETES_SERVICE_HOST=10\.96\.0\.1$/m, 'the kubelet set the kubernetes Service\'s variables');
    const list = (pod: string) => k(['exec', pod, '--', 'sh', '-c', `HOME=/tmp /opt/kubectl/${basename(kubectlPath)} get pods -o name`]);
    let r = { stdout: '', stderr: '', code: -1 };
    await eventually(async () => (r = await list('in-cluster')).code === 0, 60_000, 'the pod lists pods')
      .catch((e: Error) => { throw new Error(`${e.message}: ${r.stderr}`); });
    t.match(r.stdout, /^pod\/in-cluster$/m, 'the pods of its namespace');
    t.match(r.stdout, /^pod\/plain$/m);
    const refused = await list('in-cluster-refused');
    t.not(refused.code, 0);
    t.match(refused.stderr, /\(Forbidden\)[^\n]*User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"/, 'without a Role: 403 Forbidden');
    await k.ok(['delete', 'pod', 'in-cluster', 'in-cluster-refused', '--wait']);
  });

  await t.test('a pod naming a missing service account is refused', async (t) => {
    const r = await k(['run', 'orphan', '--image=localhost/capstan/busybox:1', '--overrides', '{"spec":{"serviceAccountName":"nobody"}}', '--', 'sleep', '1']);
    t.not(r.code, 0);
    t.match(r.stderr, 'pods "orphan" is forbidden: error looking up service account default/nobody: serviceaccount "nobody" not found');
  });

  await k.ok(['delete', 'pod', 'plain', 'no-token', 'projected', '--wait']);
});

/** kubectl with binary-safe stdout. */
function kubectlBinary(netns: string, kubeconfig: string, cacheDir: string, args: string[], input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=/run/netns/${netns}`, KUBECTL, '--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.once('error', reject);
    child.once('close', () => resolve(Buffer.concat(chunks)));
    child.stdin.end(input);
  });
}
