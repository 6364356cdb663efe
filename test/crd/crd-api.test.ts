// CustomResourceDefinitions over the REST API: the definition's validation, name conflicts,
// several versions, discovery and OpenAPI, watch, selectable fields, cluster scope, RBAC on
// custom resources, and deletion waiting for objects with finalizers of their own.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';

const api = await startAPIServer(t);
const c = api.client;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' } } } } } };
const crd = (plural: string, group: string, kind: string, extra: Record<string, any> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural, kind, ...extra.names },
    versions: extra.versions ?? [{ name: 'v1', served: true, storage: true, schema }],
    ...extra.spec,
  },
});
const conditions = (o: any) => Object.fromEntries((o.status?.conditions ?? []).map((x: any) => [x.type, x]));
async function established(name: string): Promise<any> {
  let got: any;
  await eventually(async () => {
    got = (await c.get(`${CRDS}/${name}`)).body;
    return conditions(got).Established?.status === 'True';
  }, 5000, `${name} established`);
  return got;
}

t.test('the definition is validated as upstream', async (t) => {
  const cases: [string, any, RegExp[]][] = [
    ['name is plural.group', { ...crd('things', 'example.com', 'Thing'), metadata: { name: 'stuff.example.com' } },
      [/metadata.name: Invalid value: "stuff.example.com": must be spec.names.plural\+"."\+spec.group/]],
    ['group needs a dot', crd('things', 'example', 'Thing'), [/spec.group: Invalid value: "example": should be a domain with at least one dot/]],
    ['exactly one storage version', crd('things', 'example.com', 'Thing', { versions: [{ name: 'v1', served: true, storage: true, schema }, { name: 'v2', served: true, storage: true, schema }] }),
      [/spec.versions: Invalid value: .*: must have exactly one version marked as storage version/]],
    ['protected groups need approval', crd('things', 'stuff.k8s.io', 'Thing'),
      [/metadata.annotations\[api-approved.kubernetes.io\]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io"/]],
    ['bad scope', crd('things', 'example.com', 'Thing', { spec: { scope: 'Global' } }), [/spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"/]],
    ['plural is a DNS label', crd('Things', 'example.com', 'Thing'), [/spec.names.plural: Invalid value: "Things": a DNS-1035 label/]],
    ['kind and listKind differ', crd('things', 'example.com', 'Thing', { names: { listKind: 'Thing' } }), [/spec.names.listKind: Invalid value: "Thing": kind and listKind may not be the same/]],
    ['schemas are required', crd('things', 'example.com', 'Thing', { versions: [{ name: 'v1', served: true, storage: true }] }),
      [/spec.versions\[0\].schema.openAPIV3Schema: Required value: schemas are required/]],
    ['structural', crd('things', 'example.com', 'Thing', { versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { description: 'no type' } } } } }] }),
      [/spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].type: Required value: must not be empty for specified object fields/]],
  ];
  for (const [name, body, want] of cases) {
    const res = await c.post(CRDS, body);
    t.equal(res.status, 422, name);
    t.match(res.body.message, /^CustomResourceDefinition.apiextensions.k8s.io ".*" is invalid: /, name);
    for (const w of want) t.match(res.body.message, w, name);
  }
});

t.test('a CRD never replaces a built-in resource', async (t) => {
  const shadow = crd('roles', 'rbac.authorization.k8s.io', 'Role');
  shadow.metadata = { name: 'roles.rbac.authorization.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, testing' } } as any;
  t.equal((await c.post(CRDS, shadow)).status, 201);
  await established('roles.rbac.authorization.k8s.io');
  const roles = await c.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'still-built-in' }, rules: [] });
  t.equal(roles.status, 201);
  t.same(roles.body.rules, [], 'served by the built-in registry');
  t.equal((await c.delete(`${CRDS}/roles.rbac.authorization.k8s.io`)).status, 200);
  await eventually(async () => (await c.get(`${CRDS}/roles.rbac.authorization.k8s.io`)).status === 404, 5000, 'the CRD to go');
  t.equal((await c.get('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/still-built-in')).status, 200, 'its deletion deleted no built-in object');
});

