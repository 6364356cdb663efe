// The DaemonSet controller against an in-memory API with a driven clock: a pod per eligible
// node (selector, affinity, taints with the automatic daemon tolerations), nodes coming and
// going, rolling updates by maxUnavailable and by maxSurge, OnDelete, failed pods, revisions.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { rfc3339 } from '../../src/api/time.js';
import { resources } from '../../src/client/index.js';
import { DaemonSetController, placement, surgeAndUnavailable, targetNode } from '../../src/controllers/daemonset/index.js';
import { harness } from './replicaset-harness.js';

function setup(t: Test) {
  const h = harness(t, (ctx) => [new DaemonSetController(ctx)]);
  const api = h.fake.resource(resources.daemonsets);
  const nodesAPI = h.fake.resource(resources.nodes);
  const podsAPI = h.fake.resource(resources.pods);
  const s = {
    ...h, api, nodesAPI,
    ds: () => h.fake.get(resources.daemonsets, 'default', 'agent')!,
    live: () => h.pods().filter((p) => !p.metadata.deletionTimestamp),
    /** node → images of the daemon pods on it */
    layout: () => {
      const out: Record<string, string[]> = {};
      for (const p of s.live()) (out[targetNode(p as never) ?? '?'] ??= []).push(p.spec.containers[0].image);
      for (const v of Object.values(out)) v.sort();
      return out;
    },
    addNode: async (name: string, extra: { labels?: Record<string, string>; taints?: object[]; unschedulable?: boolean } = {}) => {
      await nodesAPI.create(undefined, { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra.labels } }, spec: { taints: extra.taints, unschedulable: extra.unschedulable } } as never);
      await h.settle();
    },
    setImage: (image: string) => api.patch('default', 'agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }),
    /** Marks every live pod that is not yet Running as Running and Ready (bound to its node), then settles. */
    async ready() {
      const now = rfc3339(new Date(h.clock.now()));
      for (const p of s.live()) {
        if (p.status?.phase === 'Running') continue;
        await podsAPI.updateStatus({ ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } });
      }
      await h.settle();
    },
    revisions: () => h.fake.list(resources.controllerrevisions, 'default').sort((a, b) => a.revision - b.revision),
  };
  return s;
}

function daemonSet(spec: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'agent', namespace: 'default', annotations: { 'deprecated.daemonset.template.generation': '1' } },
    spec: {
      selector: { matchLabels: { app: 'agent' } }, revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'agent:1' }], ...podSpec } },
      ...spec,
    },
  };
}

const noSchedule = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };

t.test('a pod on every node, one added later, none on a tainted node, one on a cordoned node', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.addNode('n2');
  await s.addNode('tainted', { taints: [noSchedule] });
  await s.addNode('cordoned', { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] });
  await s.api.create('default', daemonSet());
  await s.settle();
  t.same(Object.keys(s.layout()).sort(), ['cordoned', 'n1', 'n2']);
  const pod = s.live()[0];
  t.same(pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
    [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [targetNode(pod as never)] }] }], 'pinned by node affinity, left to the scheduler');
  t.notOk(pod.spec.nodeName, 'not bound by the controller');
  const keys = pod.spec.tolerations.map((x: { key: string; effect: string }) => `${x.key}:${x.effect}`).sort();
  t.same(keys, ['node.kubernetes.io/disk-pressure:NoSchedule', 'node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute',
    'node.kubernetes.io/pid-pressure:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unschedulable:NoSchedule']);
  t.equal(pod.metadata.labels?.['pod-template-generation'], '1');
  t.equal(pod.metadata.labels?.['controller-revision-hash'], s.revisions()[0].metadata.labels?.['controller-revision-hash']);
  t.match(s.ds().status, { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 0, numberMisscheduled: 0, updatedNumberScheduled: 3, numberAvailable: 0, numberUnavailable: 3, observedGeneration: 1 });
  await s.ready();
  t.match(s.ds().status, { numberReady: 3, numberAvailable: 3, numberUnavailable: 0 });

  await s.addNode('n3');
  t.same(Object.keys(s.layout()).sort(), ['cordoned', 'n1', 'n2', 'n3'], 'a new node gets its pod');
  await s.nodesAPI.delete(undefined, 'n3');
  await s.settle();
  t.equal(s.ds().status.desiredNumberScheduled, 3, 'a deleted node no longer counts');
});

