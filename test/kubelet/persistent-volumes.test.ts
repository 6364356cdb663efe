// Persistent volumes on a real node: a private containerd, the kubelet as a process in its own
// network namespace, the scheduler and the controller-manager's binder and local-path
// provisioner (and the StatefulSet controller) in-process, real kubectl. A pod writes a file on
// its claim (the local-path default class, provisioned on the node the scheduler chose); the pod
// is deleted and a new one reads the file back (through the CRI); a StatefulSet's pod, deleted
// and recreated by its controller, appends to what the first wrote; deleting the claim has a helper pod on the node remove the directory.
// A pod whose claim is not bound waits in ContainerCreating with the volume manager's event.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRuntimeEnv, runtimeUnavailable } from '../cri/runtime-env.js';
import { startAPIServer } from '../helpers/api.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { startScheduler } from '../../src/cli/scheduler.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { POD_UID_LABEL } from '../../src/kubelet/index.js';

const why = runtimeUnavailable();
const NODE = 'node-pv';

const claim = (name: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } } },
});
const pod = (name: string, claimName: string, script: string, spec: Record<string, unknown> = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: {
    terminationGracePeriodSeconds: 1, tolerations: [{ operator: 'Exists' }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    containers: [{ name: 'c', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    ...spec,
  },
});

t.test('a claim\'s data outlives its pods on a real node', { skip: why ?? false, timeout: 240_000 }, async (t) => {
  const env = await startRuntimeEnv(t);
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(env.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const { bridgeIntoNetns } = await import('./netns-bridge.js');
  await bridgeIntoNetns(t, env.netns, api.port, env.dir);
  const k = kubectlFor(t, kubeconfig);
  const root = join(env.dir, 'kubelet');

  let logs = '';
  const kubelet: ChildProcess = spawn('nsenter', [`--net=/run/netns/${env.netns}`, '--', process.execPath, capstanBin, 'kubelet',
    '--kubeconfig', kubeconfig, '--hostname-override', NODE, '--container-runtime-endpoint', env.containerd.socket,
    '--root-dir', root, '--cgroup-root', env.cgroupParent, '--node-ip', '127.0.0.1',
    '--sync-frequency', '2s', '--resolv-conf', '/dev/null', '--healthz-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  kubelet.stdout!.on('data', (d: Buffer) => { logs = (logs + d.toString()).slice(-20_000); });
  kubelet.stderr!.on('data', (d: Buffer) => { logs = (logs + d.toString()).slice(-20_000); });
  t.teardown(async () => {
    if (kubelet.exitCode !== null || kubelet.signalCode !== null) return;
    const gone = new Promise((r) => kubelet.once('exit', r));
    kubelet.kill('SIGKILL');
    await gone;
  });
  t.teardown(() => { if (t.passing() === false) console.error(logs); });
  const cm = await startControllerManager(['--kubeconfig', kubeconfig, '--leader-elect', 'false', '--secure-port', '0', '--controllers', 'persistentvolume-binder,local-path-provisioner,statefulset']);
  t.teardown(() => cm.stop());
  const sched = await startScheduler(['--kubeconfig', kubeconfig, '--secure-port', '0', '--leader-elect=false']);
  t.teardown(() => sched.stop());

  await eventually(async () => (await k(['get', 'node', NODE, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 30_000, 'node Ready');
  t.equal(await k.ok(['get', 'node', NODE, '-o', 'jsonpath={.metadata.annotations.capstan\\.io/local-path-dir}']), join(root, 'local-path'), 'the node publishes its local-path directory');
  await eventually(async () => (await k(['get', 'storageclass', 'local-path'])).code === 0, 15_000, 'the default StorageClass');
  t.match(await k.ok(['get', 'storageclass']), /local-path \(default\)\s+capstan\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+false\s/);

  const phase = async (name: string) => k.ok(['get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
  let volumeDir = '';

  await t.test('a pod writes on its claim, which is provisioned on the node the scheduler chose', async (t) => {
    await k.ok(['apply', '-f', '-'], claim('data'));
    t.match(await k.ok(['get', 'pvc', 'data']), /data\s+Pending\s+local-path\s/);
    await k.ok(['apply', '-f', '-'], pod('writer', 'data', 'echo "written by $HOSTNAME" > /data/note && exec sleep 3600'));
    await eventually(async () => (await phase('writer')) === 'Running', 60_000, 'writer Running');
    t.equal(await k.ok(['get', 'pvc', 'data', '-o', 'jsonpath={.metadata.annotations.volume\\.kubernetes\\.io/selected-node}']), NODE, 'the scheduler selected the node');
    t.match(await k.ok(['get', 'pvc', 'data']), /data\s+Bound\s+pvc-[0-9a-f-]+\s+64Mi\s+RWO\s+local-path\s/);
    const pv = await k.ok(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}']);
    t.match(await k.ok(['get', 'pv', pv]), new RegExp(`${pv}\\s+64Mi\\s+RWO\\s+Delete\\s+Bound\\s+default/data\\s+local-path\\s`));
    volumeDir = await k.ok(['get', 'pv', pv, '-o', 'jsonpath={.spec.hostPath.path}']);
    t.equal(volumeDir, join(root, 'local-path', `${pv}_default_data`));
    await eventually(() => existsSync(join(volumeDir, 'note')), 10_000, 'the file on the node');
    t.equal(readFileSync(join(volumeDir, 'note'), 'utf8'), 'written by writer\n', 'the container wrote into the volume\'s directory on the node');
  });

  await t.test('the pod is deleted and a new one reads the file back', async (t) => {
    await k.ok(['delete', 'pod', 'writer', '--wait=true', '--timeout=60s']);
    await k.ok(['apply', '-f', '-'], pod('reader', 'data', 'cat /data/note && exec sleep 3600'));
    await eventually(async () => (await phase('reader')) === 'Running', 60_000, 'reader Running');
    // The container's own view, through the CRI (the API server cannot reach this kubelet's port).
    const uid = await k.ok(['get', 'pod', 'reader', '-o', 'jsonpath={.metadata.uid}']);
    const [c] = await env.client.listContainers({ label_selector: { [POD_UID_LABEL]: uid }, state: { state: 'CONTAINER_RUNNING' } });
    const r = await env.client.execSync(c.id, ['cat', '/data/note'], 10);
    t.equal(r.exit_code, 0);
    t.equal(r.stdout.toString(), 'written by writer\n', 'the new pod reads what the deleted one wrote');
  });

  await t.test('a StatefulSet pod deleted and recreated finds its claim\'s data', async (t) => {
    await k.ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' },
      spec: {
        replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: {
            terminationGracePeriodSeconds: 1, tolerations: [{ operator: 'Exists' }],
            containers: [{
              name: 'db', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', volumeMounts: [{ name: 'data', mountPath: '/data' }],
              command: ['sh', '-c', 'echo "$HOSTNAME started" >> /data/log && exec sleep 3600'],
            }],
          },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '16Mi' } } } }],
      },
    }));
    await eventually(async () => (await phase('db-0')) === 'Running', 60_000, 'db-0 Running');
    const dir = await k.ok(['get', 'pv', await k.ok(['get', 'pvc', 'data-db-0', '-o', 'jsonpath={.spec.volumeName}']), '-o', 'jsonpath={.spec.hostPath.path}']);
    await eventually(() => existsSync(join(dir, 'log')), 10_000, 'the first start logged');
    const first = await k.ok(['get', 'pod', 'db-0', '-o', 'jsonpath={.metadata.uid}']);
    await k.ok(['delete', 'pod', 'db-0', '--wait=true', '--timeout=60s']);
    await eventually(async () => {
      const r = await k(['get', 'pod', 'db-0', '-o', 'jsonpath={.metadata.uid} {.status.phase}']);
      return r.code === 0 && !r.stdout.startsWith(first) && r.stdout.endsWith('Running');
    }, 60_000, 'db-0 recreated and Running');
    await eventually(() => readFileSync(join(dir, 'log'), 'utf8').split('\n').filter(Boolean).length === 2, 10_000, 'the second start logged');
    t.equal(readFileSync(join(dir, 'log'), 'utf8'), 'db-0 started\ndb-0 started\n', 'the new pod appended to the file the first one wrote');
    // No garbage collector here: scale down, then delete the set.
    await k.ok(['scale', 'sts', 'db', '--replicas=0']);
    await eventually(async () => (await k(['get', 'pod', 'db-0'])).code !== 0, 60_000, 'db-0 gone');
    await k.ok(['delete', 'sts', 'db']);
    await k.ok(['delete', 'pvc', 'data-db-0']);
  });

  await t.test('a pod whose claim is not bound waits in ContainerCreating', async (t) => {
    await k.ok(['apply', '-f', '-'], claim('unbound'));
    // Bound to the node by hand, the pod bypasses the scheduler: its WaitForFirstConsumer claim never gets a node.
    await k.ok(['apply', '-f', '-'], pod('waiter', 'unbound', 'exec sleep 3600', { nodeName: NODE }));
    const expected = 'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[data]: error processing PVC default/unbound: PVC is not bound';
    await eventually(async () => (await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=waiter,reason=FailedMount', '-o', 'jsonpath={.items[*].message}'])).includes(expected), 30_000, 'FailedMount event');
    t.match(await k.ok(['get', 'pod', 'waiter']), /waiter\s+0\/1\s+ContainerCreating\s/);
    await k.ok(['delete', 'pod', 'waiter', '--wait=true', '--timeout=60s']);
    await k.ok(['delete', 'pvc', 'unbound']);
  });

  await t.test('deleting the claim removes the directory on the node, then the volume', async (t) => {
    const pv = await k.ok(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}']);
    await k.ok(['delete', 'pod', 'reader', '--wait=true', '--timeout=60s']);
    await k.ok(['delete', 'pvc', 'data']);
    await eventually(async () => (await k(['get', 'pv', pv])).code !== 0, 60_000, 'volume deleted');
    t.notOk(existsSync(volumeDir), 'the helper pod removed the directory');
    t.ok(existsSync(join(root, 'local-path')), 'the local-path directory itself stays');
    await eventually(async () => (await k(['get', 'pod', '-n', 'kube-system', `helper-pod-delete-${pv}`])).code !== 0, 30_000, 'helper pod removed');
  });
});
