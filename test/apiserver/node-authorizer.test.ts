// The Node authorizer's decisions as its graph changes: a kubelet reads a Secret, ConfigMap
// or PVC, or creates a ServiceAccount token, only while a pod bound to its node references
// it; binding, rebinding and deleting pods change that at once. Other requests get no
// opinion (RBAC decides) with upstream's reasons.
import t from 'tap';
import { NodeAuthorizer } from '../../src/apiserver/authz/node.js';
import { NodeGraph, podReferences } from '../../src/apiserver/authz/node-graph.js';
import { parseRequestInfo } from '../../src/apiserver/request-info.js';
import { requestAttributes } from '../../src/apiserver/authz/attributes.js';
import type { Pod } from '../../src/api/kinds.js';

const node = (name: string) => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const req = (method: string, path: string, query = '') => requestAttributes(parseRequestInfo(method, path, new URLSearchParams(query)), new URLSearchParams(query));
const get = (path: string) => req('GET', path);

function pod(name: string, nodeName: string | undefined, spec: Record<string, unknown> = {}): Pod {
  return {
    metadata: { name, namespace: 'ns' },
    spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], ...spec },
  } as Pod;
}

const withEverything = (nodeName: string | undefined) => pod('web', nodeName, {
  serviceAccountName: 'sa',
  imagePullSecrets: [{ name: 'pull' }],
  volumes: [
    { name: 'v1', secret: { secretName: 'vol-secret' } },
    { name: 'v2', configMap: { name: 'vol-cm' } },
    { name: 'v3', persistentVolumeClaim: { claimName: 'claim' } },
    { name: 'v4', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] } },
  ],
  containers: [{
    name: 'c', image: 'busybox',
    env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }],
    envFrom: [{ secretRef: { name: 'from-secret' } }, { configMapRef: { name: 'from-cm' } }],
  }],
  initContainers: [{ name: 'i', image: 'busybox', envFrom: [{ secretRef: { name: 'init-secret' } }] }],
});

const referenced = [
  '/api/v1/namespaces/ns/secrets/pull', '/api/v1/namespaces/ns/secrets/vol-secret', '/api/v1/namespaces/ns/secrets/proj-secret',
  '/api/v1/namespaces/ns/secrets/env-secret', '/api/v1/namespaces/ns/secrets/from-secret', '/api/v1/namespaces/ns/secrets/init-secret',
  '/api/v1/namespaces/ns/configmaps/vol-cm', '/api/v1/namespaces/ns/configmaps/proj-cm', '/api/v1/namespaces/ns/configmaps/env-cm',
  '/api/v1/namespaces/ns/configmaps/from-cm', '/api/v1/namespaces/ns/persistentvolumeclaims/claim',
];

async function allowed(a: NodeAuthorizer, user: ReturnType<typeof node>, info: ReturnType<typeof req>): Promise<boolean> {
  return (await a.authorize(user, info)) === null;
}

t.test('every kind of reference a pod makes is in the graph', async (t) => {
  t.strictSame(podReferences(withEverything('n1')).sort(), [
    'configmap/ns/env-cm', 'configmap/ns/from-cm', 'configmap/ns/proj-cm', 'configmap/ns/vol-cm',
    'pvc/ns/claim',
    'secret/ns/env-secret', 'secret/ns/from-secret', 'secret/ns/init-secret', 'secret/ns/proj-secret', 'secret/ns/pull', 'secret/ns/vol-secret',
    'serviceaccount/ns/sa',
  ]);
});

