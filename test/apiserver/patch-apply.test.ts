// PATCH in every flavour kubectl sends, and server-side apply, as a client sees them.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const cms = '/api/v1/namespaces/default/configmaps';
const deploys = '/apis/apps/v1/namespaces/default/deployments';
const jsonPatch = { contentType: 'application/json-patch+json' };
const smp = { contentType: 'application/strategic-merge-patch+json' };
const apply = { contentType: 'application/apply-patch+yaml' };

t.test('merge patch', async (t) => {
  await c.post(cms, fixtures.configMap('mp', { a: '1', b: '2' }, { x: '1', y: '2' }));
  const res = await c.patch(`${cms}/mp`, { metadata: { labels: { a: 'one', b: null, c: '3' } }, data: { y: null, z: '3' } });
  t.equal(res.status, 200);
  t.same(res.body.metadata.labels, { a: 'one', c: '3' });
  t.same(res.body.data, { x: '1', z: '3' });
  t.same((await c.get(`${cms}/mp`)).body.data, { x: '1', z: '3' }, 'stored');
  const missing = await c.patch(`${cms}/nope`, { data: { a: 'b' } });
  t.equal(missing.status, 404);
  const badJSON = await c.patch(`${cms}/mp`, '{"data":');
  t.equal(badJSON.status, 400);
  const invalid = await c.patch(`${deploys}/nope`, { spec: { replicas: -1 } });
  t.equal(invalid.status, 404);
});

t.test('a patch that makes the object invalid is 422 and changes nothing', async (t) => {
  await c.post(deploys, fixtures.deployment('mp-invalid'));
  const res = await c.patch(`${deploys}/mp-invalid`, { spec: { replicas: -1 } });
  t.equal(res.status, 422);
  t.equal(res.body.details.causes[0].field, 'spec.replicas');
  t.equal((await c.get(`${deploys}/mp-invalid`)).body.spec.replicas, 1);
});

t.test('a patch may not change the name', async (t) => {
  const res = await c.patch(`${cms}/mp`, { metadata: { name: 'other' } });
  t.equal(res.status, 400);
});

