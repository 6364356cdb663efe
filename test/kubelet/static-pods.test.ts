// Static pods on a real node: a manifest dropped into --pod-manifest-path runs without the
// API, appears there as a mirror pod (annotation, Node owner, name suffixed with the node),
// carries the kubelet's status, comes back when deleted through the API while the pod keeps
// running, and goes — pod and mirror — when the file goes.
import t from 'tap';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { POD_UID_LABEL } from '../../src/kubelet/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();

t.test('static pods from --pod-manifest-path', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const manifests = `/tmp/capstan-manifests-${Math.random().toString(36).slice(2, 8)}`;
  mkdirSync(manifests);
  t.teardown(() => rmSync(manifests, { recursive: true, force: true }));
  const n = await startRealNode(t, { kubeletFlags: ['--pod-manifest-path', manifests] });
  const name = `web-${n.nodeName}`;
  writeFileSync(join(manifests, 'web.yaml'), `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: kube-system
  labels: {tier: static}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ${BUSYBOX_IMAGE}
    imagePullPolicy: IfNotPresent
    command: [sleep, "3600"]
`);
  const mirror = async () => JSON.parse(await n.k.ok(['get', 'pod', '-n', 'kube-system', name, '-o', 'json']));
  let uid = '';
  let staticUID = '';

  await t.test('runs and is mirrored with the kubelet\'s status', async (t) => {
    await until(async () => {
      const m = await mirror();
      if (m.status?.phase !== 'Running') throw new Error(JSON.stringify(m.status));
    }, 40_000, 'mirror pod Running');
    const m = await mirror();
    uid = m.metadata.uid;
    staticUID = m.metadata.annotations['kubernetes.io/config.hash'];
    t.equal(m.metadata.annotations['kubernetes.io/config.mirror'], staticUID);
    t.equal(m.metadata.annotations['kubernetes.io/config.source'], 'file');
    t.same(m.metadata.labels, { tier: 'static' });
    const node = JSON.parse(await n.k.ok(['get', 'node', n.nodeName, '-o', 'json']));
    t.same(m.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: n.nodeName, uid: node.metadata.uid, controller: true }]);
    t.equal(m.spec.nodeName, n.nodeName);
    t.not(uid, staticUID, 'the mirror has an API uid of its own');
    // The runtime knows the pod by the static pod's uid.
    const sandboxes = await n.env.client.listPodSandbox({ label_selector: { [POD_UID_LABEL]: staticUID } });
    t.equal(sandboxes.length, 1);
    t.equal(sandboxes[0].state, 'SANDBOX_READY');
    t.match(await n.k.ok(['get', 'pods', '-n', 'kube-system', '--no-headers']), new RegExp(`${name}\\s+1/1\\s+Running\\s+0`));
  });

  await t.test('a deleted mirror pod is recreated; the pod keeps running', async (t) => {
    const before = (await n.env.client.listContainers({ label_selector: { [POD_UID_LABEL]: staticUID } })).map((c) => c.id);
    await n.k.ok(['delete', 'pod', '-n', 'kube-system', name, '--wait=false']);
    await until(async () => {
      const m = await mirror();
      if (m.metadata.uid === uid || m.status?.phase !== 'Running') throw new Error(`old or not running: ${m.metadata.uid}`);
    }, 30_000, 'mirror recreated');
    t.same((await n.env.client.listContainers({ label_selector: { [POD_UID_LABEL]: staticUID } })).map((c) => c.id), before, 'same containers');
  });

  await t.test('removing the file removes the pod and its mirror', async (t) => {
    rmSync(join(manifests, 'web.yaml'));
    await until(async () => {
      const r = await n.k(['get', 'pod', '-n', 'kube-system', name]);
      if (r.code === 0) throw new Error('mirror still there');
      if ((await n.env.client.listPodSandbox({ label_selector: { [POD_UID_LABEL]: staticUID } })).length) throw new Error('sandbox still there');
    }, 40_000, 'static pod gone');
    t.pass('gone');
  });
});
