// The example KeyValueStore operator as a user runs it from a kubeconfig against `capstan up`
// with hollow nodes: kubectl applies the CRD and a store; the operator creates the children,
// the StatefulSet's pods become Ready on hollow nodes, the store reports Ready; a Service
// deleted by hand comes back; `kubectl scale` scales; deleting the store removes everything.
import t from 'tap';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const deploy = join(repoRoot, 'examples', 'keyvalue-operator', 'deploy');
const crd = (yaml.loadAll(readFileSync(join(deploy, 'operator.yaml'), 'utf8')) as { kind: string }[]).find((d) => d.kind === 'CustomResourceDefinition');

t.test('the keyvalue-operator from a kubeconfig against capstan up', { timeout: 240_000 }, async (t) => {
  const up = await startCapstanUp(t, ['--hollow-nodes', '2']);
  const k = kubectlFor(t, up.kubeconfig);
  await k.ok(['apply', '-f', '-'], JSON.stringify(crd));
  await k.ok(['wait', '--for=condition=Established', '--timeout=20s', 'crd/keyvaluestores.example.capstan.io']);

  const operator = spawn(process.execPath, [join(repoRoot, 'dist', 'examples', 'keyvalue-operator', 'main.js'), '--kubeconfig', up.kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  operator.stdout.on('data', (d: Buffer) => { logs += d; });
  operator.stderr.on('data', (d: Buffer) => { logs = (logs + d).slice(-20_000); });
  const exited = new Promise<number | null>((r) => operator.once('exit', (code) => r(code)));
  t.teardown(async () => { if (operator.exitCode === null) { operator.kill('SIGKILL'); await exited; } });
  await eventually(() => logs.includes('caches synced, reconcilers running'), 30_000, 'operator running').catch((e: Error) => { throw new Error(`${e.message}\n${logs}`); });

  const get = async (args: string[]) => (await k(['get', ...args])).stdout.trim();
  t.match(await k.ok(['apply', '-f', join(deploy, 'sample.yaml')]), /keyvaluestore.example.capstan.io\/colours created/);

  await t.test('creates the children and reports Ready', async (t) => {
    await k.ok(['wait', '--for=condition=Ready', '--timeout=90s', 'keyvaluestore/colours']);
    t.match(await get(['statefulset', 'colours', '-o', 'jsonpath={.spec.replicas} {.status.readyReplicas} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}']), '2 2 KeyValueStore/colours');
    t.equal(await get(['service', 'colours-headless', '-o', 'jsonpath={.spec.clusterIP}']), 'None');
    t.match(await get(['service', 'colours', '-o', 'jsonpath={.spec.clusterIP}']), /^\d+\.\d+\.\d+\.\d+$/);
    t.equal(await get(['configmap', 'colours-data', '-o', 'jsonpath={.data.sky}']), 'blue');
    t.equal((await get(['pods', '-l', 'app.kubernetes.io/instance=colours', '--no-headers'])).split('\n').length, 2);
    t.match(await k.ok(['get', 'kvs', 'colours']), /NAME\s+REPLICAS\s+READY\s+AGE\ncolours\s+2\s+2\s/);
    t.equal(await get(['kvs', 'colours', '-o', 'jsonpath={.status.observedGeneration} {.status.conditions[0].observedGeneration} {.metadata.finalizers[0]}']), '1 1 example.capstan.io/cleanup');
    t.match(await k.ok(['describe', 'kvs', 'colours']), /Normal\s+Created\s+.*keyvalue-operator\s+Created StatefulSet colours/);
  });

  await t.test('a Service deleted by hand comes back', async (t) => {
    const uid = await get(['service', 'colours', '-o', 'jsonpath={.metadata.uid}']);
    await k.ok(['delete', 'service', 'colours']);
    await eventually(async () => { const now = await get(['service', 'colours', '-o', 'jsonpath={.metadata.uid}', '--ignore-not-found']); return !!now && now !== uid; }, 30_000, 'Service re-created');
    t.pass('re-created');
  });

  await t.test('kubectl scale scales the StatefulSet, and Ready follows', async (t) => {
    await k.ok(['scale', 'kvs', 'colours', '--replicas=3']);
    await eventually(async () => (await get(['kvs', 'colours', '-o', 'jsonpath={.status.observedGeneration} {.status.readyReplicas} {.status.conditions[0].status}'])) === '2 3 True', 90_000, 'three ready replicas');
    t.equal(await get(['statefulset', 'colours', '-o', 'jsonpath={.spec.replicas}']), '3');
  });

  await t.test('deleting the store removes its children', async (t) => {
    await k.ok(['delete', 'kvs', 'colours', '--wait=true', '--timeout=60s']);
    for (const what of ['statefulset/colours', 'service/colours', 'service/colours-headless', 'configmap/colours-data']) {
      t.equal(await get([what, '--ignore-not-found']), '', `${what} removed`);
    }
    await eventually(async () => (await get(['pods', '-l', 'app.kubernetes.io/instance=colours', '--no-headers', '--ignore-not-found'])) === '', 60_000, 'pods gone');
  });

  operator.kill('SIGTERM');
  t.equal(await exited, 0, 'the operator stops cleanly on SIGTERM');
});
