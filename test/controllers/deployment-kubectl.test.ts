// The Deployment, ReplicaSet and garbage-collector controllers against a real API server over
// HTTPS, driven by real kubectl: rollout status, set image (every pod change watched for
// availability during the rollout), rollout history and undo, scale, and delete with each cascade mode. No
// kubelet runs: a stand-in marks pods Running/Ready through the status subresource a little
// after they appear, so a rollout takes several steps.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { rfc3339 } from '../../src/api/time.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, realClock, resources, SharedInformerFactory, type Clientset } from '../../src/client/index.js';
import { controllers as registry, type Controller } from '../../src/controllers/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { controllerContext } from '../helpers/controller-context.js';

async function cluster(t: Test) {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'capstan-controller-manager');
  const informers = new SharedInformerFactory(clients, { clock: realClock });
  const log = logger('test', {}, () => undefined);
  const ctx = controllerContext({ clients, informers, clock: realClock, log });
  const running: Controller[] = [];
  for (const name of ['deployment', 'replicaset', 'garbagecollector']) running.push(await (await registry[name]())(ctx));
  informers.start();
  await informers.waitForCacheSync();
  for (const c of running) void c.run(2);
  const kubelet = readyMarker(clients, 400);
  t.teardown(async () => {
    kubelet.stop();
    await Promise.all(running.map((c) => c.stop()));
    await informers.stop();
    clients.close();
  });
  return { clients, k: kubectlFor(t, kubeconfig) };
}

const isReady = (p: KubeObject) => p.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');

