// The pure parts of node admission, eviction thresholds, termination messages, static pod
// manifests, the containerd event decoding, and the relist fallback of container events.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../src/client/index.js';
import { admitPod } from '../../src/kubelet/admission.js';
import { ContainerEvents } from '../../src/kubelet/container-events.js';
import { decodeEnvelope } from '../../src/kubelet/containerd/index.js';
import { crossedThresholds, evictionMessage, parseThresholds, rankForEviction } from '../../src/kubelet/eviction.js';
import { podCgroupResources } from '../../src/kubelet/pod-cgroups.js';
import { staticPodFromManifest } from '../../src/kubelet/static-pods.js';
import { logTail } from '../../src/kubelet/termination-message.js';
import { logger } from '../../src/log/index.js';
import type { RuntimeStateReader } from '../../src/kubelet/runtime-state.js';
import type { Node, Pod } from '../../src/api/kinds.js';

const node = (extra: Partial<Node> = {}): Node => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'a' } },
  status: { allocatable: { cpu: '2', memory: '1Gi', pods: '2', 'ephemeral-storage': '10Gi' } }, ...extra,
});
const pod = (name: string, spec: Record<string, unknown> = {}, req?: Record<string, string>): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, uid: name },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i', ...(req ? { resources: { requests: req, limits: req } } : {}) }], ...spec },
});

t.test('admission: first failure, upstream reasons and messages', async (t) => {
  t.same(admitPod(pod('a', {}, { cpu: '1500m' }), node(), [pod('b', {}, { cpu: '1' })]), {
    admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000",
  });
  t.same(admitPod(pod('a'), node(), [pod('b'), pod('c')]), {
    admit: false, reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
  });
  t.equal((admitPod(pod('a', {}, { memory: '2Gi' }), node(), []) as { reason: string }).reason, 'OutOfmemory');
  t.equal((admitPod(pod('a', { nodeSelector: { zone: 'b' } }), node(), []) as { reason: string }).reason, 'NodeAffinity');
  const tainted = node({ spec: { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }, { key: 's', effect: 'NoSchedule' }] } });
  t.same(admitPod(pod('a'), tainted, []), { admit: false, reason: 'TaintToleration', message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate" });
  t.same(admitPod(pod('a', { tolerations: [{ key: 'k', operator: 'Exists' }] }), tainted, []), { admit: true }, 'NoSchedule is the scheduler\'s');
  const ports = { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, hostPort: 8080 }] }] };
  t.equal((admitPod(pod('a', ports), node(), [pod('b', ports)]) as { reason: string }).reason, 'NodePorts');
});

t.test('pod cgroup resources as ResourceConfigForPod', async (t) => {
  t.same(podCgroupResources(pod('g', {}, { cpu: '250m', memory: '64Mi' })), { cpuShares: 256, cpuPeriodUs: 100000, cpuQuotaUs: 25000, memoryLimitBytes: 64 * 2 ** 20 });
  t.same(podCgroupResources(pod('b', { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '100m' } } }] })), { cpuShares: 102 });
  t.same(podCgroupResources(pod('e')), { cpuShares: 2 });
});

t.test('eviction thresholds and messages', async (t) => {
  const th = parseThresholds('memory.available<100Mi,nodefs.available<10%');
  const sample = { memoryAvailableBytes: 50 * 2 ** 20, memoryCapacityBytes: 2 ** 30, diskAvailableBytes: 5, diskSizeBytes: 100 };
  const crossed = crossedThresholds(th, sample);
  t.same(crossed.map((c) => c.resource), ['memory', 'ephemeral-storage']);
  t.equal(evictionMessage(crossed[0]), 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ');
  t.throws(() => parseThresholds('memory.free<1Gi'));
  t.same(rankForEviction([pod('g', {}, { cpu: '1', memory: '1Gi' }), pod('e'), pod('b', { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } } }] })]).map((p) => p.metadata.name), ['e', 'b', 'g']);
});

t.test('log tail for FallbackToLogsOnError: last lines, partial lines joined, byte cap', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-logtail-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const f = join(dir, '0.log');
  const lines = Array.from({ length: 100 }, (_, i) => `2026-01-01T00:00:00Z stdout F line ${i}`);
  writeFileSync(f, `${lines.join('\n')}\n2026-01-01T00:00:00Z stderr P half \n2026-01-01T00:00:00Z stderr F done\n`);
  const text = logTail(f);
  t.equal(text.split('\n').length - 1, 80);
  t.ok(text.endsWith('line 99\nhalf done\n'));
  t.equal(logTail(f, 80, 10), 'half done\n');
});