t.test('JSON patch', async (t) => {
  await c.post(cms, fixtures.configMap('jp', {}, { a: '1' }));
  const ok = await c.patch(`${cms}/jp`, [
    { op: 'add', path: '/data/b', value: '2' },
    { op: 'replace', path: '/data/a', value: 'one' },
    { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/name': 'x' } },
  ], jsonPatch);
  t.equal(ok.status, 200);
  t.same(ok.body.data, { a: 'one', b: '2' });
  t.equal(ok.body.metadata.labels['app.kubernetes.io/name'], 'x');
  const escaped = await c.patch(`${cms}/jp`, [{ op: 'remove', path: '/metadata/labels/app.kubernetes.io~1name' }], jsonPatch);
  t.equal(escaped.status, 200);
  t.notOk(escaped.body.metadata.labels?.['app.kubernetes.io/name'], '~1 escapes a slash');
  const passing = await c.patch(`${cms}/jp`, [{ op: 'test', path: '/data/a', value: 'one' }, { op: 'remove', path: '/data/b' }], jsonPatch);
  t.equal(passing.status, 200);
  t.same(passing.body.data, { a: 'one' });
  const rv = passing.body.metadata.resourceVersion;

  const failedTest = await c.patch(`${cms}/jp`, [{ op: 'replace', path: '/data/a', value: 'changed' }, { op: 'test', path: '/data/a', value: 'nope' }], jsonPatch);
  t.equal(failedTest.status, 422, 'failed test op');
  t.equal(failedTest.body.reason, 'Invalid');
  const after = (await c.get(`${cms}/jp`)).body;
  t.equal(after.data.a, 'one', 'a failed patch applies no op at all');
  t.equal(after.metadata.resourceVersion, rv);

  // Malformed patch documents are 400; well-formed ones that cannot apply are 422, as
  // Kubernetes answers (DecodePatch fails → BadRequest, Apply fails → 422).
  const malformed: Array<[string, unknown]> = [
    ['not an array', { op: 'add', path: '/data/c', value: '3' }],
    ['an array of non-objects', ['add', '/data/c']],
    ['bad JSON', '[{"op":'],
  ];
  for (const [name, body] of malformed) {
    const res = await c.patch(`${cms}/jp`, body, jsonPatch);
    t.equal(res.status, 400, `${name} → 400`);
    t.equal(res.body.kind, 'Status');
  }
  const unappliable: Array<[string, unknown]> = [
    ['remove of a missing path', [{ op: 'remove', path: '/data/absent' }]],
    ['an unknown op', [{ op: 'frobnicate', path: '/data/a' }]],
    ['add without a value', [{ op: 'add', path: '/data/c' }]],
    ['add under a missing parent', [{ op: 'add', path: '/spec/x/y', value: 1 }]],
  ];
  for (const [name, body] of unappliable) {
    const res = await c.patch(`${cms}/jp`, body, jsonPatch);
    t.equal(res.status, 422, `${name} → 422`);
    t.equal(res.body.reason, 'Invalid');
  }
  t.equal((await c.get(`${cms}/jp`)).body.metadata.resourceVersion, rv, 'nothing changed');
});

t.test('strategic merge patch merges containers by name', async (t) => {
  const d = fixtures.deployment('smp') as any;
  d.spec.template.spec.containers = [
    { name: 'main', image: 'nginx:1', ports: [{ containerPort: 80 }] },
    { name: 'sidecar', image: 'envoy:1' },
  ];
  await c.post(deploys, d);
  const res = await c.patch(`${deploys}/smp`, { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'envoy:2' }] } } } }, smp);
  t.equal(res.status, 200);
  const containers = res.body.spec.template.spec.containers as any[];
  t.same(containers.map((x) => `${x.name}=${x.image}`), ['main=nginx:1', 'sidecar=envoy:2'], 'main kept, sidecar updated');
  t.same(containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  t.equal(res.body.metadata.generation, 2);

  const added = await c.patch(`${deploys}/smp`, { spec: { template: { spec: { containers: [{ name: 'logger', image: 'fluent' }] } } } }, smp);
  t.same((added.body.spec.template.spec.containers as any[]).map((x) => x.name).sort(), ['logger', 'main', 'sidecar']);
  const deleted = await c.patch(`${deploys}/smp`, { spec: { template: { spec: { containers: [{ name: 'logger', $patch: 'delete' }] } } } }, smp);
  t.same((deleted.body.spec.template.spec.containers as any[]).map((x) => x.name).sort(), ['main', 'sidecar']);
  const ports = await c.patch(`${deploys}/smp`, { spec: { template: { spec: { containers: [{ name: 'main', ports: [{ containerPort: 443 }] }] } } } }, smp);
  const mainPorts = (ports.body.spec.template.spec.containers as any[]).find((x) => x.name === 'main').ports.map((p: any) => p.containerPort).sort();
  t.same(mainPorts, [443, 80], 'ports merge by containerPort');

  // The same body as a merge patch replaces the whole list.
  const merged = await c.patch(`${deploys}/smp`, { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'envoy:3' }] } } } });
  t.same((merged.body.spec.template.spec.containers as any[]).map((x) => x.name), ['sidecar'], 'merge patch replaces lists');
});

// Strategic merge patch on real schemas: each list merges by its Kubernetes merge key, or is
// replaced when it has none.
const smpCases: Array<{ name: string; patch: unknown; pick: (d: any) => unknown; want: unknown }> = [
  {
    name: 'env merges by name',
    patch: { spec: { template: { spec: { containers: [{ name: 'main', env: [{ name: 'B', value: '3' }] }] } } } },
    pick: (d) => d.spec.template.spec.containers[0].env, want: [{ name: 'A', value: '1' }, { name: 'B', value: '3' }],
  },
  {
    name: 'args are replaced',
    patch: { spec: { template: { spec: { containers: [{ name: 'main', args: ['z'] }] } } } },
    pick: (d) => d.spec.template.spec.containers[0].args, want: ['z'],
  },
  {
    name: 'volumes merge by name',
    patch: { spec: { template: { spec: { volumes: [{ name: 'v2', emptyDir: {} }] } } } },
    pick: (d) => (d.spec.template.spec.volumes as any[]).map((v) => v.name).sort(), want: ['v1', 'v2'],
  },
  {
    name: 'tolerations are replaced',
    patch: { spec: { template: { spec: { tolerations: [{ key: 'j', operator: 'Exists' }] } } } },
    pick: (d) => d.spec.template.spec.tolerations, want: [{ key: 'j', operator: 'Exists' }],
  },
  {
    name: '$retainKeys drops rollingUpdate when switching to Recreate',
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    pick: (d) => d.spec.strategy, want: { type: 'Recreate' },
  },
  {
    name: '$setElementOrder as kubectl apply sends it',
    patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'main' }], containers: [{ name: 'main', image: 'nginx:2' }] } } } },
    pick: (d) => (d.spec.template.spec.containers as any[]).map((x) => `${x.name}=${x.image}`), want: ['main=nginx:2'],
  },
];
for (const sc of smpCases) {
  t.test(`strategic merge patch: ${sc.name}`, async (t) => {
    const name = `smp-${sc.name.replace(/[^a-z]+/gi, '-').toLowerCase()}`.slice(0, 40).replace(/-+$/, '');
    const d = fixtures.deployment(name) as any;
    Object.assign(d.spec.template.spec.containers[0], { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], args: ['x', 'y'] });
    d.spec.template.spec.volumes = [{ name: 'v1', emptyDir: {} }];
    d.spec.template.spec.tolerations = [{ key: 'k', operator: 'Exists' }];
    t.equal((await c.post(deploys, d)).status, 201);
    const res = await c.patch(`${deploys}/${name}`, sc.patch, smp);
    t.equal(res.status, 200);
    t.same(sc.pick(res.body), sc.want);
    t.same(sc.pick((await c.get(`${deploys}/${name}`)).body), sc.want, 'stored');
  });
}