/** Marks each pod Running and Ready `delayMs` after it is first seen, as a kubelet would report. */
function readyMarker(clients: Clientset, delayMs: number) {
  const firstSeen = new Map<string, number>();
  let stopped = false;
  const pods = clients.resource(resources.pods);
  void (async () => {
    while (!stopped) {
      try {
        for (const p of (await pods.list('default')).items) {
          const uid = p.metadata.uid as string;
          if (!firstSeen.has(uid)) firstSeen.set(uid, Date.now());
          if (isReady(p) || p.metadata.deletionTimestamp || Date.now() - firstSeen.get(uid)! < delayMs) continue;
          const now = rfc3339(new Date());
          await pods.updateStatus({ ...p, status: { ...p.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }).catch(() => undefined);
        }
      } catch { /* next round */ }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { stop: () => { stopped = true; } };
}

function manifest(name: string, image: string, replicas = 3): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  annotations:
    kubernetes.io/change-cause: "deploy ${image}"
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: ${image}
`;
}

t.test('deployments through kubectl', async (t) => {
  const { clients, k } = await cluster(t);
  const podsAPI = clients.resource(resources.pods);

  await t.test('apply, then rollout status succeeds once the pods are ready', async (t) => {
    t.match(await k.ok(['apply', '-f', '-'], manifest('web', 'nginx:1.25')), 'deployment.apps/web created');
    const r = await k(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, 'deployment "web" successfully rolled out');
    const rs = await k.ok(['get', 'rs', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.readyReplicas}{"\\n"}{end}']);
    t.match(rs.trim(), /^web-[bcdfghjklmnpqrstvwxz2456789]+ 3$/);
    t.match(await k.ok(['get', 'deploy', 'web']), /web\s+3\/3\s+3\s+3/);
  });

  await t.test('set image rolls out a new ReplicaSet without dropping below replicas - maxUnavailable', async (t) => {
    // Every state the pods pass through, from a watch that starts at the list's version: no
    // change between two looks goes unseen. A pod being deleted counts as gone.
    const start = await podsAPI.list('default', { labelSelector: 'app=web' });
    const live = new Map<string, KubeObject>();
    const apply = (type: string, p: KubeObject) => {
      if (type === 'DELETED' || p.metadata.deletionTimestamp) live.delete(p.metadata.uid as string);
      else live.set(p.metadata.uid as string, p);
    };
    for (const p of start.items) apply('ADDED', p);
    let minReady = [...live.values()].filter(isReady).length, maxPods = live.size, changes = 0;
    /** The pods' readiness once the rollout is done; the watch is read up to it. */
    let end: Map<string, boolean> | undefined;
    const atEnd = () => end !== undefined && live.size === end.size && [...end].every(([uid, ready]) => live.has(uid) && isReady(live.get(uid)!) === ready);
    let reachedEnd!: () => void;
    const ended = new Promise<void>((r) => { reachedEnd = r; });
    const w = await podsAPI.watch('default', { labelSelector: 'app=web', resourceVersion: start.metadata.resourceVersion });
    t.teardown(() => w.close());
    const observer = (async () => {
      for await (const ev of w) {
        if (ev.type === 'ERROR') throw new Error(`watch error: ${JSON.stringify(ev.object)}`);
        if (ev.type === 'BOOKMARK') continue;
        apply(ev.type, ev.object);
        changes++;
        minReady = Math.min(minReady, [...live.values()].filter(isReady).length);
        maxPods = Math.max(maxPods, live.size);
        if (atEnd()) return reachedEnd();
      }
    })();
    t.match(await k.ok(['set', 'image', 'deploy/web', 'web=nginx:1.26']), 'deployment.apps/web image updated');
    const r = await k(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    end = new Map((await podsAPI.list('default', { labelSelector: 'app=web' })).items
      .filter((p) => !p.metadata.deletionTimestamp).map((p) => [p.metadata.uid as string, Boolean(isReady(p))]));
    if (atEnd()) reachedEnd();
    await Promise.race([ended, observer]);
    w.close();
    await observer;
    t.ok(atEnd(), 'the watch saw the pods as they are after the rollout');
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, 'successfully rolled out');
    t.ok(changes >= 9, `watched the rollout: 3 pods added, 3 made ready, 3 old ones going (${changes} changes)`);
    t.ok(minReady >= 2, `never fewer than 2 of 3 ready (min ${minReady}, max pods ${maxPods})`);
    const images = (await podsAPI.list('default', { labelSelector: 'app=web' })).items.map((p) => p.spec!.containers[0]!.image);
    t.same(images, ['nginx:1.26', 'nginx:1.26', 'nginx:1.26']);
    const events = await k.ok(['get', 'events', '--field-selector', 'reason=ScalingReplicaSet', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']);
    t.match(events, /Scaled up replica set web-\w+ to 3/);
    t.match(events, /Scaled down replica set web-\w+ to 0/);
  });

  await t.test('rollout history lists both revisions; undo restores the old image', async (t) => {
    const hist = await k.ok(['rollout', 'history', 'deploy/web']);
    t.match(hist, /REVISION\s+CHANGE-CAUSE/);
    t.match(hist, /^1\s+deploy nginx:1\.25$/m);
    t.match(hist, /^2\s+/m);
    t.match(await k.ok(['rollout', 'history', 'deploy/web', '--revision=1']), /Image:\s+nginx:1\.25/);
    t.match(await k.ok(['rollout', 'undo', 'deploy/web']), 'deployment.apps/web rolled back');
    const r = await k(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    t.equal(r.code, 0, r.stderr);
    t.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'nginx:1.25');
    t.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}']), '3');
    const after = await k.ok(['rollout', 'history', 'deploy/web']);
    t.match(after, /^2\s+/m);
    t.match(after, /^3\s+/m);
    t.notMatch(after, /^1\s+/m, 'revision 1 became 3');
    t.equal((await k.ok(['get', 'rs', '-l', 'app=web', '-o', 'name'])).trim().split('\n').length, 2, 'the old ReplicaSet was reused');
  });

  await t.test('scale', async (t) => {
    t.match(await k.ok(['scale', 'deploy/web', '--replicas=5']), 'deployment.apps/web scaled');
    const r = await k(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    t.equal(r.code, 0, r.stderr);
    t.equal((await podsAPI.list('default', { labelSelector: 'app=web' })).items.length, 5);
  });

  await t.test('delete (background) leaves no ReplicaSets and no pods', async (t) => {
    t.match(await k.ok(['delete', 'deploy', 'web']), 'deployment.apps "web" deleted');
    await eventually(async () => (await k.ok(['get', 'rs,pods', '-l', 'app=web', '-o', 'name'])).trim() === '', 20_000, 'RSs and pods collected');
  });

  await t.test('delete --cascade=foreground waits for the dependents', async (t) => {
    await k.ok(['apply', '-f', '-'], manifest('fg', 'nginx:1.25', 2));
    t.equal((await k(['rollout', 'status', 'deploy/fg', '--timeout=60s'])).code, 0);
    const r = await k(['delete', 'deploy', 'fg', '--cascade=foreground', '--timeout=60s']);
    t.equal(r.code, 0, r.stderr);
    t.equal((await k.ok(['get', 'deploy,rs,pods', '-l', 'app=fg', '-o', 'name'])).trim(), '', 'all gone when delete returns');
    t.match((await k(['get', 'deploy', 'fg'])).stderr, /NotFound/);
  });

  await t.test('delete --cascade=orphan keeps the ReplicaSet and pods, without the owner reference', async (t) => {
    await k.ok(['apply', '-f', '-'], manifest('orph', 'nginx:1.25', 2));
    t.equal((await k(['rollout', 'status', 'deploy/orph', '--timeout=60s'])).code, 0);
    const r = await k(['delete', 'deploy', 'orph', '--cascade=orphan']);
    t.equal(r.code, 0, r.stderr);
    await eventually(async () => (await k(['get', 'deploy', 'orph'])).code !== 0, 20_000, 'deployment gone');
    const rs = JSON.parse(await k.ok(['get', 'rs', '-l', 'app=orph', '-o', 'json'])).items;
    t.equal(rs.length, 1);
    t.notOk(rs[0].metadata.ownerReferences, 'the ReplicaSet is an orphan now');
    t.equal((await podsAPI.list('default', { labelSelector: 'app=orph' })).items.length, 2, 'its pods stay');
  });
});