t.test('a name already in use in the group is refused with NamesAccepted False', async (t) => {
  t.equal((await c.post(CRDS, crd('apples', 'fruit.example.com', 'Apple', { names: { shortNames: ['ap'] } }))).status, 201);
  await established('apples.fruit.example.com');
  t.equal((await c.post(CRDS, crd('apricots', 'fruit.example.com', 'Apricot', { names: { shortNames: ['ap'] } }))).status, 201);
  let got: any;
  await eventually(async () => {
    got = (await c.get(`${CRDS}/apricots.fruit.example.com`)).body;
    return conditions(got).NamesAccepted !== undefined;
  }, 5000, 'names decided');
  t.match(conditions(got).NamesAccepted, { status: 'False', reason: 'ShortNamesConflict', message: '"ap" is already in use' });
  t.match(conditions(got).Established, { status: 'False', reason: 'NotAccepted' });
  t.equal((await c.get('/apis/fruit.example.com/v1/namespaces/default/apricots')).status, 404, 'not served');
  t.equal((await c.delete(`${CRDS}/apples.fruit.example.com`)).status, 200);
  got = await established('apricots.fruit.example.com');
  t.match(conditions(got).NamesAccepted, { status: 'True', reason: 'NoConflicts' });
  t.equal((await c.get('/apis/fruit.example.com/v1/namespaces/default/apricots')).status, 200, 'served once the name is free');
});

