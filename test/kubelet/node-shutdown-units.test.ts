// Graceful node shutdown's pure parts on a FakeClock: the flags as priority groups (upstream's
// migrateConfig), pods into groups, each pod's grace capped by its group's, and the manager
// stopping group after group — the next when all are down or the group's time is up.
import t from 'tap';
import { FakeClock } from '../../src/client/index.js';
import { NodeShutdownManager, groupByPriority, shutdownGrace, shutdownGroups } from '../../src/kubelet/node-shutdown.js';
import { logger } from '../../src/log/index.js';
import type { Pod } from '../../src/api/kinds.js';

const pod = (name: string, priority?: number, grace?: number): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name },
  spec: { containers: [], ...(priority !== undefined ? { priority } : {}), ...(grace !== undefined ? { terminationGracePeriodSeconds: grace } : {}) },
});

t.test('groups from the two flags', async (t) => {
  t.same(shutdownGroups(0, 0), [], 'off by default');
  t.same(shutdownGroups(30, 10), [{ priority: 0, seconds: 20 }, { priority: 2_000_000_000, seconds: 10 }]);
  t.same(shutdownGroups(10, 20), [], 'critical longer than the whole: off, as upstream');
  const groups = shutdownGroups(30, 10);
  const byName = (g: ReturnType<typeof groupByPriority>) => g.map((x) => x.pods.map((p) => p.metadata.name));
  t.same(byName(groupByPriority(groups, [pod('a'), pod('b', 1000), pod('c', 2_000_000_000), pod('d', 2_000_001_000), pod('e', -5)])),
    [['a', 'b', 'e'], ['c', 'd']], 'at or above system-cluster-critical is critical; below the lowest group is the lowest');
  t.equal(shutdownGrace(pod('x', 0, 5), groups[0]!), 5, 'a shorter own grace period is kept');
  t.equal(shutdownGrace(pod('x', 0, 300), groups[0]!), 20, 'a longer one is capped');
  t.equal(shutdownGrace(pod('x'), groups[0]!), 20, 'unset: the group\'s');
});

t.test('the manager: regular pods, then critical ones, each group within its time', async (t) => {
  const clock = new FakeClock();
  const log: string[] = [];
  const pending = new Map<string, () => void>();
  let nodeStatus = 0;
  const m = new NodeShutdownManager({
    groups: shutdownGroups(30, 10), clock, log: logger('t', {}, () => undefined),
    activePods: () => [pod('crit', 2_000_000_000, 30), pod('web', 0, 5), pod('stuck', 0, 600)],
    killPod: (p, grace) => {
      log.push(`${p.metadata.name}:${grace}`);
      return new Promise((r) => pending.set(p.metadata.name!, () => r()));
    },
    syncNodeStatus: async () => { nodeStatus++; },
    nodeEvent: (msg) => log.push(msg),
  });
  t.equal(m.status(), undefined);
  const done = m.shutdown();
  await new Promise((r) => setImmediate(r));
  t.equal(m.status(), 'node is shutting down');
  t.equal(nodeStatus, 1, 'node status posted at once');
  t.same(log, ['Shutdown manager detected shutdown event', 'web:5', 'stuck:20'], 'the regular group first, grace capped at 20 s');
  pending.get('web')!();
  clock.step(19_000);
  await new Promise((r) => setImmediate(r));
  t.same(log.slice(3), [], 'the critical group waits while a regular pod is still stopping');
  clock.step(1_000);
  await new Promise((r) => setImmediate(r));
  t.same(log.slice(3), ['crit:10'], 'after the group\'s 20 s the critical pods go, with their 10 s');
  pending.get('crit')!();
  await done;
  t.equal(clock.pending(), 0, 'no timer left');
});
