// kubelet_pod_worker_duration_seconds: every pod sync counted once, by what it was for
// (upstream's operation_type): the first sync of a pod in this process is a create, a sync
// the pod's change woke is an update, a periodic one a sync.
import t from 'tap';
import { resources } from '../../src/client/index.js';
import { podSpec, startHarness } from './harness.js';

async function counts(registry: { getSingleMetricAsString(name: string): Promise<string> }): Promise<Record<string, number>> {
  const text = await registry.getSingleMetricAsString('kubelet_pod_worker_duration_seconds');
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^kubelet_pod_worker_duration_seconds_count\{operation_type="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

t.test('pod syncs are counted as create, update and sync', async (t) => {
  const h = await startHarness(t);
  await h.createPod(podSpec('web'));
  const first = await counts(h.kubelet.registry);
  t.equal(first.create, 1, 'the first sync of the pod');
  t.equal(first.update, undefined, 'the kubelet\'s own status write is no update');

  await h.advance(10_000);
  const resynced = await counts(h.kubelet.registry);
  t.equal(resynced.create, 1, 'still one create');
  t.ok(resynced.sync >= 1, `periodic resyncs counted (${resynced.sync})`);

  const pod = h.pod('web')!;
  await h.api.resource(resources.pods).update({ ...pod, metadata: { ...pod.metadata, labels: { tier: 'front' } } });
  await h.settle();
  t.equal((await counts(h.kubelet.registry)).update, 1, 'a changed pod wakes an update');

  const restarted = await h.restartKubelet();
  t.equal((await counts(restarted.registry)).create, 1, 'a restarted kubelet syncs the pod it finds as a create');
});