t.test('a pod tolerating the taint runs there; nodeSelector and required affinity pick nodes', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('a', { labels: { disk: 'ssd', zone: 'z1' } });
  await s.addNode('b', { labels: { disk: 'hdd', zone: 'z1' }, taints: [noSchedule] });
  await s.addNode('c', { labels: { disk: 'ssd', zone: 'z2' }, taints: [noSchedule] });
  await s.api.create('default', daemonSet({}, {
    nodeSelector: { disk: 'ssd' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z2'] }] }] } } },
  }));
  await s.settle();
  t.same(Object.keys(s.layout()), ['c']);
});

t.test('taints added later: NoExecute evicts the daemon pod, NoSchedule leaves it (misscheduled)', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.addNode('n2');
  await s.api.create('default', daemonSet());
  await s.settle();
  await s.ready();
  await s.nodesAPI.patch(undefined, 'n1', 'merge', { spec: { taints: [noSchedule] } });
  await s.nodesAPI.patch(undefined, 'n2', 'merge', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] } });
  await s.settle();
  t.same(Object.keys(s.layout()), ['n1']);
  t.match(s.ds().status, { desiredNumberScheduled: 0, numberMisscheduled: 1 });
  await s.nodesAPI.patch(undefined, 'n1', 'merge', { metadata: { labels: { other: 'x' } }, spec: { taints: null } });
  await s.settle();
  t.match(s.ds().status, { desiredNumberScheduled: 1, numberMisscheduled: 0, currentNumberScheduled: 1 });
});

t.test('rolling update with maxUnavailable replaces that many nodes at a time', async (t) => {
  const s = setup(t);
  await s.start();
  for (const n of ['n1', 'n2', 'n3', 'n4']) await s.addNode(n);
  await s.api.create('default', daemonSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } } }));
  await s.settle();
  await s.ready();
  await s.setImage('agent:2');
  await s.settle();
  const counts = () => Object.values(s.layout()).flat().reduce((m: Record<string, number>, i) => ({ ...m, [i]: (m[i] ?? 0) + 1 }), {});
  t.same(counts(), { 'agent:1': 2, 'agent:2': 2 }, 'two nodes at a time');
  t.match(s.ds().status, { updatedNumberScheduled: 2, numberUnavailable: 2 });
  await s.ready();
  t.same(counts(), { 'agent:2': 4 }, 'the other two follow once the first two are available');
  t.match(s.ds().status, { updatedNumberScheduled: 4, numberAvailable: 2 });
  await s.ready();
  t.match(s.ds().status, { updatedNumberScheduled: 4, numberAvailable: 4, observedGeneration: 2 });
  t.same(s.revisions().map((r) => r.revision), [1, 2]);
});

t.test('rolling update with maxSurge starts the new pod before deleting the old one', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.addNode('n2');
  await s.api.create('default', daemonSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }));
  await s.settle();
  await s.ready();
  await s.setImage('agent:2');
  await s.settle();
  const layout = s.layout();
  t.same(Object.values(layout).map((v) => v.join(',')).sort(), ['agent:1', 'agent:1,agent:2'], 'one node runs old and new side by side');
  t.equal(s.ds().status.numberAvailable, 2, 'nothing became unavailable');
  await s.ready();
  await s.ready();
  t.same(s.layout(), { n1: ['agent:2'], n2: ['agent:2'] });
});

t.test('OnDelete keeps old pods until they are deleted', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.addNode('n2');
  await s.api.create('default', daemonSet({ updateStrategy: { type: 'OnDelete' } }));
  await s.settle();
  await s.ready();
  await s.setImage('agent:2');
  await s.settle();
  t.same(s.layout(), { n1: ['agent:1'], n2: ['agent:1'] });
  const onN1 = s.live().find((p) => targetNode(p as never) === 'n1')!;
  await s.fake.resource(resources.pods).delete('default', onN1.metadata.name as string);
  await s.settle();
  t.same(s.layout(), { n1: ['agent:2'], n2: ['agent:1'] });
  t.equal(s.ds().status.updatedNumberScheduled, 1);
});