t.test('a pod bound, rebound and deleted changes what each node may read', async (t) => {
  const graph = new NodeGraph();
  const authz = new NodeAuthorizer(graph);
  const n1 = node('n1'), n2 = node('n2');
  const token = req('POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token');

  graph.setPod(withEverything(undefined));
  for (const path of referenced) t.notOk(await allowed(authz, n1, get(path)), `unscheduled: n1 may not read ${path}`);

  graph.setPod(withEverything('n1'));
  for (const path of referenced) {
    t.ok(await allowed(authz, n1, get(path)), `bound to n1: n1 reads ${path}`);
    t.notOk(await allowed(authz, n2, get(path)), `bound to n1: n2 may not read ${path}`);
  }
  t.ok(await allowed(authz, n1, token), 'n1 creates a token for the pod\'s service account');
  t.notOk(await allowed(authz, n2, token), 'n2 may not');
  t.ok(await allowed(authz, n1, get('/api/v1/namespaces/ns/pods/web')), 'n1 reads its pod');
  t.equal(await authz.authorize(n2, get('/api/v1/namespaces/ns/secrets/vol-secret')), "no relationship found between node 'n2' and this object");
  t.notOk(await allowed(authz, n1, get('/api/v1/namespaces/ns/secrets/unrelated')), 'an unreferenced secret stays closed');
  t.notOk(await allowed(authz, n1, get('/api/v1/namespaces/other/secrets/vol-secret')), 'the same name in another namespace stays closed');

  // Rebound: as a new pod object with the same name on another node (delete + create).
  graph.deletePod('ns/web');
  graph.setPod(withEverything('n2'));
  for (const path of referenced) {
    t.notOk(await allowed(authz, n1, get(path)), `rebound: n1 lost ${path}`);
    t.ok(await allowed(authz, n2, get(path)), `rebound: n2 reads ${path}`);
  }

  graph.deletePod('ns/web');
  for (const path of referenced) t.notOk(await allowed(authz, n2, get(path)), `deleted: n2 lost ${path}`);
  t.notOk(await allowed(authz, n2, token), 'deleted: no token either');
});

t.test('a secret two pods share stays readable until the last of them goes', async (t) => {
  const graph = new NodeGraph();
  const authz = new NodeAuthorizer(graph);
  const shared = { volumes: [{ name: 'v', secret: { secretName: 'shared' } }] };
  graph.setPod(pod('a', 'n1', shared));
  graph.setPod(pod('b', 'n1', shared));
  const path = get('/api/v1/namespaces/ns/secrets/shared');
  graph.deletePod('ns/a');
  t.ok(await allowed(authz, node('n1'), path), 'b still references it');
  // A pod updated to drop the reference.
  graph.setPod(pod('b', 'n1'));
  t.notOk(await allowed(authz, node('n1'), path), 'no pod references it any more');
});

t.test('persistent volumes through their bound claims', async (t) => {
  const graph = new NodeGraph();
  const authz = new NodeAuthorizer(graph);
  graph.setPod(pod('db', 'n1', { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] }));
  const pv = get('/api/v1/persistentvolumes/pv-1');
  t.notOk(await allowed(authz, node('n1'), pv), 'unbound claim: no volume');
  graph.setClaim('ns', 'data', 'pv-1');
  t.ok(await allowed(authz, node('n1'), pv), 'bound claim: its volume');
  t.notOk(await allowed(authz, node('n2'), pv));
  graph.setClaim('ns', 'data', undefined);
  t.notOk(await allowed(authz, node('n1'), pv), 'claim gone: volume gone');
});

