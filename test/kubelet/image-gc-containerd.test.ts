// Image GC in the kubelet on a real containerd: with --image-gc-high-threshold 1 and
// --image-gc-low-threshold 0 any real disk is over the threshold, so GC runs at its period
// (stepped on a fake clock) without filling the disk. It removes the unused images old
// enough, keeps the one a running pod uses, the sandbox image and an image younger than the
// minimum age, and reports FreeDiskSpaceFailed (it cannot free the whole disk), then
// ImageGCFailed when that repeats.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeUnavailable, startRuntimeEnv } from '../cri/runtime-env.js';
import { markerImage, podOf, startRealKubelet } from './real-runtime.js';
import { resources } from '../../src/client/index.js';
import { BUSYBOX_IMAGE, PAUSE_IMAGE, importArchive } from '../../src/kubelet/images/index.js';
import type { Fields } from '../../src/api/object.js';

const why = runtimeUnavailable();
const PERIOD = 300_000;

t.test('image GC at the thresholds', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const env = await startRuntimeEnv(t);
  const suffix = Math.random().toString(36).slice(2, 8);
  const load = async (name: string) => {
    const file = join(env.dir, `${name.replace(/\W/g, '_')}.tar`);
    writeFileSync(file, markerImage(name).archive);
    t.teardown(() => env.client.removeImage(name).catch(() => undefined));
    return (await importArchive(env.containerd.socket, file, { indexName: name, client: env.client }))[0].id;
  };
  const unused = `localhost/test/unused-${suffix}:1`;
  const used = `localhost/test/used-${suffix}:1`;
  const young = `localhost/test/young-${suffix}:1`;
  await load(unused);
  await load(used);

  const k = await startRealKubelet(t, env.client, env.cgroupParent, {
    imageGC: { highThresholdPercent: 1, lowThresholdPercent: 0, minAgeMs: 120_000 }, imageGCPeriodMs: PERIOD,
  });
  await k.api.resource(resources.pods).create('default', podOf('user', used, { containers: [{ name: 'main', image: used, imagePullPolicy: 'Never' }] }));
  await k.settle();
  t.ok(((k.pod('user')?.status?.containerStatuses ?? []) as Fields[])[0]?.state?.running, 'the pod using an image runs');

  await load(young);
  const present = async (name: string) => (await env.client.imageStatus(name)).image !== null;
  const nodeEvents = (reason: string) => k.events(reason).filter((e) => (e.involvedObject as Fields).kind === 'Node');

  // First pass: the images there when the kubelet started are old enough; the one loaded
  // after it is first seen now.
  await k.advance(PERIOD, PERIOD);
  t.notOk(await present(unused), 'the unused image is removed');
  t.notOk(await present(BUSYBOX_IMAGE), 'so is the unused built-in busybox');
  t.ok(await present(used), 'the image of a running container stays');
  t.ok(await present(PAUSE_IMAGE), 'the sandbox image stays');
  t.ok(await present(young), 'an image younger than the minimum age stays');
  t.match(nodeEvents('FreeDiskSpaceFailed')[0]?.message, /^Failed to garbage collect required amount of images\. Attempted to free \d+ bytes, but only found [1-9]\d* bytes eligible to free\.$/);
  t.equal(nodeEvents('ImageGCFailed').length, 0, 'a first failure is only logged');

  await k.advance(PERIOD, PERIOD);
  t.notOk(await present(young), 'the young image, old enough now, goes too');
  t.ok(await present(used));
  t.ok(await present(PAUSE_IMAGE));
  t.ok(nodeEvents('ImageGCFailed').length >= 1, 'a repeated failure becomes ImageGCFailed');
});
