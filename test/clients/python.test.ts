// The official Python client (Debian's python3-kubernetes) against a real API server: what it
// sends (`watch=True`, `force=True`, `orphanDependents=True` as query parameters) and what
// its deserialisation expects back (a V1Status from deletes, a ReplicaSetStatus with
// replicas, remaining_item_count on limited lists).
import t from 'tap';
import { join } from 'node:path';
import { fixtures, startAPIServer } from '../helpers/api.js';
import { pythonClient } from '../helpers/python-client.js';

const api = await startAPIServer(t);
const c = api.client;
const py = pythonClient(t, api);
const ns = 'python';
await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const NS = JSON.stringify(ns);

t.test('watch.Watch().stream(list_namespaced_config_map) sees ADDED, MODIFIED and DELETED', async (t) => {
  await c.post(cms, fixtures.configMap('watched', {}, { v: '1' }));
  const p = py.start(`
w = watch.Watch()
for ev in w.stream(v1.list_namespaced_config_map, namespace=${NS}, field_selector='metadata.name=watched', timeout_seconds=60):
    emit({'type': ev['type'], 'name': ev['object'].metadata.name, 'data': ev['object'].data})
    if ev['type'] == 'DELETED':
        w.stop()
`);
  t.same(await p.next(), { type: 'ADDED', name: 'watched', data: { v: '1' } });
  await c.patch(`${cms}/watched`, { data: { v: '2' } });
  t.same(await p.next(), { type: 'MODIFIED', name: 'watched', data: { v: '2' } });
  await c.delete(`${cms}/watched`);
  t.match(await p.next(), { type: 'DELETED', name: 'watched' });
  t.equal(await p.exited, 0, p.stderr());
});

t.test('a forced server-side apply with the dynamic client takes over a conflicting field', async (t) => {
  const { values } = await py.run(`
from kubernetes.dynamic import DynamicClient
cms = DynamicClient(api, cache_file=${JSON.stringify(join(api.dir, 'python-discovery.json'))}).resources.get(api_version='v1', kind='ConfigMap')
# This client version sends an apply patch only as text (it does not encode a dict as YAML).
def apply(value, manager, **kw):
    body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'applied', 'namespace': ${NS}}, 'data': {'key': value}}
    return cms.server_side_apply(body=json.dumps(body), name='applied', namespace=${NS}, field_manager=manager, **kw)
apply('first', 'first')
try:
    apply('second', 'second')
    emit('no conflict')
except ApiException as e:
    emit(api_error(e))
emit(apply('second', 'second', force_conflicts=True).to_dict())
`);
  t.match(values[0], { status: 409, body: { reason: 'Conflict', details: { causes: [{ reason: 'FieldManagerConflict' }] } } }, 'without force: 409');
  t.match(values[1], { kind: 'ConfigMap', data: { key: 'second' } }, 'forced: applied');
  const managers = (values[1].metadata.managedFields as any[]).map((m) => m.manager);
  t.same(managers, ['second'], 'the forced manager owns the field now');
});

t.test('delete_namespaced_config_map returns a V1Status of Success; delete_namespaced_pod the pod', async (t) => {
  const cm = (await c.post(cms, fixtures.configMap('doomed'))).body;
  await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('doomed-pod', { spec: { nodeName: 'node-1' } }));
  const { values: [status, pod] } = await py.run(`
r = v1.delete_namespaced_config_map('doomed', ${NS})
emit({'type': type(r).__name__, 'status': r.status, 'details': r.details})
r = v1.delete_namespaced_pod('doomed-pod', ${NS})
emit({'type': type(r).__name__, 'name': r.metadata.name, 'deletionTimestamp': r.metadata.deletion_timestamp})
`);
  t.same(status, { type: 'V1Status', status: 'Success', details: { name: 'doomed', kind: 'configmaps', uid: cm.metadata.uid } });
  t.equal(pod.type, 'V1Pod');
  t.equal(pod.name, 'doomed-pod');
  t.ok(pod.deletionTimestamp, 'a bound pod is deleted gracefully and returned as it now is');
});

t.test('orphan_dependents is honoured, and refused together with propagation_policy', async (t) => {
  const { spec } = fixtures.deployment('orphaner');
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'orphaner' }, spec: { selector: spec.selector, template: spec.template } };
  await c.post(`/apis/apps/v1/namespaces/${ns}/replicasets`, rs);
  await c.post(cms, fixtures.configMap('both-set'));
  const { values: [orphaned, both] } = await py.run(`
apps.delete_namespaced_replica_set('orphaner', ${NS}, orphan_dependents=True)
emit(apps.read_namespaced_replica_set('orphaner', ${NS}).metadata)
try:
    v1.delete_namespaced_config_map('both-set', ${NS}, orphan_dependents=True, propagation_policy='Background')
    emit('deleted')
except ApiException as e:
    emit(api_error(e))
`);
  t.same(orphaned.finalizers, ['orphan'], 'left for the garbage collector to orphan its pods');
  t.ok(orphaned.deletionTimestamp);
  t.match(both, { status: 422, body: { reason: 'Invalid', message: /orphanDependents and deletionPropagation cannot be both set/ } });
});