t.test('verbs, subresources and other resources', async (t) => {
  const graph = new NodeGraph();
  const authz = new NodeAuthorizer(graph);
  graph.setPod(withEverything('n1'));
  const n1 = node('n1');
  const cases: Array<[string, string, string | null]> = [
    ['PUT', '/api/v1/namespaces/ns/secrets/vol-secret', 'can only read resources of this type'],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/vol-cm', 'can only read resources of this type'],
    ['GET', '/api/v1/namespaces/ns/secrets', 'No Object name found'],
    ['GET', '/api/v1/secrets', 'can only read namespaced object of this type'],
    ['GET', '/api/v1/namespaces/ns/persistentvolumeclaims', 'can only get individual resources of this type'],
    ['GET', '/api/v1/namespaces/ns/serviceaccounts/sa', 'can only create tokens for individual service accounts'],
    ['GET', '/api/v1/nodes/n1', null],
    ['GET', '/api/v1/nodes/n2', "node 'n1' cannot read 'n2', only its own Node object"],
    // AuthorizeNodeWithSelectors: a node reads only its own Node, also by list or watch.
    ['GET', '/api/v1/nodes', "node 'n1' cannot read all nodes, only its own Node object"],
    ['GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn1', null],
    ['GET', '/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn1', null],
    ['GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn2', "node 'n1' cannot read 'n2', only its own Node object"],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dvol-secret', null],
    ['GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dother', "no relationship found between node 'n1' and this object"],
    ['PATCH', '/api/v1/nodes/n1/status', null],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', null],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2', 'can only access node lease with the same name as the requesting node'],
    ['GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/n1', 'can only access leases in the "kube-node-lease" system namespace'],
    ['PUT', '/api/v1/namespaces/ns/pods/web/status', null],
    ['POST', '/api/v1/namespaces/ns/pods/web/eviction', null],
    // Resources the graph does not subdivide: upstream's static node rules.
    ['GET', '/api/v1/namespaces/ns/services', null],
    ['GET', '/api/v1/namespaces', ''],
  ];
  for (const [method, path, want] of cases) {
    const [p, q] = path.split('?');
    t.equal(await authz.authorize(n1, req(method, p!, q)), want, `${method} ${path}`);
  }
});

t.test('pods: a node lists and watches only with spec.nodeName=<its name>', async (t) => {
  const graph = new NodeGraph();
  const authz = new NodeAuthorizer(graph);
  graph.setPod(pod('mine', 'n1'));
  graph.setPod(pod('theirs', 'n2'));
  const n1 = node('n1');
  const cases: Array<[string, string, string | null]> = [
    ['/api/v1/pods', 'fieldSelector=spec.nodeName%3Dn1', null],
    ['/api/v1/pods', 'watch=1&fieldSelector=spec.nodeName%3Dn1', null],
    ['/api/v1/namespaces/ns/pods', 'fieldSelector=status.phase%21%3DFailed,spec.nodeName%3Dn1', null],
    ['/api/v1/pods', 'fieldSelector=spec.nodeName%3D%3Dn1', null],
    ['/api/v1/pods', '', 'can only list/watch pods with spec.nodeName field selector'],
    ['/api/v1/pods', 'fieldSelector=spec.nodeName%3Dn2', 'can only list/watch pods with spec.nodeName field selector'],
    ['/api/v1/pods', 'fieldSelector=spec.nodeName%21%3Dn1', 'can only list/watch pods with spec.nodeName field selector'],
    ['/api/v1/pods', 'labelSelector=app%3Dweb', 'can only list/watch pods with spec.nodeName field selector'],
    ['/api/v1/pods', 'fieldSelector=spec.nodeName%3D(', 'can only list/watch pods with spec.nodeName field selector'],
    // One pod by name: allowed when it is bound to the node, as a get is.
    ['/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3Dmine', null],
    ['/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3Dtheirs', "no relationship found between node 'n1' and this object"],
  ];
  for (const [path, query, want] of cases) t.equal(await authz.authorize(n1, req('GET', path, query)), want, `${path}?${decodeURIComponent(query)}`);
  t.equal(await authz.authorize(n1, req('DELETE', '/api/v1/namespaces/ns/pods', 'fieldSelector=spec.nodeName%3Dn1')), '', 'deletecollection is not a node\'s');
});

t.test('only node identities: others get no opinion', async (t) => {
  const graph = new NodeGraph();
  graph.setPod(withEverything('n1'));
  const authz = new NodeAuthorizer(graph);
  const path = get('/api/v1/namespaces/ns/secrets/vol-secret');
  t.equal(await authz.authorize({ username: 'system:node:n1', groups: ['system:authenticated'] }, path), '', 'the name without the group is no node');
  t.equal(await authz.authorize({ username: 'alice', groups: ['system:nodes'] }, path), '', 'the group without the name is no node');
  t.equal(await authz.authorize({ username: 'system:node:', groups: ['system:nodes'] }, path), 'unknown node for user "system:node:"');
});