t.test('several versions, one storage version, conversion None, deprecation', async (t) => {
  const versions = [
    { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
    { name: 'v1', served: true, storage: true, schema },
  ];
  t.equal((await c.post(CRDS, crd('widgets', 'multi.example.com', 'Widget', { versions }))).status, 201);
  await established('widgets.multi.example.com');
  const created = await c.post('/apis/multi.example.com/v1beta1/namespaces/default/widgets', { apiVersion: 'multi.example.com/v1beta1', kind: 'Widget', metadata: { name: 'w' }, spec: { color: 'red' } });
  t.equal(created.status, 201);
  t.equal(created.body.apiVersion, 'multi.example.com/v1beta1');
  t.match(String(created.headers.warning), /multi.example.com\/v1beta1 Widget is deprecated/);
  const v1 = await c.get('/apis/multi.example.com/v1/namespaces/default/widgets/w');
  t.equal(v1.body.apiVersion, 'multi.example.com/v1');
  t.equal(v1.headers.warning, undefined);
  const stored = await api.store.get('/registry/multi.example.com/widgets/default/w');
  t.equal(JSON.parse(stored!.value.toString()).apiVersion, 'multi.example.com/v1', 'stored in the storage version');
  // Switch storage to v1beta1: storedVersions records both.
  const cur = (await c.get(`${CRDS}/widgets.multi.example.com`)).body;
  cur.spec.versions = [{ ...versions[0], storage: true }, { ...versions[1], storage: false }];
  const updated = await c.put(`${CRDS}/widgets.multi.example.com`, cur);
  t.equal(updated.status, 200);
  t.same(updated.body.status.storedVersions, ['v1', 'v1beta1']);
  const dropped = structuredClone(updated.body);
  dropped.spec.versions = [dropped.spec.versions[0]];
  const refused = await c.put(`${CRDS}/widgets.multi.example.com`, dropped);
  t.equal(refused.status, 422);
  t.match(refused.body.message, /status.storedVersions\[0\]: Invalid value: "v1": must appear in spec.versions/);
});

t.test('defaults apply on read: a default added to the schema shows on stored objects', async (t) => {
  const cur = (await c.get(`${CRDS}/widgets.multi.example.com`)).body;
  for (const v of cur.spec.versions) v.schema.openAPIV3Schema.properties.spec.properties.shape = { type: 'string', default: 'round' };
  t.equal((await c.put(`${CRDS}/widgets.multi.example.com`, cur)).status, 200);
  await eventually(async () => (await c.get('/apis/multi.example.com/v1/namespaces/default/widgets/w')).body.spec?.shape === 'round', 5000, 'the new default on read');
  const stored = await api.store.get('/registry/multi.example.com/widgets/default/w');
  t.notOk('shape' in JSON.parse(stored!.value.toString()).spec, 'storage is not rewritten');
});

t.test('discovery and OpenAPI', async (t) => {
  const agg = (await c.get('/apis', { accept: v2 })).body;
  const group = agg.items.find((g: any) => g.metadata.name === 'multi.example.com');
  t.same(group.versions.map((v: any) => v.version), ['v1', 'v1beta1'], 'preferred (GA) version first');
  t.match(group.versions[0].resources[0], { resource: 'widgets', responseKind: { group: 'multi.example.com', version: 'v1', kind: 'Widget' }, scope: 'Namespaced', singularResource: 'widget' });
  const legacy = (await c.get('/apis/multi.example.com/v1')).body;
  t.match(legacy, { kind: 'APIResourceList', groupVersion: 'multi.example.com/v1' });
  t.ok((await c.get('/apis')).body.groups.some((g: any) => g.name === 'multi.example.com'));
  const index = (await c.get('/openapi/v3')).body;
  t.ok(index.paths['apis/multi.example.com/v1'], 'in the OpenAPI v3 index');
  const doc = (await c.get(index.paths['apis/multi.example.com/v1'].serverRelativeURL)).body;
  const widget = doc.components.schemas['com.example.multi.v1.Widget'];
  t.same(widget['x-kubernetes-group-version-kind'], [{ group: 'multi.example.com', kind: 'Widget', version: 'v1' }]);
  t.equal(widget.properties.spec.properties.size.type, 'integer');
  t.ok(doc.paths['/apis/multi.example.com/v1/namespaces/{namespace}/widgets/{name}'].patch.parameters.some((p: any) => p.name === 'fieldValidation'));
});

t.test('server-side apply merges by x-kubernetes-list-type and keeps preserved fields', async (t) => {
  const listSchema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: {
    ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    atomic: { type: 'array', items: { type: 'string' } },
  } } } } };
  t.equal((await c.post(CRDS, crd('routers', 'ssa.example.com', 'Router', { versions: [{ name: 'v1', served: true, storage: true, schema: listSchema }] }))).status, 201);
  await established('routers.ssa.example.com');
  const url = '/apis/ssa.example.com/v1/namespaces/default/routers/r';
  const apply = (manager: string, spec: unknown) => c.patch(`${url}?fieldManager=${manager}`, { apiVersion: 'ssa.example.com/v1', kind: 'Router', metadata: { name: 'r' }, spec }, { contentType: 'application/apply-patch+yaml' });
  t.equal((await apply('one', { ports: [{ name: 'http', port: 80 }], tags: ['a'], atomic: ['x'], free: { deep: 1 } })).status, 201);
  const two = await apply('two', { ports: [{ name: 'https', port: 443 }], tags: ['b'] });
  t.equal(two.status, 200);
  t.same(two.body.spec.ports, [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], 'list-type map: items merged by key');
  t.same(two.body.spec.tags, ['a', 'b'], 'list-type set: values merged');
  t.same(two.body.spec.free, { deep: 1 }, 'preserved unknown fields kept');
  const conflict = await apply('two', { atomic: ['y'] });
  t.equal(conflict.status, 409, 'an atomic list owned by another manager conflicts');
  t.match(conflict.body.details.causes[0], { reason: 'FieldManagerConflict', field: '.spec.atomic' });
  const dropped = await apply('one', { ports: [{ name: 'http', port: 8080 }], atomic: ['x'], free: { deep: 1 } });
  t.same(dropped.body.spec.ports, [{ name: 'http', port: 8080 }, { name: 'https', port: 443 }]);
  t.same(dropped.body.spec.tags, ['b'], "a manager's own item it no longer applies is removed");
});

