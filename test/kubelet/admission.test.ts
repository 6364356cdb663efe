// Node-side admission on a real node: pods the kubelet cannot run (too many, too big, wrong
// node labels, untolerated NoExecute taints) go Failed with upstream's reasons and messages
// and never reach the runtime; pods that fit run.
import t from 'tap';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { POD_UID_LABEL } from '../../src/kubelet/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();

t.test('kubelet admission', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const n = await startRealNode(t, { kubeletFlags: ['--max-pods', '3'] });
  const pod = (name: string, spec: Record<string, unknown> = {}, resources?: Record<string, unknown>) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      nodeName: n.nodeName, terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'], ...(resources ? { resources } : {}) }],
      ...spec,
    },
  });
  const apply = (p: object) => n.k.ok(['apply', '-f', '-'], JSON.stringify(p));
  const phase = async (name: string, want: string) => {
    let p: any;
    await until(async () => {
      p = await n.podJSON(name);
      if (p.status?.phase !== want) throw new Error(JSON.stringify(p.status));
    }, 30_000, `${name} ${want}`);
    return p;
  };
  const rejected = async (name: string, reason: string, message: string | RegExp) => {
    const p = await phase(name, 'Failed');
    t.equal(p.status.reason, reason, `${name}: reason`);
    t.match(p.status.message, message, `${name}: message`);
    const events = JSON.parse(await n.k.ok(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])).items;
    t.ok(events.some((e: any) => e.type === 'Warning' && e.reason === reason), `${name}: a ${reason} event`);
    t.same(await n.env.client.listPodSandbox({ label_selector: { [POD_UID_LABEL]: p.metadata.uid } }), [], `${name}: nothing in the runtime`);
  };
  const node = JSON.parse(await n.k.ok(['get', 'node', n.nodeName, '-o', 'json']));
  const cpuMilli = Number(node.status.allocatable.cpu) * 1000;
  t.equal(node.status.allocatable.pods, '3');

  await t.test('requests beyond allocatable minus admitted pods: OutOfcpu / OutOfmemory', async () => {
    await apply(pod('big', {}, { requests: { cpu: `${cpuMilli - 500}m` } }));
    await phase('big', 'Running');
    await apply(pod('too-big', {}, { requests: { cpu: '1' } }));
    await rejected('too-big', 'OutOfcpu', `Pod was rejected: Node didn't have enough resource: cpu, requested: 1000, used: ${cpuMilli - 500}, capacity: ${cpuMilli}`);
    await apply(pod('huge', {}, { requests: { memory: '1000Ti' } }));
    await rejected('huge', 'OutOfmemory', /^Pod was rejected: Node didn't have enough resource: memory, requested: 1099511627776000, used: 0, capacity: \d+$/);
    t.match(await n.k.ok(['get', 'pod', 'too-big', '--no-headers']), /too-big\s+0\/1\s+OutOfcpu\s+0/);
  });

  await t.test('node selector and required node affinity are checked again', async () => {
    await apply(pod('picky', { nodeSelector: { disk: 'ssd' } }));
    await rejected('picky', 'NodeAffinity', "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
    await n.k.ok(['label', 'node', n.nodeName, 'disk=ssd']);
    await apply(pod('picky2', {
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }] } } },
    }));
    await phase('picky2', 'Running');
  });

  await t.test('an untolerated NoExecute taint rejects; a tolerated one does not', async () => {
    await n.k.ok(['delete', 'pod', 'picky2', '--wait=true']);
    await n.k.ok(['taint', 'node', n.nodeName, 'dedicated=db:NoExecute']);
    await apply(pod('intruder'));
    await rejected('intruder', 'TaintToleration', "Pod was rejected: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate");
    await apply(pod('guest', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }] }));
    await phase('guest', 'Running');
    await n.k.ok(['taint', 'node', n.nodeName, 'dedicated=db:NoExecute-']);
  });

  await t.test('maxPods: the pod beyond --max-pods is OutOfpods; rejected pods do not count', async () => {
    // Running: big, guest. Failed ones are not active.
    await apply(pod('third'));
    await phase('third', 'Running');
    await apply(pod('fourth'));
    await rejected('fourth', 'OutOfpods', "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3");
  });

  await t.test('a restarted kubelet keeps running what it admitted and leaves the rejected pods Failed', async () => {
    const before = (await n.env.client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).map((c) => c.id).sort();
    await n.stopKubelet();
    n.startKubelet(['--max-pods', '3']);
    await until(async () => {
      const p = await n.podJSON('third');
      if (p.status.phase !== 'Running') throw new Error(p.status.phase);
      const lease = JSON.parse(await n.k.ok(['get', 'lease', '-n', 'kube-node-lease', n.nodeName, '-o', 'json']));
      if (Date.now() - Date.parse(lease.spec.renewTime) > 3_000) throw new Error('lease not renewed by the new kubelet yet');
    }, 30_000, 'new kubelet up');
    // Pods are re-admitted (or not) on the new kubelet's first sync of each; third and big hold their place.
    await n.k.ok(['delete', 'pod', 'fourth', '--wait=true']);
    await apply(pod('fourth'));
    await rejected('fourth', 'OutOfpods', /used: 3, capacity: 3/);
    t.same((await n.env.client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).map((c) => c.id).sort(), before);
    t.equal((await n.podJSON('too-big')).status.phase, 'Failed');
  });

  await n.k.ok(['delete', 'pods', '--all', '--wait=true', '--timeout=60s']);
});
