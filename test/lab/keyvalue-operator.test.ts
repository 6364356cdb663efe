// The example keyvalue-operator installed as users install it, `kubectl apply` of its
// manifest, on a one-node `capstan lab` (real containerd in namespaces): it runs as a pod of
// localhost/capstan/node:1 with this repository's build mounted, reaches the API server
// through the kubernetes Service with its ServiceAccount, creates a KeyValueStore's children
// (whose pod serves the data), cleans up on delete, and is removed with its manifest.
import t from 'tap';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { readState } from '../../src/lab/index.js';

const run = promisify(execFile);
const root = process.getuid?.() === 0;
const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const deploy = join(repoRoot, 'examples', 'keyvalue-operator', 'deploy');

/**
 * The manifest with /opt/capstan (where a node has capstan's build) pointed at this checkout.
 * When node_modules is a symlink out of the checkout (a worktree), its target is mounted at
 * the same path, so the link resolves inside the pod too.
 */
function manifestForThisCheckout(): string {
  const docs = yaml.loadAll(readFileSync(join(deploy, 'operator.yaml'), 'utf8')) as any[];
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const pod = deployment.spec.template.spec;
  pod.volumes[0].hostPath.path = repoRoot;
  const modules = realpathSync(join(repoRoot, 'node_modules'));
  if (modules !== join(repoRoot, 'node_modules')) {
    pod.volumes.push({ name: 'node-modules', hostPath: { path: modules, type: 'Directory' } });
    pod.containers[0].volumeMounts.push({ name: 'node-modules', mountPath: modules, readOnly: true });
  }
  return docs.map((d) => yaml.dump(d)).join('---\n');
}

t.test('keyvalue-operator in a capstan lab cluster', { skip: root ? false : 'needs root', timeout: 480_000 }, async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'capstan-lab-kv-'));
  const dir = join(parent, 'lab');
  const down = async () => run(process.execPath, [capstanBin, 'lab', 'down', '--dir', dir], { timeout: 120_000 });
  t.teardown(async () => {
    await down().catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
  });
  const up = await run(process.execPath, [capstanBin, 'lab', 'up', '--nodes', '1', '--subnets', '1', '--dir', dir], { timeout: 240_000 })
    .catch((e: Error & { stderr?: string }) => { throw new Error(`lab up failed: ${e.message}\n${e.stderr ?? ''}`); });
  const k = kubectlFor(t, /export KUBECONFIG=(\S+)/.exec(up.stdout)![1]);
  const manifest = manifestForThisCheckout();

  await t.test('installs from its manifest and runs as a pod', async (t) => {
    await k.ok(['apply', '-f', '-'], manifest);
    const status = await k(['rollout', 'status', '-n', 'keyvalue-operator', 'deploy/keyvalue-operator', '--timeout=180s']);
    if (status.code !== 0) {
      const pods = await k(['describe', 'pods', '-n', 'keyvalue-operator']);
      t.fail(`operator not available: ${status.stderr}\n${pods.stdout}`);
      return;
    }
    const pod = (await k.ok(['get', 'pods', '-n', 'keyvalue-operator', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const pulled = await k.ok(['get', 'events', '-n', 'keyvalue-operator', '--field-selector', `involvedObject.name=${pod},reason=Pulled`, '-o', 'jsonpath={.items[*].message}']);
    t.match(pulled, /Successfully pulled image "localhost\/capstan\/node:1"/, 'the node built and imported the node image when the pod named it');
    await eventually(async () => (await k(['logs', '-n', 'keyvalue-operator', pod])).stdout.includes('caches synced, reconcilers running'), 60_000, 'operator logs that it runs');
    t.match((await k.ok(['logs', '-n', 'keyvalue-operator', pod])), /"server":"https:\/\/10\.\d+\.\d+\.\d+:443","namespace":"keyvalue-operator"/, 'in-cluster: the kubernetes Service and its own namespace');
    t.equal((await k.ok(['get', 'lease', '-n', 'keyvalue-operator', 'keyvalue-operator', '-o', 'jsonpath={.spec.holderIdentity}'])).split('_')[0], pod, 'it holds the leader election Lease');
  });

  await t.test('creates a store\'s children; their pod serves the data', async (t) => {
    await k.ok(['apply', '-f', '-'], readFileSync(join(deploy, 'sample.yaml'), 'utf8').replace('replicas: 2', 'replicas: 1'));
    const ready = await k(['wait', '--for=condition=Ready', '--timeout=180s', 'keyvaluestore/colours']);
    if (ready.code !== 0) {
      t.fail(`store not Ready: ${ready.stderr}\n${(await k(['get', 'kvs,sts,svc,cm,pods', '-o', 'wide'])).stdout}\n${(await k(['logs', '-n', 'keyvalue-operator', 'deploy/keyvalue-operator'])).stdout.slice(-4000)}`);
      return;
    }
    t.match(await k.ok(['get', 'statefulset,service,configmap', '-l', 'app.kubernetes.io/instance=colours', '-o', 'name']), /statefulset.apps\/colours\nservice\/colours\nservice\/colours-headless\nconfigmap\/colours-data/);
    const sky = await k.ok(['exec', 'colours-0', '--', 'sh', '-c', 'printf "GET /sky HTTP/1.0\\r\\n\\r\\n" | nc 127.0.0.1 8080']);
    t.match(sky, /200 OK[\s\S]*\r\n\r\nblue$/, 'GET /sky answers blue');
  });

  await t.test('deleting the store removes its children; the manifest removes the operator', async (t) => {
    await k.ok(['delete', 'kvs', 'colours', '--wait=true', '--timeout=90s']);
    t.equal((await k.ok(['get', 'statefulset,service,configmap', '-l', 'app.kubernetes.io/instance=colours', '-o', 'name'])).trim(), '');
    await eventually(async () => (await k.ok(['get', 'pods', '-l', 'app.kubernetes.io/instance=colours', '-o', 'name'])).trim() === '', 90_000, 'the store\'s pod gone');
    await k.ok(['delete', '-f', '-', '--wait=true', '--timeout=120s'], manifest);
    t.equal((await k(['get', 'namespace', 'keyvalue-operator'])).code, 1, 'the namespace is gone');
    t.equal((await k(['get', 'crd', 'keyvaluestores.example.capstan.io'])).code, 1, 'the CRD is gone');
    t.equal((await k.ok(['get', 'clusterrole,clusterrolebinding', '-o', 'name'])).includes('keyvalue-operator'), false, 'its cluster-wide RBAC is gone');
  });

  const id = readState(dir)!.topology.id;
  await down();
  t.same(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith(`cl-${id}-`)), [], 'lab down leaves no lab namespace');
  t.notOk(existsSync(dir), 'nor its dir');
});
