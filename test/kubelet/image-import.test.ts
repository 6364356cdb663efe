// `capstan image import FILE.tar` on a real containerd: an OCI image layout (named with
// --name) and a `docker save` archive (named by its RepoTags) become CRI images in k8s.io,
// unpacked, and a pod with imagePullPolicy Never runs each.
import t from 'tap';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runtimeUnavailable, startRuntimeEnv } from '../cri/runtime-env.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { markerImage, podOf, startRealKubelet } from './real-runtime.js';
import { resources } from '../../src/client/index.js';
import { tar } from '../../src/kubelet/images/index.js';
import type { Fields } from '../../src/api/object.js';

const run = promisify(execFile);
const why = runtimeUnavailable();

/** The same image as a `docker save` archive: manifest.json, <config>.json, <layer>/layer.tar. */
function dockerArchive(marker: string, repoTag: string): { archive: Buffer; configDigest: string } {
  const oci = markerImage(marker);
  // Rebuild from the layer: docker-archive wants the layer and config as files, not blobs.
  const entries = new Map<string, Buffer>();
  let offset = 0;
  const a = oci.archive;
  while (offset + 512 <= a.length && a[offset] !== 0) {
    const name = a.subarray(offset, offset + 100).toString().replace(/\0.*$/s, '');
    const size = parseInt(a.subarray(offset + 124, offset + 136).toString().replace(/\0.*$/s, ''), 8) || 0;
    entries.set(name, a.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  const blob = (digest: string) => entries.get(`blobs/sha256/${digest.slice(7)}`)!;
  const manifest = JSON.parse(blob(oci.manifestDigest).toString());
  const layer = blob(manifest.layers[0].digest);
  const config = blob(oci.configDigest);
  const layerId = createHash('sha256').update(layer).digest('hex');
  const configName = `${oci.configDigest.slice(7)}.json`;
  const archive = tar([
    { type: 'file', path: 'manifest.json', data: Buffer.from(JSON.stringify([{ Config: configName, RepoTags: [repoTag], Layers: [`${layerId}/layer.tar`] }])) },
    { type: 'file', path: configName, data: config },
    { type: 'dir', path: layerId },
    { type: 'file', path: `${layerId}/layer.tar`, data: layer },
  ]);
  return { archive, configDigest: oci.configDigest };
}

t.test('capstan image import', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const env = await startRuntimeEnv(t);
  const k = await startRealKubelet(t, env.client, env.cgroupParent);
  const suffix = Math.random().toString(36).slice(2, 8);
  const importCLI = async (file: string, ...flags: string[]) =>
    (await run(process.execPath, [capstanBin, 'image', 'import', file, '--container-runtime-endpoint', `unix://${env.containerd.socket}`, ...flags])).stdout;
  const marker = async (pod: string) => {
    const c = (await env.client.listContainers({ state: { state: 'CONTAINER_RUNNING' }, label_selector: { 'io.kubernetes.pod.name': pod } }))[0];
    return (await env.client.execSync(c.id, ['cat', '/marker'], 10)).stdout.toString().trim();
  };
  const runs = async (name: string, image: string) => {
    await k.api.resource(resources.pods).create('default', podOf(name, image, { containers: [{ name: 'main', image, imagePullPolicy: 'Never' }] }));
    await k.settle();
    return ((k.pod(name)?.status?.containerStatuses ?? []) as Fields[])[0];
  };

  await t.test('an OCI image layout, named with --name', async (t) => {
    const name = `localhost/test/oci-${suffix}:1`;
    t.teardown(() => env.client.removeImage(name).catch(() => undefined));
    const image = markerImage(`oci-${suffix}`);
    const file = join(env.dir, 'oci.tar');
    writeFileSync(file, image.archive);
    t.equal(await importCLI(file, '--name', name), `${name}\t${image.configDigest}\n`);
    t.equal((await env.client.imageStatus(name)).image?.id, image.configDigest);
    const st = await runs('oci', name);
    t.ok(st?.state?.running, `running: ${JSON.stringify(st?.state)}`);
    t.equal(st?.imageID, image.configDigest);
    t.equal(await marker('oci'), `oci-${suffix}`);
  });

  await t.test('a docker save archive, named by its RepoTags', async (t) => {
    const name = `example.com/test/docker-${suffix}:2`;
    t.teardown(() => env.client.removeImage(name).catch(() => undefined));
    const { archive, configDigest } = dockerArchive(`docker-${suffix}`, name);
    const file = join(env.dir, 'docker.tar');
    writeFileSync(file, archive);
    t.equal(await importCLI(file), `${name}\t${configDigest}\n`);
    const st = await runs('docker', name);
    t.ok(st?.state?.running, `running: ${JSON.stringify(st?.state)}`);
    t.equal(await marker('docker'), `docker-${suffix}`);
  });

  await t.test('an archive without names is refused with a hint', async (t) => {
    const file = join(env.dir, 'nameless.tar');
    writeFileSync(file, markerImage('nameless').archive);
    await t.rejects(importCLI(file), /holds no image name; give one with --name/);
  });
});
