import t from 'tap';
import { openAPIDocument, openAPIIndex } from '../../src/api/openapi.js';
import { served } from './served.js';

const doc = (group: string, version: string): any => JSON.parse(JSON.stringify(openAPIDocument(group, version, served)));
const apps = doc('apps', 'v1');
const core = doc('', 'v1');
const schemas = (d: any): Record<string, any> => d.components.schemas;
const REF_PREFIX = '#/components/schemas/';

t.test('the index lists every served group version with a content hash', async (t) => {
  const index = openAPIIndex(served, 'build-1');
  t.same(Object.keys(index.paths).sort(), [
    'api/v1', 'apis/apps/v1', 'apis/apps/v1beta1', 'apis/coordination.k8s.io/v1', 'apis/discovery.k8s.io/v1', 'apis/events.k8s.io/v1',
  ]);
  t.match(index.paths['apis/apps/v1'].serverRelativeURL, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
  t.same(openAPIIndex(served, 'build-1'), index, 'stable for the same input');
  t.not(openAPIIndex(served, 'build-2').paths['api/v1'].serverRelativeURL, index.paths['api/v1'].serverRelativeURL, 'the base hash is mixed in');
  const fewer = served.filter((r) => r.resource !== 'replicasets');
  t.not(openAPIIndex(fewer, 'build-1').paths['apis/apps/v1'].serverRelativeURL, index.paths['apis/apps/v1'].serverRelativeURL, 'content changes the hash');
  t.equal(openAPIIndex(fewer, 'build-1').paths['api/v1'].serverRelativeURL, index.paths['api/v1'].serverRelativeURL, 'other documents keep theirs');
});

t.test('the deployment item path carries what kubectl apply checks for', async (t) => {
  t.equal(apps.openapi, '3.0.0');
  const item = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
  t.ok(item, 'item path exists');
  const patch = item.patch;
  t.same(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  t.equal(patch['x-kubernetes-action'], 'patch');
  const params = patch.parameters.map((p: any) => `${p.in}:${p.name}`);
  t.same(params.sort(), ['query:dryRun', 'query:fieldManager', 'query:fieldValidation', 'query:force']);
  t.same(Object.keys(patch.requestBody.content).sort(), [
    'application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
  ]);
  t.same(item.parameters.map((p: any) => `${p.in}:${p.name}`), ['path:name', 'path:namespace', 'query:pretty']);
  t.same(Object.keys(item).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'patch', 'put']);
  t.equal(item.get.responses['200'].content['application/json'].schema.$ref, `${REF_PREFIX}io.k8s.api.apps.v1.Deployment`);
});

t.test('every PATCH operation offers fieldValidation, since kubectl checks whichever it finds first', async (t) => {
  for (const d of [apps, core, doc('apps', 'v1beta1'), doc('discovery.k8s.io', 'v1')]) {
    for (const [path, item] of Object.entries<any>(d.paths)) {
      if (!item.patch) continue;
      t.ok(item.patch.parameters.some((p: any) => p.in === 'query' && p.name === 'fieldValidation'), path);
      t.ok(item.patch['x-kubernetes-group-version-kind'], `${path} has a GVK`);
    }
  }
});

t.test('collection, all-namespaces and subresource paths', async (t) => {
  const coll = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
  t.equal(coll.get['x-kubernetes-action'], 'list');
  t.equal(coll.get.responses['200'].content['application/json'].schema.$ref, `${REF_PREFIX}io.k8s.api.apps.v1.DeploymentList`);
  t.ok(coll.get.parameters.some((p: any) => p.name === 'watch'));
  t.equal(coll.post['x-kubernetes-action'], 'post');
  t.ok(coll.post.parameters.some((p: any) => p.name === 'fieldValidation'));
  t.equal(coll.delete['x-kubernetes-action'], 'deletecollection');
  const all = apps.paths['/apis/apps/v1/deployments'];
  t.equal(all.get.operationId, 'listAppsV1DeploymentForAllNamespaces');
  const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
  t.same(scale.patch['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  t.ok(schemas(apps)['io.k8s.api.autoscaling.v1.Scale'], 'Scale schema is included');
  t.ok(core.paths['/api/v1/namespaces/{name}'], 'cluster-scoped item path');
  t.notOk(core.paths['/api/v1/namespaces/{namespace}/namespaces'], 'no namespaced path for a cluster-scoped kind');
  t.equal(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'].post['x-kubernetes-action'], 'connect');
  t.equal(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding'].post.requestBody.content['*/*'].schema.$ref,
    `${REF_PREFIX}io.k8s.api.core.v1.Binding`);
  const ids = Object.values<any>(core.paths).flatMap((item) => ['get', 'put', 'post', 'patch', 'delete'].filter((m) => item[m]).map((m) => item[m].operationId));
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique');
});

t.test('component schemas: every $ref resolves, kinds carry their GVK', async (t) => {
  for (const d of [apps, core]) {
    const refs = JSON.stringify(d).match(/#\/components\/schemas\/[\w.-]+/g) ?? [];
    for (const r of new Set(refs)) t.ok(schemas(d)[r.slice(REF_PREFIX.length)], r);
  }
  const dep = schemas(apps)['io.k8s.api.apps.v1.Deployment'];
  t.same(dep['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  t.same(dep.properties.metadata.allOf, [{ $ref: `${REF_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` }], 'described refs use allOf');
  t.ok(dep.properties.metadata.description);
  t.notOk(schemas(apps)['io.k8s.api.core.v1.Service'], 'only referenced types are emitted');
  t.same(schemas(apps)['io.k8s.api.apps.v1.DeploymentSpec'].required, ['selector', 'template']);
  const intOrString = schemas(apps)['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
  t.equal(intOrString['x-kubernetes-int-or-string'], true);
  t.equal(intOrString.format, 'int-or-string');
  t.same(schemas(core)['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf, [{ type: 'string' }, { type: 'number' }]);
  t.equal(schemas(core)['io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry'].properties.fieldsV1.allOf[0].$ref,
    `${REF_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1`);
  t.equal(schemas(core)['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1']['x-kubernetes-preserve-unknown-fields'], true);
  t.equal(schemas(core)['io.k8s.api.core.v1.ContainerPort'].properties.protocol.default, 'TCP');
  t.equal(schemas(core)['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']['x-kubernetes-map-type'], 'atomic');
});

type ListFacts = { mergeKey?: string; strategy?: string; listType?: string; keys?: string[] };
const listCases: [string, string, string, ListFacts][] = [
  ['', 'io.k8s.api.core.v1.PodSpec', 'containers', { mergeKey: 'name', strategy: 'merge', listType: 'map', keys: ['name'] }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'initContainers', { mergeKey: 'name', strategy: 'merge', listType: 'map', keys: ['name'] }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'ephemeralContainers', { mergeKey: 'name', strategy: 'merge', listType: 'map', keys: ['name'] }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'volumes', { mergeKey: 'name', strategy: 'merge,retainKeys', listType: 'map', keys: ['name'] }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'tolerations', { listType: 'atomic' }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'imagePullSecrets', { mergeKey: 'name', strategy: 'merge', listType: 'map', keys: ['name'] }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'hostAliases', { mergeKey: 'ip', strategy: 'merge', listType: 'map', keys: ['ip'] }],
  ['', 'io.k8s.api.core.v1.PodSpec', 'topologySpreadConstraints', { mergeKey: 'topologyKey', strategy: 'merge', listType: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] }],
  ['', 'io.k8s.api.core.v1.Container', 'ports', { mergeKey: 'containerPort', strategy: 'merge', listType: 'map', keys: ['containerPort', 'protocol'] }],
  ['', 'io.k8s.api.core.v1.Container', 'env', { mergeKey: 'name', strategy: 'merge', listType: 'map', keys: ['name'] }],
  ['', 'io.k8s.api.core.v1.Container', 'volumeMounts', { mergeKey: 'mountPath', strategy: 'merge', listType: 'map', keys: ['mountPath'] }],
  ['', 'io.k8s.api.core.v1.ServiceSpec', 'ports', { mergeKey: 'port', strategy: 'merge', listType: 'map', keys: ['port', 'protocol'] }],
  ['', 'io.k8s.api.core.v1.PodStatus', 'conditions', { mergeKey: 'type', strategy: 'merge', listType: 'map', keys: ['type'] }],
  ['', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'ownerReferences', { mergeKey: 'uid', strategy: 'merge', listType: 'map', keys: ['uid'] }],
  ['', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'finalizers', { strategy: 'merge', listType: 'set' }],
  ['apps', 'io.k8s.api.apps.v1.DeploymentStatus', 'conditions', { mergeKey: 'type', strategy: 'merge', listType: 'map', keys: ['type'] }],
];

for (const [group, type, field, want] of listCases) {
  t.test(`list semantics of ${type.split('.').pop()}.${field}`, async (t) => {
    const prop = schemas(group ? apps : core)[type].properties[field];
    t.same({
      mergeKey: prop['x-kubernetes-patch-merge-key'], strategy: prop['x-kubernetes-patch-strategy'],
      listType: prop['x-kubernetes-list-type'], keys: prop['x-kubernetes-list-map-keys'],
    }, want);
  });
}

t.test('apps/v1beta1 deployments keep rollbackTo and their own names', async (t) => {
  const d = doc('apps', 'v1beta1');
  const spec = schemas(d)['io.k8s.api.apps.v1beta1.DeploymentSpec'];
  t.ok(spec.properties.rollbackTo);
  t.same(schemas(d)['io.k8s.api.apps.v1beta1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1beta1' }]);
});