t.test('static pod manifests: name, namespace, uid, annotations', async (t) => {
  const y = 'apiVersion: v1\nkind: Pod\nmetadata: {name: etcd}\nspec: {containers: [{name: c, image: i}]}\n';
  const a = staticPodFromManifest(y, '/m/etcd.yaml', 'Node1', 0);
  t.equal(a.metadata.name, 'etcd-node1');
  t.equal(a.metadata.namespace, 'default');
  t.match(a.metadata.uid, /^[0-9a-f]{32}$/);
  t.equal(a.metadata.annotations!['kubernetes.io/config.source'], 'file');
  t.equal(a.metadata.annotations!['kubernetes.io/config.hash'], a.metadata.uid);
  t.equal(staticPodFromManifest(y, '/m/etcd.yaml', 'Node1', 5).metadata.uid, a.metadata.uid, 'stable across reads');
  t.not(staticPodFromManifest(y, '/m/other.yaml', 'Node1', 0).metadata.uid, a.metadata.uid);
  t.throws(() => staticPodFromManifest('kind: Service\nmetadata: {name: x}', '/m/x', 'n', 0));
});

t.test('containerd envelope decoding', async (t) => {
  const str = (field: number, s: string | Buffer) => {
    const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
    return Buffer.concat([Buffer.from([(field << 3) | 2, b.length]), b]);
  };
  // exited_at = Timestamp{seconds: 1700000000, nanos: 250000000}
  const varint = (n: number) => { const out: number[] = []; do { out.push((n % 128) | (n >= 128 ? 128 : 0)); n = Math.floor(n / 128); } while (n > 0); return Buffer.from(out); };
  const at = Buffer.concat([Buffer.from([1 << 3]), varint(1_700_000_000), Buffer.from([2 << 3]), varint(250_000_000)]);
  const exit = Buffer.concat([str(1, 'abc123'), str(2, 'abc123'), Buffer.from([(4 << 3) | 0, 137, 1]), str(5, at)]);
  const any = Buffer.concat([str(1, 'containerd.events.TaskExit'), str(2, exit)]);
  const env = Buffer.concat([str(2, 'k8s.io'), str(3, '/tasks/exit'), str(4, any)]);
  t.same(decodeEnvelope(env), { namespace: 'k8s.io', topic: '/tasks/exit', containerId: 'abc123', processId: 'abc123', exitedAt: 1_700_000_000_250 });
  const oom = Buffer.concat([str(1, 'containerd.events.TaskOOM'), str(2, str(1, 'abc123'))]);
  t.same(decodeEnvelope(Buffer.concat([str(2, 'k8s.io'), str(3, '/tasks/oom'), str(4, oom)])), { namespace: 'k8s.io', topic: '/tasks/oom', containerId: 'abc123' });
});

t.test('container events: wake on exit; relist while the stream is down; wake all after it is back', async (t) => {
  const clock = new FakeClock();
  const woken: string[] = [];
  let all = 0;
  let states = new Map<string, [string, string]>([['c1', ['pod-a', 'CONTAINER_RUNNING']]]);
  const reader = {
    podOf: (id: string) => (id === 'c1' ? 'pod-a' : undefined), containerStates: async () => states, setRelistPeriod: () => undefined, invalidate: () => undefined,
    // The runtime says running twice more after the event (containerd's CRI plugin is late).
    exited: async () => (++asked <= 2 ? 'pending' : 'updated'),
  } as unknown as RuntimeStateReader;
  let asked = 0;
  const streams: { event: (id: string, processId?: string) => void; end: (e?: Error) => void }[] = [];
  const ev = new ContainerEvents({
    socket: 'x', reader, clock, log: logger('t', {}, () => undefined), wake: (u) => woken.push(u), wakeAll: () => { all++; },
    subscribe: (_s, _f, onEvent, onEnd) => {
      streams.push({ event: (id, processId) => onEvent({ topic: '/tasks/exit', namespace: 'k8s.io', containerId: id, processId }), end: onEnd });
      return { close: () => undefined };
    },
  });
  ev.start();
  t.teardown(() => ev.stop());
  const settle = () => new Promise((r) => setImmediate(r));
  const stream = (id: string, processId = id) => streams.at(-1)!.event(id, processId);
  stream('c1', 'exec-1');
  await settle();
  t.equal(asked, 0, 'an exec\'s exit is not the container\'s');
  stream('c1');
  await settle();
  t.same(woken, [], 'not woken while the runtime still says running');
  for (let i = 0; i < 3 && !woken.length; i++) {
    clock.step(100);
    await settle();
  }
  t.same(woken, ['pod-a'], 'woken once the runtime says exited');
  t.equal(asked, 3);
  woken.length = 0;
  streams[0].end(new Error('gone'));
  await settle(); // the first relist: everything RUNNING
  states = new Map([['c1', ['pod-a', 'CONTAINER_EXITED']]]);
  clock.step(500); // the backoff: resubscribed, and every pod woken for the gap
  t.equal(streams.length, 2, 'resubscribed');
  t.equal(all, 1, 'every pod woken after the gap');
  t.same(woken, [], 'nothing relisted while the stream is up');
  streams[1].end(new Error('gone again'));
  await settle();
  t.same(woken, ['pod-a'], 'the relist wakes the pod whose container changed');
});
