// computePodStatus, table-driven over runtime snapshots.
import t from 'tap';
import { computePodStatus } from '../../src/kubelet/index.js';
import type { ContainerState, PodRuntimeState } from '../../src/kubelet/runtime-state.js';
import type { Waiting } from '../../src/kubelet/status.js';

const NOW = 1_700_000_000_000;
const sandbox = { id: 'sb1', attempt: 0, ready: true, createdAt: NOW - 5000, ip: '10.0.0.5', ips: ['10.0.0.5'], hostNetwork: false };
const c = (name: string, state: ContainerState['state'], extra: Partial<ContainerState> = {}): ContainerState => ({
  id: `${name}-${extra.restartCount ?? 0}`, sandboxId: 'sb1', name, init: false, restartCount: 0, state,
  createdAt: NOW - 4000, startedAt: state === 'CONTAINER_CREATED' ? 0 : NOW - 3000, finishedAt: state === 'CONTAINER_EXITED' ? NOW - 1000 : 0,
  exitCode: 0, reason: '', message: '', image: 'img', imageRef: 'sha256:abc', hash: '', annotations: {}, ...extra,
});
const pod = (spec: Record<string, unknown> = {}) => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { restartPolicy: 'Always', containers: [{ name: 'a', image: 'img' }], ...spec },
  status: { conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2023-11-14T22:00:00Z' }] },
});

interface Case {
  name: string;
  pod?: ReturnType<typeof pod>;
  runtime: Partial<PodRuntimeState>;
  waiting?: [string, Waiting][];
  ready?: boolean;
  phase: string;
  state: string;
  ready_?: string;
  extra?: (s: any, t: any) => void;
}

