// Pod lifecycle on fakes: registration, sandbox + init containers in order + containers,
// status as Kubernetes reports it, and the same result whichever order things arrive in.
import t from 'tap';
import { resources } from '../../src/client/index.js';
import { POD_UID_LABEL } from '../../src/kubelet/index.js';
import { calls, cond, cs, podSpec, startHarness, IMAGE, NODE } from './harness.js';

t.test('registers the Node with capacity, nodeInfo and a Lease', async (t) => {
  const h = await startHarness(t);
  const node = h.api.get(resources.nodes, undefined, NODE)!;
  t.same(node.status.capacity, { cpu: '4', memory: `${8 * 2 ** 20}Ki`, 'ephemeral-storage': `${100 * 2 ** 20}Ki`, pods: '110' });
  t.equal(node.status.nodeInfo.containerRuntimeVersion, 'fake://0.1.0');
  t.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, 10250);
  t.same(node.status.addresses, [{ type: 'InternalIP', address: '192.0.2.10' }, { type: 'Hostname', address: NODE }]);
  t.equal(cond(node, 'Ready')?.status, 'True');
  t.equal(cond(node, 'Ready')?.reason, 'KubeletReady');
  const lease = h.api.get(resources.leases, 'kube-node-lease', NODE)!;
  t.equal(lease.spec.holderIdentity, NODE);
  const first = lease.spec.renewTime;
  await h.advance(10_000);
  t.not(h.api.get(resources.leases, 'kube-node-lease', NODE)!.spec.renewTime, first, 'renewed after 10 s');
});

t.test('Ready=False with a reason when the runtime is down, back when it answers', async (t) => {
  const h = await startHarness(t);
  h.runtime.failNext('Status', 4, 'context deadline exceeded');
  await h.advance(10_000);
  let ready = cond(h.api.get(resources.nodes, undefined, NODE), 'Ready');
  t.equal(ready?.status, 'False');
  t.equal(ready?.reason, 'KubeletNotReady');
  t.match(ready?.message, /container runtime is down/);
  h.runtime.conditions[1] = { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni plugin not initialized' };
  await h.advance(10_000);
  ready = cond(h.api.get(resources.nodes, undefined, NODE), 'Ready');
  t.match(ready?.message, /container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady/);
  h.runtime.conditions[1].status = true;
  await h.advance(10_000);
  t.equal(cond(h.api.get(resources.nodes, undefined, NODE), 'Ready')?.status, 'True');
});

t.test('init containers run in order, each to exit 0, before the containers', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('web', {
    initContainers: [{ name: 'init-a', image: IMAGE, command: ['true'] }, { name: 'init-b', image: IMAGE, command: ['true'] }],
    containers: [{ name: 'main', image: IMAGE, command: ['sleep', '1000'] }, { name: 'side', image: IMAGE }],
  }));
  const created = () => calls(h.runtime, 'CreateContainer').map((c) => (c.request as any).config.metadata.name);
  t.same(created(), ['init-a'], 'only the first init container');
  let pod = h.pod('web');
  t.equal(pod?.status.phase, 'Pending');
  t.equal(cond(pod, 'Initialized')?.status, 'False');
  t.equal(cond(pod, 'Initialized')?.message, 'containers with incomplete status: [init-a init-b]');
  t.equal(cs(pod)?.state.waiting.reason, 'PodInitializing');
  const initA = (await h.runtime.listContainers()).find((c) => c.metadata?.name === 'init-a')!;
  h.runtime.exitContainer(initA.id, 0);
  h.kubelet.workers.enqueue(pod!.metadata.uid as string);
  await h.settle();
  t.same(created(), ['init-a', 'init-b']);
  const initB = (await h.runtime.listContainers()).find((c) => c.metadata?.name === 'init-b')!;
  h.runtime.exitContainer(initB.id, 0);
  h.kubelet.workers.enqueue(pod!.metadata.uid as string);
  await h.settle();
  t.same(created(), ['init-a', 'init-b', 'main', 'side']);
  pod = h.pod('web');
  t.equal(pod?.status.phase, 'Running');
  t.same(pod?.status.conditions.map((c: any) => `${c.type}=${c.status}`),
    ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
  t.match(cs(pod)?.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
  t.equal(cs(pod)?.ready, true);
  t.equal(cs(pod)?.started, true);
  t.ok(cs(pod)?.state.running.startedAt);
  t.equal(pod?.status.initContainerStatuses[0].state.terminated.reason, 'Completed');
  t.equal(pod?.status.hostIP, '192.0.2.10');
  t.match(pod?.status.podIP, /^10\.88\./);
  t.equal(pod?.status.qosClass, 'BestEffort');
  const sandbox = calls(h.runtime, 'RunPodSandbox')[0].request as any;
  t.equal(sandbox.config.labels[POD_UID_LABEL], pod?.metadata.uid);
  t.same(sandbox.config.dns_config, { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] });
  t.equal(sandbox.config.hostname, 'web');
  t.match(sandbox.config.log_directory, new RegExp(`/logs/pods/default_web_${pod?.metadata.uid}$`));
  t.same(h.events('Started').map((e) => e.message), ['Started container init-a', 'Started container init-b', 'Started container main', 'Started container side']);
});

