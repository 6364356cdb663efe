// The ServiceAccount admission plugin through the real API server: the default service
// account, the kube-api-access volume in upstream's exact shape, who wins on automount, and
// the refusal when the service account does not exist.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t, { disableAdmissionPlugins: [] });
const c = api.client;
const ns = '/api/v1/namespaces/default';

await c.post(`${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });

t.test('a pod gets the default service account and the kube-api-access volume in every container', async (t) => {
  const res = await c.post(`${ns}/pods`, fixtures.pod('plain', {
    spec: {
      initContainers: [{ name: 'init', image: 'busybox' }],
      containers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox', volumeMounts: [{ name: 'own', mountPath: '/data' }] }],
      volumes: [{ name: 'own', emptyDir: {} }],
    },
  }));
  t.equal(res.status, 201, res.text);
  const spec = res.body.spec;
  t.equal(spec.serviceAccountName, 'default');
  t.equal(spec.serviceAccount, 'default', 'the deprecated field mirrors it');
  const vol = spec.volumes.find((v: any) => v.name.startsWith('kube-api-access-'));
  t.match(vol.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.strictSame(vol.projected, {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  });
  const mount = { name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
  t.strictSame(spec.initContainers[0].volumeMounts, [mount]);
  t.strictSame(spec.containers[0].volumeMounts, [mount]);
  t.strictSame(spec.containers[1].volumeMounts, [{ name: 'own', mountPath: '/data' }, mount], 'appended after the container\'s own');
  t.equal(spec.volumes.length, 2);
});

t.test('a container with something at the token path keeps it', async (t) => {
  const res = await c.post(`${ns}/pods`, fixtures.pod('own-token', {
    spec: {
      containers: [
        { name: 'a', image: 'busybox', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] },
        { name: 'b', image: 'busybox' },
      ],
      volumes: [{ name: 'mine', emptyDir: {} }],
    },
  }));
  t.equal(res.status, 201, res.text);
  t.strictSame(res.body.spec.containers[0].volumeMounts, [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  t.match(res.body.spec.containers[1].volumeMounts[0].name, /^kube-api-access-/);

  const none = await c.post(`${ns}/pods`, fixtures.pod('all-own', {
    spec: {
      containers: [{ name: 'a', image: 'busybox', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
      volumes: [{ name: 'mine', emptyDir: {} }],
    },
  }));
  t.strictSame(none.body.spec.volumes.map((v: any) => v.name), ['mine'], 'no volume when no container needs it');
});

t.test('an existing kube-api-access volume is reused, not doubled', async (t) => {
  const res = await c.post(`${ns}/pods`, fixtures.pod('copied', {
    spec: { volumes: [{ name: 'kube-api-access-zzzzz', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 7200 } }] } }] },
  }));
  t.equal(res.status, 201, res.text);
  t.strictSame(res.body.spec.volumes.map((v: any) => v.name), ['kube-api-access-zzzzz']);
  t.equal(res.body.spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds, 7200, 'left as the pod had it');
  t.strictSame(res.body.spec.containers[0].volumeMounts, [{ name: 'kube-api-access-zzzzz', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
});

t.test('automountServiceAccountToken: the pod\'s value wins over the service account\'s', async (t) => {
  await c.post(`${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false });
  const mounted = (p: any) => (p.spec.volumes ?? []).some((v: any) => v.name.startsWith('kube-api-access-'));
  const podOff = await c.post(`${ns}/pods`, fixtures.pod('pod-off', { spec: { automountServiceAccountToken: false } }));
  t.equal(podOff.status, 201);
  t.notOk(mounted(podOff.body), 'pod false');
  t.notOk(podOff.body.spec.containers[0].volumeMounts, 'no mount either');
  const saOff = await c.post(`${ns}/pods`, fixtures.pod('sa-off', { spec: { serviceAccountName: 'quiet' } }));
  t.notOk(mounted(saOff.body), 'service account false');
  const podOn = await c.post(`${ns}/pods`, fixtures.pod('pod-on', { spec: { serviceAccountName: 'quiet', automountServiceAccountToken: true } }));
  t.ok(mounted(podOn.body), 'pod true beats service account false');
});

t.test('a missing service account is refused as upstream refuses it', async (t) => {
  const res = await c.post(`${ns}/pods`, fixtures.pod('orphan', { spec: { serviceAccountName: 'builder' } }));
  t.equal(res.status, 403);
  t.equal(res.body.reason, 'Forbidden');
  t.equal(res.body.message, 'pods "orphan" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found');
  t.strictSame(res.body.details, { name: 'orphan', kind: 'pods' });
});

t.test('a missing default is waited for briefly, then refused', async (t) => {
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });
  const pending = c.post('/api/v1/namespaces/fresh/pods', fixtures.pod('early'));
  // What the serviceaccount controller does just after the namespace appears.
  await c.post('/api/v1/namespaces/fresh/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  const res = await pending;
  t.equal(res.status, 201, res.text);
  t.equal(res.body.spec.serviceAccountName, 'default');

  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bare' } });
  const refused = await c.post('/api/v1/namespaces/bare/pods', fixtures.pod('never'));
  t.equal(refused.status, 403);
  t.equal(refused.body.message, 'pods "never" is forbidden: error looking up service account bare/default: serviceaccount "default" not found');
});

t.test('the service account\'s image pull secrets, unless the pod has its own', async (t) => {
  await c.post(`${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'puller' }, imagePullSecrets: [{ name: 'registry' }] });
  const inherited = await c.post(`${ns}/pods`, fixtures.pod('inherits', { spec: { serviceAccountName: 'puller' } }));
  t.strictSame(inherited.body.spec.imagePullSecrets, [{ name: 'registry' }]);
  const own = await c.post(`${ns}/pods`, fixtures.pod('owns', { spec: { serviceAccountName: 'puller', imagePullSecrets: [{ name: 'mine' }] } }));
  t.strictSame(own.body.spec.imagePullSecrets, [{ name: 'mine' }]);
});

t.test('dry-run and updates are admitted the same way; updates are not mutated', async (t) => {
  const dry = await c.post(`${ns}/pods?dryRun=All`, fixtures.pod('dry'));
  t.equal(dry.status, 201);
  t.ok(dry.body.spec.volumes.some((v: any) => v.name.startsWith('kube-api-access-')));
  const got = await c.get(`${ns}/pods/plain`);
  const before = got.body.spec.volumes.length;
  got.body.metadata.labels = { touched: 'yes' };
  const upd = await c.put(`${ns}/pods/plain`, got.body);
  t.equal(upd.status, 200, upd.text);
  t.equal(upd.body.spec.volumes.length, before);
});