t.test('a failed daemon pod is replaced and reported', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.api.create('default', daemonSet());
  await s.settle();
  const [pod] = s.live();
  await s.fake.resource(resources.pods).updateStatus({ ...pod, spec: { ...pod.spec, nodeName: 'n1' }, status: { phase: 'Failed' } });
  await s.settle();
  const [next] = s.live();
  t.not(next.metadata.uid, pod.metadata.uid);
  t.match(s.events('FailedDaemonPod'), [{ type: 'Warning', message: `Found failed daemon pod default/${pod.metadata.name} on node n1, will try to kill it` }]);
});

t.test('a daemon pod that keeps failing on a node is killed at most once per backoff window (1 s, doubling)', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.api.create('default', daemonSet());
  await s.settle();
  const fail = async () => {
    const [pod] = s.live();
    await s.fake.resource(resources.pods).updateStatus({ ...pod, status: { phase: 'Failed' } });
    await s.settle();
    return pod.metadata.uid;
  };
  const first = await fail();
  t.not(s.live()[0].metadata.uid, first, 'the first failure is replaced at once');
  const second = await fail();
  t.equal(s.live()[0].metadata.uid, second, 'a second failure within 1 s waits');
  t.equal(s.events('FailedDaemonPod').length, 1);
  await s.advance(1100);
  t.not(s.live()[0].metadata.uid, second, 'replaced once the window has passed');
  const third = await fail();
  await s.advance(1100);
  t.equal(s.live()[0].metadata.uid, third, 'the window has doubled to 2 s');
  await s.advance(1000);
  t.not(s.live()[0].metadata.uid, third);
});

t.test('a rollback reuses the old revision with a new number', async (t) => {
  const s = setup(t);
  await s.start();
  await s.addNode('n1');
  await s.api.create('default', daemonSet());
  await s.settle();
  await s.ready();
  const [r1] = s.revisions();
  await s.setImage('agent:2');
  await s.settle();
  await s.ready();
  await s.setImage('agent:1');
  await s.settle();
  await s.ready();
  const revs = s.revisions();
  t.same(revs.map((r) => [r.metadata.name, r.revision]), [[revs[0].metadata.name, 2], [r1.metadata.name, 3]]);
  t.same(s.layout(), { n1: ['agent:1'] });
});

t.test('placement and surge arithmetic', async (t) => {
  const node = (taints: object[] = [], labels: Record<string, string> = {}) => ({ metadata: { name: 'n', labels }, spec: { taints } }) as never;
  t.same(placement({ containers: [] }, node([{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }])), { shouldRun: true, shouldContinueRunning: true }, 'not-ready is tolerated');
  t.same(placement({ containers: [] }, node([{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }])), { shouldRun: false, shouldContinueRunning: true });
  t.same(placement({ containers: [], hostNetwork: true }, node([{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }])), { shouldRun: true, shouldContinueRunning: true }, 'host-network pods tolerate network-unavailable');
  t.same(placement({ containers: [] }, node([{ key: 'x', effect: 'PreferNoSchedule' }])), { shouldRun: true, shouldContinueRunning: true });
  t.same(placement({ containers: [], nodeName: 'other' }, node()), { shouldRun: false, shouldContinueRunning: false });
  const ds = (maxUnavailable: unknown, maxSurge: unknown) => ({ metadata: {}, spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable, maxSurge } } } }) as never;
  t.same(surgeAndUnavailable(ds('10%', 0), 15), [0, 2], 'percentages round up');
  t.same(surgeAndUnavailable(ds(0, '0%'), 15), [0, 1], 'never both zero');
  t.same(surgeAndUnavailable(ds(0, '25%'), 10), [3, 0]);
});