t.test('watch, selectable fields and a cluster-scoped resource', async (t) => {
  const versions = [{ name: 'v1', served: true, storage: true, schema, selectableFields: [{ jsonPath: '.spec.color' }] }];
  t.equal((await c.post(CRDS, crd('gadgets', 'cluster.example.com', 'Gadget', { versions, spec: { scope: 'Cluster' } }))).status, 201);
  await established('gadgets.cluster.example.com');
  const base = '/apis/cluster.example.com/v1/gadgets';
  const w = await c.watch(`${base}?watch=true&fieldSelector=spec.color%3Dred`);
  t.equal((await c.post(base, { apiVersion: 'cluster.example.com/v1', kind: 'Gadget', metadata: { name: 'blue' }, spec: { color: 'blue' } })).status, 201);
  t.equal((await c.post(base, { apiVersion: 'cluster.example.com/v1', kind: 'Gadget', metadata: { name: 'red' }, spec: { color: 'red' } })).status, 201);
  const ev = await w.next();
  t.match(ev, { type: 'ADDED', object: { metadata: { name: 'red' } } }, 'the watch sees only the selected object');
  w.close();
  const list = (await c.get(`${base}?fieldSelector=spec.color%3Dblue`)).body;
  t.same(list.items.map((o: any) => o.metadata.name), ['blue']);
  t.equal(list.kind, 'GadgetList');
  t.equal((await c.get(`${base}?fieldSelector=spec.size%3D1`)).status, 400, 'a field that is not selectable');
  t.equal((await c.get('/apis/cluster.example.com/v1/namespaces/default/gadgets')).status, 404, 'no namespaced path for a cluster-scoped resource');
});

t.test('custom resources authorize like any resource', async (t) => {
  const as = (user: string) => ({ headers: { 'Impersonate-User': user } });
  const list = '/apis/multi.example.com/v1/namespaces/default/widgets';
  const denied = await c.get(list, as('alice'));
  t.equal(denied.status, 403);
  t.equal(denied.body.message, 'widgets.multi.example.com is forbidden: User "alice" cannot list resource "widgets" in API group "multi.example.com" in the namespace "default"');
  await c.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'widgets' }, rules: [{ apiGroups: ['multi.example.com'], resources: ['widgets'], verbs: ['get', 'list'] }] });
  await c.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'widgets' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] });
  await eventually(async () => (await c.get(list, as('alice'))).status === 200, 5000, 'the binding to take effect');
  t.equal((await c.post(list, { apiVersion: 'multi.example.com/v1', kind: 'Widget', metadata: { name: 'x' } }, as('alice'))).status, 403, 'create not granted');
  const crdDenied = await c.post(CRDS, crd('others', 'x.example.com', 'Other'), as('alice'));
  t.equal(crdDenied.status, 403);
  t.equal(crdDenied.body.message, 'customresourcedefinitions.apiextensions.k8s.io is forbidden: User "alice" cannot create resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope');
});

t.test('a CRD waits for objects with finalizers, refusing new ones meanwhile', async (t) => {
  t.equal((await c.post(CRDS, crd('locks', 'final.example.com', 'Lock'))).status, 201);
  await established('locks.final.example.com');
  const base = '/apis/final.example.com/v1/namespaces/default/locks';
  t.equal((await c.post(base, { apiVersion: 'final.example.com/v1', kind: 'Lock', metadata: { name: 'held', finalizers: ['example.com/hold'] } })).status, 201);
  t.equal((await c.delete(`${CRDS}/locks.final.example.com`)).status, 200);
  let got: any;
  await eventually(async () => {
    got = (await c.get(`${CRDS}/locks.final.example.com`)).body;
    return conditions(got).Terminating?.reason === 'InstanceDeletionCheck';
  }, 5000, 'the cleanup to wait');
  t.ok(got.metadata.finalizers.includes('customresourcecleanup.apiextensions.k8s.io'));
  t.ok((await c.get(`${base}/held`)).body.metadata.deletionTimestamp, 'the object is being deleted');
  const refused = await c.post(base, { apiVersion: 'final.example.com/v1', kind: 'Lock', metadata: { name: 'new' } });
  t.equal(refused.status, 405);
  t.equal(refused.body.message, 'create is not supported on resources of kind "locks.final.example.com"');
  t.equal((await c.patch(`${base}/held`, { metadata: { finalizers: null } })).status, 200, 'served while terminating, so finalizers can go');
  await eventually(async () => (await c.get(`${CRDS}/locks.final.example.com`)).status === 404, 5000, 'the CRD to go');
  await eventually(async () => (await c.get(base)).status === 404, 5000, 'serving to stop');
});