t.test('created workloads deserialise with a status', async (t) => {
  const { spec } = fixtures.deployment('rs-py');
  const { values: [deploy, rs, listed] } = await py.run(`
d = apps.create_namespaced_deployment(${NS}, ${JSON.stringify(fixtures.deployment('deploy-py'))})
emit({'status': d.status})
r = apps.create_namespaced_replica_set(${NS}, ${JSON.stringify({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs-py' }, spec: { selector: spec.selector, template: spec.template } })})
emit({'status': r.status})
emit({'replicas': [i.status.replicas for i in apps.list_namespaced_replica_set(${NS}).items]})
`);
  t.same(deploy, { status: {} }, 'a V1DeploymentStatus, empty');
  t.same(rs, { status: { replicas: 0 } });
  t.same(listed.replicas.every((n: number) => n === 0), true);
});

t.test('list_namespaced_config_map(limit=...) reports remaining_item_count', async (t) => {
  for (const n of ['page-1', 'page-2', 'page-3', 'page-4']) await c.post(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: n } });
  const { values } = await py.run(`
page = v1.list_namespaced_secret(${NS}, limit=3)
emit({'remaining': page.metadata.remaining_item_count, 'more': page.metadata._continue is not None})
page = v1.list_namespaced_secret(${NS}, limit=3, _continue=page.metadata._continue)
emit({'remaining': page.metadata.remaining_item_count, 'more': page.metadata._continue is not None})
`);
  t.same(values, [{ remaining: 1, more: true }, { remaining: null, more: false }]);
});

t.test('the client evicts a pod through pods/eviction, and a budget refuses with 429', async (t) => {
  await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('evictable'));
  await c.post(`/api/v1/namespaces/${ns}/pods`, fixtures.pod('guarded', { metadata: { labels: { app: 'guarded' } }, spec: { nodeName: 'n1' } }));
  const guarded = (await c.get(`/api/v1/namespaces/${ns}/pods/guarded`)).body;
  await c.put(`/api/v1/namespaces/${ns}/pods/guarded/status`, { ...guarded, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
  const pdb = (await c.post(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } })).body;
  await c.put(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/guard/status`, { ...pdb, status: { currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0, observedGeneration: 1 } });
  const { values } = await py.run(`
for name in ['evictable', 'guarded']:
    try:
        v1.create_namespaced_pod_eviction(name, ${NS}, client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace=${NS})))
        emit('evicted')
    except ApiException as e:
        emit(api_error(e))
`);
  t.equal(values[0], 'evicted');
  t.match(values[1], { status: 429, body: { reason: 'TooManyRequests', message: "Cannot evict pod as it would violate the pod's disruption budget." } });
  t.equal((await c.get(`/api/v1/namespaces/${ns}/pods/evictable`)).status, 404, 'the unscheduled pod is gone at once');
});

// Not events.k8s.io/v1: this client refuses an Event without eventTime, which core/v1 Events
// lack against kube-apiserver as well (kubernetes-client/python#1616).
t.test('every served kind deserialises through its typed list call', async (t) => {
  await c.post(`/api/v1/namespaces/${ns}/services`, fixtures.service('listed'));
  await c.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'listed-node' } });
  await c.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'listed' } });
  await c.post(`/api/v1/namespaces/${ns}/events`, {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'listed.1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Listed', message: 'x',
  });
  await c.post(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'listed' }, spec: { holderIdentity: 'me' } });
  await c.post(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'listed' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }],
  });
  const { values: [counts] } = await py.run(`
calls = {
  'namespaces': v1.list_namespace, 'nodes': v1.list_node, 'pods': v1.list_pod_for_all_namespaces,
  'services': v1.list_service_for_all_namespaces, 'endpoints': v1.list_endpoints_for_all_namespaces,
  'configmaps': v1.list_config_map_for_all_namespaces, 'secrets': v1.list_secret_for_all_namespaces,
  'serviceaccounts': v1.list_service_account_for_all_namespaces, 'events': v1.list_event_for_all_namespaces,
  'deployments': apps.list_deployment_for_all_namespaces, 'replicasets': apps.list_replica_set_for_all_namespaces,
  'endpointslices': client.DiscoveryV1Api(api).list_endpoint_slice_for_all_namespaces,
  'leases': client.CoordinationV1Api(api).list_lease_for_all_namespaces,
}
emit({name: len(call().items) for name, call in calls.items()})
`);
  for (const [kind, n] of Object.entries(counts)) t.ok((n as number) > 0, `${kind}: ${n} listed`);
});