t.test('strategic merge patch: Service ports merge by port', async (t) => {
  await c.post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'smp-svc' }, spec: { selector: { app: 'x' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] } });
  const res = await c.patch('/api/v1/namespaces/default/services/smp-svc', { spec: { ports: [{ port: 80, targetPort: 8080 }] } }, smp);
  t.equal(res.status, 200);
  t.same((res.body.spec.ports as any[]).map((p) => `${p.name}:${p.port}->${p.targetPort}`), ['http:80->8080', 'https:443->443']);
});

const smpErrors: Array<[string, unknown]> = [
  ['a list element without its merge key', { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }],
  ['an unknown $patch directive', { spec: { $patch: 'explode' } }],
];
for (const [name, patch] of smpErrors) {
  t.test(`strategic merge patch with ${name} is 400`, async (t) => {
    const res = await c.patch(`${deploys}/smp`, patch, smp);
    t.equal(res.status, 400);
    t.equal(res.body.reason, 'BadRequest');
  });
}

t.test('strategic merge patch on a list without a merge key replaces it', async (t) => {
  await c.post(cms, fixtures.configMap('smp-cm', { a: '1' }, { a: '1' }));
  const res = await c.patch(`${cms}/smp-cm`, { metadata: { finalizers: ['x/y'] }, data: { b: '2' } }, smp);
  t.equal(res.status, 200);
  t.same(res.body.data, { a: '1', b: '2' });
  await c.patch(`${cms}/smp-cm`, { metadata: { finalizers: null } }, smp);
});

t.test('an unsupported patch Content-Type is 415', async (t) => {
  const res = await c.patch(`${cms}/mp`, { data: {} }, { contentType: 'application/json' });
  t.equal(res.status, 415);
  t.equal(res.body.reason, 'UnsupportedMediaType');
});

