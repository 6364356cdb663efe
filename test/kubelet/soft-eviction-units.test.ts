// Soft eviction's pure parts on a driven clock: thresholds with their grace periods, a soft
// threshold evicting only once crossed for its grace period (and starting over when it
// clears), the grace an evicted pod gets, memory ranking by usage above request within
// priority as upstream's eviction manager does, and the message's container sentences.
import t from 'tap';
import { FakeClock } from '../../src/client/index.js';
import {
  ThresholdTracker, crossedThresholds, evictionGrace, evictionMessage, parseSoftThresholds, parseThresholds, rankForEviction,
} from '../../src/kubelet/eviction.js';
import { parseDuration } from '../../src/util/index.js';
import type { Pod } from '../../src/api/kinds.js';

const pod = (name: string, memoryRequest?: string, priority = 0, grace?: number): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name },
  spec: {
    priority, ...(grace !== undefined ? { terminationGracePeriodSeconds: grace } : {}),
    containers: [{ name: 'c', image: 'i', ...(memoryRequest ? { resources: { requests: { memory: memoryRequest } } } : {}) }],
  },
});

t.test('soft thresholds need a grace period each', async (t) => {
  const soft = parseSoftThresholds('memory.available<1Gi,nodefs.available<15%', 'memory.available=1m30s,nodefs.available=2m', parseDuration);
  t.same(soft.map((s) => [s.signal, s.gracePeriodMs]), [['memory.available', 90_000], ['nodefs.available', 120_000]]);
  t.same(parseSoftThresholds('', '', parseDuration), [], 'none by default');
  t.throws(() => parseSoftThresholds('memory.available<1Gi', '', parseDuration), /grace period must be specified for the soft eviction threshold memory.available/);
  t.throws(() => parseSoftThresholds('memory.available<1Gi', 'memory.free=1m', parseDuration), /invalid eviction grace period/);
});

t.test('a soft threshold evicts once crossed for its grace period; a hard one at once', async (t) => {
  const clock = new FakeClock();
  const tracker = new ThresholdTracker();
  const [hard] = parseThresholds('memory.available<100Mi');
  const [soft] = parseSoftThresholds('memory.available<1Gi', 'memory.available=30s', parseDuration);
  const sample = (mi: number) => ({ memoryAvailableBytes: mi * 2 ** 20, memoryCapacityBytes: 4 * 2 ** 30, diskAvailableBytes: 1, diskSizeBytes: 1 });
  const met = (mi: number) => tracker.met(crossedThresholds([hard!, soft!], sample(mi)), clock.now()).map((c) => (c.threshold === hard ? 'hard' : 'soft'));
  t.same(met(512), [], 'soft crossed: not yet');
  clock.step(29_000);
  t.same(met(512), []);
  clock.step(1_000);
  t.same(met(512), ['soft'], 'after 30 s crossed');
  clock.step(5_000);
  t.same(met(2048), [], 'cleared');
  t.same(met(512), [], 'crossed again: the grace period starts over');
  t.same(met(50), ['hard'], 'hard at once (the soft one still waits)');
  clock.step(30_000);
  t.same(met(50), ['hard', 'soft']);
});

t.test('grace on eviction: 0 for hard, the pod\'s own capped for soft', async (t) => {
  const [hard] = parseThresholds('memory.available<100Mi');
  const [soft] = parseSoftThresholds('memory.available<1Gi', 'memory.available=30s', parseDuration);
  t.equal(evictionGrace(pod('a', undefined, 0, 60), hard!, 10), 0);
  t.equal(evictionGrace(pod('a', undefined, 0, 60), soft!, 10), 10, 'capped at --eviction-max-pod-grace-period');
  t.equal(evictionGrace(pod('a', undefined, 0, 5), soft!, 10), 5, 'a shorter own grace period is kept');
  t.equal(evictionGrace(pod('a'), soft!, 0), 0, 'the flag\'s default 0');
});

t.test('memory ranking: above request first, then lower priority, then the larger excess', async (t) => {
  const Mi = 2 ** 20;
  const usage = new Map([['over-small', 70 * Mi], ['over-big', 300 * Mi], ['under', 10 * Mi], ['besteffort', 5 * Mi], ['critical-over', 500 * Mi], ['under-low', 1 * Mi]]);
  const pods = [pod('under', '64Mi'), pod('critical-over', '64Mi', 1000), pod('over-small', '64Mi'), pod('besteffort'), pod('over-big', '256Mi'), pod('under-low', '64Mi', -10)];
  t.same(rankForEviction(pods, usage).map((p) => p.metadata.name),
    ['over-big', 'over-small', 'besteffort', 'critical-over', 'under-low', 'under'],
    'over request (by priority, then excess: 44Mi > 6Mi > 5Mi), then the rest by priority');
  t.same(rankForEviction([pod('g', '64Mi'), pod('e')]).map((p) => p.metadata.name), ['e', 'g'], 'without usage: QoS order');
});

t.test('the message names the containers using more than they request', async (t) => {
  const [c] = crossedThresholds(parseThresholds('memory.available<100Mi'), { memoryAvailableBytes: 50 * 2 ** 20, memoryCapacityBytes: 2 ** 30, diskAvailableBytes: 1, diskSizeBytes: 1 });
  t.equal(evictionMessage(c!, [{ name: 'web', usageBytes: 100 * 2 ** 20, requestBytes: 64 * 2 ** 20 }, { name: 'side', usageBytes: 2 ** 20, requestBytes: 64 * 2 ** 20 }]),
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container web was using 100Mi, request is 64Mi, has larger consumption of memory. ');
});
