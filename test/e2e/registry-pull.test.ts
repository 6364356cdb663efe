// A private registry as a user meets it, on a real node (`capstan up` in a network namespace
// of its own, a registry with TLS from a test CA and basic auth on the namespace's loopback,
// trusted through the node containerd's certs.d): `kubectl create secret docker-registry`,
// the secret put on the namespace's default ServiceAccount (admission copies it into pods),
// `kubectl run` pulls and runs; without credentials the pod shows ErrImagePull or
// ImagePullBackOff and `Failed to pull image` events.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { startRegistry } from '../helpers/registry.js';
import { markerImage } from '../kubelet/real-runtime.js';

const root = process.getuid?.() === 0;

t.test('pull from a private registry with a ServiceAccount\'s imagePullSecrets', { skip: root ? false : 'needs root', timeout: 300_000 }, async (t) => {
  const netns = `capstan-reg-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ } });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  addNodeUplink(netns);
  const up = await startCapstanUp(t, ['--node-name', 'node-r'], { netns });
  const registry = await startRegistry(t, { netns, dir: up.dataDir, hostsDir: join(up.dataDir, 'containerd', 'certs.d') });
  const marker = `marker-${randomBytes(4).toString('hex')}`;
  const archive = join(up.dataDir, 'app.tar');
  writeFileSync(archive, markerImage(marker).archive);
  await registry.push(archive, 'team/app:1');
  const image = `${registry.host}/team/app:1`;
  const k = kubectlFor(t, up.kubeconfig, { netns });
  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-r', '--no-headers'])), 60_000, 'node Ready');
  await eventually(async () => (await k(['get', 'serviceaccount', 'default'])).code === 0, 30_000, 'the default ServiceAccount');

  await t.test('without credentials: ErrImagePull / ImagePullBackOff and the pull error as an event', async (t) => {
    await k.ok(['run', 'anon', `--image=${image}`, '--restart=Never']);
    await eventually(async () => /ErrImagePull|ImagePullBackOff/.test(await k.ok(['get', 'pod', 'anon', '--no-headers'])), 60_000, 'a pull error');
    const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=anon', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    t.match(events, `Failed: Failed to pull image "${image}": rpc error: code = Unknown desc = failed to pull and unpack image "${image}"`);
    t.match(events, '401 Unauthorized');
  });

  await t.test('with a docker-registry secret on the default ServiceAccount the pod runs the image', async (t) => {
    await k.ok(['create', 'secret', 'docker-registry', 'regcred', `--docker-server=${registry.host}`,
      `--docker-username=${registry.username}`, `--docker-password=${registry.password}`]);
    await k.ok(['patch', 'serviceaccount', 'default', '-p', '{"imagePullSecrets":[{"name":"regcred"}]}']);
    await k.ok(['run', 'app', `--image=${image}`, '--restart=Never']);
    t.equal(await k.ok(['get', 'pod', 'app', '-o', 'jsonpath={.spec.imagePullSecrets[*].name}']), 'regcred', 'admission copied the ServiceAccount\'s secret');
    await k.ok(['wait', '--for=condition=Ready', 'pod/app', '--timeout=90s']);
    t.equal((await k.ok(['exec', 'app', '--', 'cat', '/marker'])).trim(), marker, 'the pushed image runs');
    t.match(await k.ok(['get', 'pod', 'app', '-o', 'jsonpath={.status.containerStatuses[0].imageID}']), `${registry.host}/team/app@sha256:`);
  });
});