t.test('server-side apply', async (t) => {
  const config = (replicas: number, extra: Record<string, unknown> = {}) => ({ ...fixtures.deployment('ssa', { replicas }), ...extra });
  const created = await c.patch(`${deploys}/ssa?fieldManager=alice`, config(2), apply);
  t.equal(created.status, 201, 'apply creates');
  t.equal(created.body.spec.replicas, 2);
  t.ok((created.body.metadata.managedFields as any[]).some((m) => m.manager === 'alice' && m.operation === 'Apply'), 'alice manages the fields');

  const again = await c.patch(`${deploys}/ssa?fieldManager=alice`, config(2), apply);
  t.equal(again.status, 200, 're-apply');
  t.equal(again.body.metadata.resourceVersion, created.body.metadata.resourceVersion, 'an unchanged re-apply writes nothing');

  const changed = await c.patch(`${deploys}/ssa?fieldManager=alice`, config(3), apply);
  t.equal(changed.status, 200);
  t.equal(changed.body.spec.replicas, 3);

  const conflict = await c.patch(`${deploys}/ssa?fieldManager=bob`, config(5), apply);
  t.equal(conflict.status, 409);
  t.equal(conflict.body.reason, 'Conflict');
  const causes = conflict.body.details?.causes as any[];
  t.ok(causes?.length, 'the conflict lists causes');
  t.ok(causes.every((x) => x.reason === 'FieldManagerConflict'), 'reason FieldManagerConflict');
  t.ok(causes.some((x) => x.field === '.spec.replicas'), `.spec.replicas is among ${causes.map((x) => x.field).join(', ')}`);
  t.match(conflict.body.message, /conflict with "alice"/);
  t.equal((await c.get(`${deploys}/ssa`)).body.spec.replicas, 3, 'the conflicting apply changed nothing');

  const forced = await c.patch(`${deploys}/ssa?fieldManager=bob&force=true`, config(5), apply);
  t.equal(forced.status, 200, 'force=true takes the fields');
  t.equal(forced.body.spec.replicas, 5);
  const managers = (forced.body.metadata.managedFields as any[]).map((m) => m.manager);
  t.ok(managers.includes('bob'));

  const alice = await c.patch(`${deploys}/ssa?fieldManager=alice`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ssa', labels: { owner: 'alice' } } }, apply);
  t.equal(alice.status, 200, 'alice applies without replicas: no conflict, and she gives them up');
  t.equal(alice.body.spec.replicas, 5, 'bob still owns replicas');
  t.equal(alice.body.metadata.labels.owner, 'alice');
});

t.test('a scale write is recorded under the scale subresource and conflicts with apply', async (t) => {
  await c.patch(`${deploys}/ssa-scale?fieldManager=alice`, fixtures.deployment('ssa-scale', { replicas: 2 }), apply);
  const scaled = await c.patch(`${deploys}/ssa-scale/scale?fieldManager=kubectl-scale`, { spec: { replicas: 5 } });
  t.equal(scaled.status, 200);
  const entries = (await c.get(`${deploys}/ssa-scale`)).body.metadata.managedFields as any[];
  const scaler = entries.find((m) => m.manager === 'kubectl-scale');
  t.match(scaler, { operation: 'Update', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
  const reapply = await c.patch(`${deploys}/ssa-scale?fieldManager=alice`, fixtures.deployment('ssa-scale', { replicas: 2 }), apply);
  t.equal(reapply.status, 409);
  t.ok((reapply.body.details.causes as any[]).some((x) => x.field === '.spec.replicas' && /kubectl-scale/.test(x.message)));
});

t.test('apply and update on the status subresource', async (t) => {
  const applied = await c.patch(`${deploys}/ssa-scale/status?fieldManager=ctrl`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ssa-scale' }, status: { replicas: 7 } }, apply);
  t.equal(applied.status, 200);
  t.equal(applied.body.status.replicas, 7);
  t.equal(applied.body.spec.replicas, 5, 'spec untouched');
  t.ok((applied.body.metadata.managedFields as any[]).some((m) => m.manager === 'ctrl' && m.operation === 'Apply' && m.subresource === 'status'));
  const missing = await c.patch(`${deploys}/nothing/status?fieldManager=ctrl`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nothing' }, status: { replicas: 1 } }, apply);
  t.equal(missing.status, 404, 'apply to status does not create');
});

t.test('server-side apply mixes with updates', async (t) => {
  await c.patch(`${cms}/ssa-cm?fieldManager=kubectl`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-cm' }, data: { a: '1' } }, apply);
  const upd = await c.patch(`${cms}/ssa-cm?fieldManager=editor`, { data: { a: '2' } });
  t.equal(upd.status, 200, 'a merge patch takes a field without conflict');
  const reapply = await c.patch(`${cms}/ssa-cm?fieldManager=kubectl`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-cm' }, data: { a: '1' } }, apply);
  t.equal(reapply.status, 409, 'then re-applying the old value conflicts with the editor');
  t.ok((reapply.body.details.causes as any[]).some((x) => x.field === '.data.a' && x.reason === 'FieldManagerConflict'));
});

const applyErrors: Array<[string, string, unknown, number]> = [
  ['no fieldManager', `${cms}/ae`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ae' } }, 400],
  ['no kind', `${cms}/ae?fieldManager=m`, { apiVersion: 'v1', metadata: { name: 'ae' } }, 400],
  ['a name other than the URL', `${cms}/ae?fieldManager=m`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }, 400],
  ['an unknown field with Strict', `${cms}/ae?fieldManager=m&fieldValidation=Strict`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ae' }, bogus: 1 }, 400],
  ['a wrong kind', `${cms}/ae?fieldManager=m`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ae' } }, 400],
  ['an invalid object', `${deploys}/ae?fieldManager=m`, fixtures.deployment('ae', { replicas: -3 }), 422],
];
for (const [name, path, body, status] of applyErrors) {
  t.test(`apply with ${name} is ${status} and creates nothing`, async (t) => {
    const res = await c.patch(path, body, apply);
    t.equal(res.status, status);
    t.equal(res.body.kind, 'Status');
    t.equal((await c.get(path.split('?')[0])).status, 404);
  });
}

t.test('apply in YAML', async (t) => {
  const res = await c.patch(`${cms}/yaml-apply?fieldManager=m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-apply\ndata:\n  k: v\n', apply);
  t.equal(res.status, 201);
  t.equal(res.body.data.k, 'v');
});

t.test('dryRun apply creates nothing', async (t) => {
  const res = await c.patch(`${cms}/dry-apply?fieldManager=m&dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry-apply' } }, apply);
  t.equal(res.status, 201);
  t.equal((await c.get(`${cms}/dry-apply`)).status, 404);
});