t.test('the same pods reach the same runtime state whether the kubelet starts before or after they exist', async (t) => {
  const shape = async (late: boolean) => {
    const h = await startHarness(t, { start: !late });
    await h.api.resource(resources.pods).create('default', podSpec('a'));
    await h.api.resource(resources.pods).create('default', podSpec('b', { containers: [{ name: 'x', image: IMAGE }, { name: 'y', image: IMAGE }] }));
    await h.api.resource(resources.pods).create('default', { ...podSpec('elsewhere'), spec: { ...podSpec('elsewhere').spec, nodeName: 'other-node' } });
    if (late) await h.kubelet.start();
    await h.settle();
    const containers = await h.runtime.listContainers();
    return {
      sandboxes: (await h.runtime.listPodSandbox()).map((s) => s.metadata?.name).sort(),
      containers: containers.map((c) => `${c.labels['io.kubernetes.pod.name']}/${c.metadata?.name}/${c.state}`).sort(),
      phases: ['a', 'b'].map((n) => h.pod(n)?.status?.phase),
    };
  };
  const early = await shape(false);
  const late = await shape(true);
  t.same(early, late);
  t.same(early.sandboxes, ['a', 'b']);
  t.same(early.phases, ['Running', 'Running']);
});

t.test('imagePullPolicy: no pull of a present local image, Never when absent, ErrImagePull then ImagePullBackOff', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('local'));
  t.equal(calls(h.runtime, 'PullImage').length, 0, 'IfNotPresent and present: ImageStatus only');
  t.match(h.events('Pulled')[0]?.message, `Container image "${IMAGE}" already present on machine`);
  await h.createPod(podSpec('never', { containers: [{ name: 'main', image: 'localhost/capstan/absent:1', imagePullPolicy: 'Never' }] }));
  t.equal(cs(h.pod('never'))?.state.waiting.reason, 'ErrImageNeverPull');
  t.equal(calls(h.runtime, 'PullImage').length, 0);
  await h.createPod(podSpec('pull', { containers: [{ name: 'main', image: 'registry.example/app:1', imagePullPolicy: 'IfNotPresent' }] }));
  t.ok(h.events('Failed').some((e) => e.message === 'Error: ErrImagePull'));
  t.ok(h.events('Failed').some((e) => e.message.startsWith('Failed to pull image "registry.example/app:1": ')));
  t.equal(calls(h.runtime, 'PullImage').length, 1);
  await h.advance(2_000);
  t.equal(cs(h.pod('pull'))?.state.waiting.reason, 'ImagePullBackOff');
  t.equal(cs(h.pod('pull'))?.state.waiting.message,
    'Back-off pulling image "registry.example/app:1": ErrImagePull: rpc error: code = Unknown desc = failed to pull and unpack image "registry.example/app:1": failed to resolve reference "registry.example/app:1": not found');
  t.equal(calls(h.runtime, 'PullImage').length, 1, 'no pull during the backoff');
  await h.advance(10_000);
  t.equal(calls(h.runtime, 'PullImage').length, 2, 'pulled again after 10 s');
  t.equal(h.pod('pull')?.status.phase, 'Pending');
});