const cases: Case[] = [
  { name: 'nothing yet', runtime: { sandboxes: [], containers: [] }, phase: 'Pending', state: 'waiting:ContainerCreating', ready_: 'False/ContainersNotReady',
    extra: (s, t) => { t.notOk(s.podIP); t.equal(s.conditions[0].status, 'False'); } },
  { name: 'running, no readiness probe', runtime: { containers: [c('a', 'CONTAINER_RUNNING')] }, phase: 'Running', state: 'running', ready_: 'True/',
    extra: (s, t) => { t.equal(s.podIP, '10.0.0.5'); t.equal(s.containerStatuses[0].containerID, 'containerd://a-0'); t.equal(s.containerStatuses[0].imageID, 'sha256:abc'); } },
  { name: 'running, readiness failing', runtime: { containers: [c('a', 'CONTAINER_RUNNING')] }, ready: false, phase: 'Running', state: 'running', ready_: 'False/ContainersNotReady' },
  { name: 'crash loop', runtime: { containers: [c('a', 'CONTAINER_EXITED', { exitCode: 1, reason: 'Error', restartCount: 3 })] },
    waiting: [['a', { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=a pod=p_default(u1)' }]],
    phase: 'Running', state: 'waiting:CrashLoopBackOff', ready_: 'False/ContainersNotReady',
    extra: (s, t) => { t.equal(s.containerStatuses[0].lastState.terminated.exitCode, 1); t.equal(s.containerStatuses[0].restartCount, 3); } },
  { name: 'OOMKilled with lastState', runtime: { containers: [c('a', 'CONTAINER_RUNNING', { restartCount: 1 }), c('a', 'CONTAINER_EXITED', { exitCode: 137, reason: 'OOMKilled' })] },
    phase: 'Running', state: 'running', extra: (s, t) => t.equal(s.containerStatuses[0].lastState.terminated.reason, 'OOMKilled') },
  { name: 'Never, exit 0 → Succeeded', pod: pod({ restartPolicy: 'Never' }), runtime: { containers: [c('a', 'CONTAINER_EXITED', { reason: 'Completed' })] },
    phase: 'Succeeded', state: 'terminated:Completed', ready_: 'False/PodCompleted' },
  { name: 'Never, exit 2 → Failed', pod: pod({ restartPolicy: 'Never' }), runtime: { containers: [c('a', 'CONTAINER_EXITED', { exitCode: 2, reason: 'Error' })] },
    phase: 'Failed', state: 'terminated:Error' },
  { name: 'OnFailure, one failed one running → Running', pod: pod({ restartPolicy: 'OnFailure', containers: [{ name: 'a', image: 'img' }, { name: 'b', image: 'img' }] }),
    runtime: { containers: [c('a', 'CONTAINER_EXITED', { exitCode: 1 }), c('b', 'CONTAINER_RUNNING')] }, phase: 'Running', state: 'terminated:Error' },
  { name: 'init running → PodInitializing', pod: pod({ initContainers: [{ name: 'i', image: 'img' }] }), runtime: { containers: [c('i', 'CONTAINER_RUNNING', { init: true })] },
    phase: 'Pending', state: 'waiting:PodInitializing', extra: (s, t) => { t.equal(s.conditions[1].reason, 'ContainersNotInitialized'); t.equal(s.initContainerStatuses[0].state.running !== undefined, true); } },
  { name: 'init failed under Never → Failed', pod: pod({ restartPolicy: 'Never', initContainers: [{ name: 'i', image: 'img' }] }),
    runtime: { containers: [c('i', 'CONTAINER_EXITED', { init: true, exitCode: 1, reason: 'Error' })] }, phase: 'Failed', state: 'waiting:PodInitializing' },
  { name: 'image pull failing', runtime: { containers: [] }, waiting: [['a', { reason: 'ErrImagePull', message: 'not found' }]], phase: 'Pending', state: 'waiting:ErrImagePull' },
  { name: 'host network uses the node IP', runtime: { sandboxes: [{ ...sandbox, ip: '', ips: [], hostNetwork: true }], containers: [c('a', 'CONTAINER_RUNNING')] },
    phase: 'Running', state: 'running', extra: (s, t) => t.same(s.podIPs, [{ ip: '192.0.2.1' }]) },
];

for (const k of cases) {
  t.test(k.name, async (t) => {
    const s = computePodStatus({
      pod: k.pod ?? pod(), runtime: { uid: 'u1', sandboxes: [sandbox], containers: [], ...k.runtime }, hostIP: '192.0.2.1', now: NOW,
      runtimeName: 'containerd', ready: () => k.ready ?? true, started: () => true, waiting: new Map(k.waiting ?? []),
    });
    t.equal(s.phase, k.phase);
    const st = s.containerStatuses![0]!.state as Record<string, { reason?: string }>;
    const [kind] = Object.keys(st);
    t.equal(`${kind}${st[kind].reason ? `:${st[kind].reason}` : ''}`, k.state);
    if (k.ready_) {
      const r = s.conditions!.find((x) => x.type === 'Ready')!;
      t.equal(`${r.status}/${r.reason ?? ''}`, k.ready_);
    }
    t.same(s.conditions!.map((x) => x.type), ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);
    t.equal(s.conditions![4]!.lastTransitionTime, '2023-11-14T22:00:00Z', 'PodScheduled kept');
    k.extra?.(s, t);
  });
}

t.test('lastTransitionTime only moves when the status does', async (t) => {
  const input = (ready: boolean, now: number, prev?: any) => ({
    pod: { ...pod(), status: prev ?? pod().status }, runtime: { uid: 'u1', sandboxes: [sandbox], containers: [c('a', 'CONTAINER_RUNNING')] },
    hostIP: '192.0.2.1', now, runtimeName: 'containerd', ready: () => ready, started: () => true, waiting: new Map(),
  });
  const first = computePodStatus(input(false, NOW));
  const same = computePodStatus(input(false, NOW + 5000, first));
  t.same(same.conditions, first.conditions);
  const flipped = computePodStatus(input(true, NOW + 9000, first));
  t.not(flipped.conditions![2]!.lastTransitionTime, first.conditions![2]!.lastTransitionTime);
  t.equal(flipped.startTime, first.startTime);
});
