// `capstan token create` hands out a join command only once the controller-manager's bootstrap
// signer has signed cluster-info for the new token: a node that joins the moment the command
// returns must pass discovery (it used to fail with "token id … is invalid for this cluster").
// Against a real API server, the real `capstan` command and a real controller-manager that is
// started only after the command began, so the command is seen waiting for it.
import t from 'tap';
import { spawn } from 'node:child_process';
import { caCertHash, clusterInfo } from '../../src/api/cluster-info.js';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { discover } from '../../src/cli/join-discovery.js';
import { ensureClusterInfo, ensureNodeBootstrapRBAC } from '../../src/cli/node-bootstrap.js';
import { writeAdminKubeconfig, writeComponentKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, resources } from '../../src/client/index.js';
import { startAPIServer } from '../helpers/api.js';
import { capstanBin } from '../helpers/apiserver-process.js';

const api = await startAPIServer(t);
const server = `https://127.0.0.1:${api.port}`;
const admin = writeAdminKubeconfig(api.dir, api.pki, server);
const clients = clientsetFromKubeconfig(admin, 'token-create-test');
t.teardown(() => clients.close());
await ensureNodeBootstrapRBAC(clients);
await ensureClusterInfo(clients, server, api.pki.ca.certPem);
const cmKubeconfig = writeComponentKubeconfig(api.dir, api.pki, server, 'controller-manager');
const startSigner = () => startControllerManager(['--kubeconfig', cmKubeconfig, '--controllers', 'bootstrapsigner', '--leader-elect', 'false', '--secure-port', '0']);

interface Run { code: number | null; stdout: string; stderr: string; exited: boolean; done: Promise<void> }
function tokenCreate(args: string[]): Run {
  const child = spawn(process.execPath, [capstanBin, 'token', 'create', '--kubeconfig', admin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const r: Run = { code: null, stdout: '', stderr: '', exited: false, done: Promise.resolve() };
  child.stdout.on('data', (d) => { r.stdout += d; });
  child.stderr.on('data', (d) => { r.stderr += d; });
  r.done = new Promise((resolve) => child.on('exit', (code) => { r.code = code; r.exited = true; resolve(); }));
  t.teardown(() => { if (!r.exited) child.kill('SIGKILL'); });
  return r;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tokenSecrets = async () => (await clients.resource(resources.secrets).list('kube-system')).items.filter((s) => s.metadata.name?.startsWith('bootstrap-token-')).map((s) => s.metadata.name);
const signatures = async () => Object.keys((await clients.resource(resources.configmaps).get(clusterInfo.namespace, clusterInfo.name)).data ?? {}).filter((k) => k.startsWith(clusterInfo.jwsKeyPrefix));

t.test('the join command comes once cluster-info is signed for the token, and discovery passes at once', async (t) => {
  const run = tokenCreate(['--ttl', '1h']);
  // The token exists, but no signer runs yet: the command waits and prints nothing.
  let secrets: string[] = [];
  for (let i = 0; i < 300 && secrets.length === 0; i++) { await sleep(100); secrets = await tokenSecrets() as string[]; }
  t.equal(secrets.length, 1, 'the token Secret was created');
  await sleep(2000);
  t.notOk(run.exited, `still waiting for the signature (stderr: ${run.stderr})`);
  t.equal(run.stdout, '', 'and no join command yet');
  t.same(await signatures(), [], 'cluster-info is not signed for it');

  const cm = await startSigner();
  t.teardown(() => cm.stop());
  await Promise.race([run.done, sleep(60_000)]);
  t.equal(run.code, 0, run.stderr);
  const m = /^capstan join --server (\S+) --token (([a-z0-9]{6})\.[a-z0-9]{16}) --discovery-token-ca-cert-hash (sha256:[0-9a-f]{64})\n$/.exec(run.stdout);
  t.ok(m, `the join command: ${run.stdout}`);
  const [, joinServer, token, id, hash] = m!;
  t.equal(`bootstrap-token-${id}`, secrets[0], 'for the token it created');
  t.equal(hash, caCertHash(api.pki.ca.certPem));
  // What a node does with the command the moment it has it: token discovery, verified by the signature.
  const found = await discover(joinServer, token, [hash]);
  t.equal(found.server, server, 'discovery verified cluster-info with the token');
});

t.test('with no signer (the one above stopped with its test), the command gives up after --timeout, says why, and leaves no token', async (t) => {
  const before = await tokenSecrets();
  const run = tokenCreate(['--timeout', '3s']);
  await Promise.race([run.done, sleep(60_000)]);
  t.not(run.code, 0, 'a failure');
  t.equal(run.stdout, '', 'no join command');
  t.match(run.stderr, /timed out after 3 s waiting for the bootstrap signer to sign cluster-info for the new token \(is the controller-manager running with its bootstrapsigner controller\?\); the token was deleted/);
  t.same(await tokenSecrets(), before, 'the token Secret is gone again');
});

t.test('a bare API server (no cluster-info): the kubeconfig\'s server, at once', async (t) => {
  await clients.resource(resources.configmaps).delete(clusterInfo.namespace, clusterInfo.name);
  const run = tokenCreate(['--timeout', '30s']);
  await Promise.race([run.done, sleep(60_000)]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, new RegExp(`^capstan join --server ${server.replace(/[.]/g, '\\.')} --token `));
});
