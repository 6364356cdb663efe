// Pulling from a real registry (docker-registry with TLS from a test CA and htpasswd basic
// auth, in the runtime's network namespace) through CRI PullImage on a real containerd that
// trusts the CA through its hosts.toml: no credentials and wrong ones fail with upstream's
// ErrImagePull → ImagePullBackOff messages and events; dockerconfigjson and dockercfg
// secrets pull; imagePullPolicy Always/IfNotPresent/Never.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeUnavailable, startRuntimeEnv } from '../cri/runtime-env.js';
import { startRegistry } from '../helpers/registry.js';
import { markerImage, podOf, startRealKubelet } from './real-runtime.js';
import { resources } from '../../src/client/index.js';
import type { Fields, KubeObject } from '../../src/api/object.js';

const why = runtimeUnavailable();

const waiting = (p: KubeObject | undefined) => ((p?.status?.containerStatuses ?? []) as Fields[])[0]?.state?.waiting as Fields | undefined;
const running = (p: KubeObject | undefined) => ((p?.status?.containerStatuses ?? []) as Fields[])[0]?.state?.running as Fields | undefined;

t.test('pulls from a registry with TLS and basic auth', { skip: why ?? false, timeout: 240_000 }, async (t) => {
  const env = await startRuntimeEnv(t);
  const registry = await startRegistry(t, { netns: env.netns, dir: env.dir, hostsDir: env.containerd.paths.registryHosts });
  const marker = `marker-${Math.random().toString(36).slice(2)}`;
  const image = markerImage(marker);
  const archive = join(env.dir, 'app.tar');
  writeFileSync(archive, image.archive);
  await registry.push(archive, 'test/app:1');
  const ref = `${registry.host}/test/app:1`;
  t.teardown(() => env.client.removeImage(ref).catch(() => undefined));
  t.equal((await env.client.imageStatus(ref)).image, null, 'the node does not have the image yet');

  const k = await startRealKubelet(t, env.client, env.cgroupParent);
  const secrets = k.api.resource(resources.secrets);
  const dockerconfigjson = (password: string) => ({
    '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [registry.host]: { username: registry.username, password } } })).toString('base64'),
  });

  await t.test('no credentials: ErrImagePull, then ImagePullBackOff with the pull error', async (t) => {
    await k.api.resource(resources.pods).create('default', podOf('anon', ref));
    await k.settle();
    const w = k.waitingHistory('anon').find((x) => x.reason !== 'ContainerCreating');
    t.equal(w?.reason, 'ErrImagePull');
    t.match(w?.message, new RegExp(`^rpc error: code = Unknown desc = failed to pull and unpack image "${ref}.*401 Unauthorized`));
    const failed = k.events('Failed').map((e) => e.message as string);
    t.ok(failed.includes(`Failed to pull image "${ref}": ${w?.message}`), 'upstream\'s Failed event');
    t.ok(failed.includes('Error: ErrImagePull'));
    await k.advance(1000);
    const b = waiting(k.pod('anon'));
    t.equal(b?.reason, 'ImagePullBackOff');
    t.equal(b?.message, `Back-off pulling image "${ref}": ErrImagePull: ${w?.message}`);
    t.ok(k.events('BackOff').some((e) => e.message === `Back-off pulling image "${ref}"`));
    t.equal((await env.client.imageStatus(ref)).image, null);
  });

  await t.test('wrong password in a dockerconfigjson secret: ErrImagePull', async (t) => {
    await secrets.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong' }, type: 'kubernetes.io/dockerconfigjson', data: dockerconfigjson('not-it') });
    await k.api.resource(resources.pods).create('default', podOf('wrong', ref, { imagePullSecrets: [{ name: 'wrong' }] }));
    await k.settle();
    const w = k.waitingHistory('wrong').find((x) => x.reason !== 'ContainerCreating');
    t.equal(w?.reason, 'ErrImagePull');
    t.match(w?.message, /401 Unauthorized/);
  });

  await t.test('a missing pull secret is reported', async (t) => {
    await k.api.resource(resources.pods).create('default', podOf('missing', ref, { imagePullSecrets: [{ name: 'nope' }] }));
    await k.settle();
    t.ok(k.events('FailedToRetrieveImagePullSecret').some((e) => e.message === 'Unable to retrieve some image pull secrets (nope); attempting to pull the image may not succeed.'));
    t.ok(k.waitingHistory('missing').some((x) => x.reason === 'ErrImagePull'));
  });

  await t.test('Never on an absent image: ErrImageNeverPull', async (t) => {
    await k.api.resource(resources.pods).create('default', podOf('never', ref, { containers: [{ name: 'main', image: ref, imagePullPolicy: 'Never' }] }));
    await k.settle();
    const w = waiting(k.pod('never'));
    t.equal(w?.reason, 'ErrImageNeverPull');
    t.equal(w?.message, `Container image "${ref}" is not present with pull policy of Never`);
  });

  await t.test('right credentials (dockerconfigjson, wrong ones tried too) pull and run the image', async (t) => {
    await secrets.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'right' }, type: 'kubernetes.io/dockerconfigjson', data: dockerconfigjson(registry.password) });
    await k.api.resource(resources.pods).create('default', podOf('good', ref, { imagePullSecrets: [{ name: 'wrong' }, { name: 'right' }] }));
    await k.settle();
    const p = k.pod('good');
    t.ok(running(p), `running: ${JSON.stringify(waiting(p))}`);
    const status = ((p?.status?.containerStatuses ?? []) as Fields[])[0];
    t.match(status.imageID, `${registry.host}/test/app@sha256:`, 'imageID is the repo digest, as with any pulled image');
    t.ok((await env.client.imageStatus(ref)).image?.repo_digests.includes(status.imageID as string));
    t.equal((await env.client.imageStatus(ref)).image?.id, image.configDigest, 'the pushed image, by config digest');
    t.ok(k.events('Pulled').some((e) => (e.message as string).startsWith(`Successfully pulled image "${ref}" in `)));
    const c = (await env.client.listContainers({ state: { state: 'CONTAINER_RUNNING' }, label_selector: { 'io.kubernetes.pod.name': 'good' } }))[0];
    t.equal((await env.client.execSync(c.id, ['cat', '/marker'], 10)).stdout.toString().trim(), marker);
  });

  await t.test('the back-off ends: the anonymous pod pulls once it is present (IfNotPresent)', async (t) => {
    await k.advance(20_000, 5000);
    t.ok(running(k.pod('anon')), 'IfNotPresent uses the image now present');
    t.ok(k.events('Pulled').some((e) => e.message === `Container image "${ref}" already present on machine`));
  });

  await t.test('Always pulls again, with credentials from a dockercfg secret', async (t) => {
    await secrets.create('default', {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cfg' }, type: 'kubernetes.io/dockercfg',
      data: { '.dockercfg': Buffer.from(JSON.stringify({ [`https://${registry.host}`]: { auth: Buffer.from(`${registry.username}:${registry.password}`).toString('base64') } })).toString('base64') },
    });
    const pulls = () => k.events('Pulling').filter((e) => (e.involvedObject as Fields).name === 'always').length;
    await k.api.resource(resources.pods).create('default', podOf('always', ref, { imagePullSecrets: [{ name: 'cfg' }], containers: [{ name: 'main', image: ref, imagePullPolicy: 'Always' }] }));
    await k.settle();
    t.ok(running(k.pod('always')), `running: ${JSON.stringify(waiting(k.pod('always')))}`);
    t.equal(pulls(), 1, 'pulled although present');
    // Without the secret an Always pull fails even with the image on the node.
    await k.api.resource(resources.pods).create('default', podOf('always-anon', ref, { containers: [{ name: 'main', image: ref, imagePullPolicy: 'Always' }] }));
    await k.settle();
    t.ok(k.waitingHistory('always-anon').some((x) => x.reason === 'ErrImagePull'));
  });
});
