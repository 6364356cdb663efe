// Validation depth as a client sees it: each bad object is refused with the Kubernetes status
// (422 Invalid with the field, or 400 when the body cannot even be decoded) and nothing is
// written; the good variant of each is accepted.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const ns = '/api/v1/namespaces/default';

const pod = (name: string, mutate: (p: any) => void) => {
  const p = fixtures.pod(name) as any;
  mutate(p);
  return p;
};

interface Case {
  name: string;
  path: string;
  body: any;
  status: 400 | 422;
  field?: string;
  message?: RegExp;
}

const cases: Case[] = [
  { name: 'ownerReference without uid', path: `${ns}/configmaps`, status: 422, field: 'metadata.ownerReferences.uid',
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-no-uid', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x' }] } } },
  { name: 'two controller ownerReferences', path: `${ns}/configmaps`, status: 422, field: 'metadata.ownerReferences', message: /Only one reference can have Controller set to true/,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two-controllers', ownerReferences: [
      { apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'a', controller: true }, { apiVersion: 'v1', kind: 'Pod', name: 'y', uid: 'b', controller: true }] } } },
  { name: 'malformed quantity', path: `${ns}/pods`, status: 400, message: /quantities must match the regular expression/,
    body: pod('bad-quantity', (p) => { p.spec.containers[0].resources = { requests: { cpu: 'lots' } }; }) },
  { name: 'request above limit', path: `${ns}/pods`, status: 422, field: 'spec.containers[0].resources.requests', message: /must be less than or equal to cpu limit of 1/,
    body: pod('over-limit', (p) => { p.spec.containers[0].resources = { requests: { cpu: '1500m' }, limits: { cpu: '1' } }; }) },
  { name: 'memory request above limit', path: `${ns}/pods`, status: 422, field: 'spec.containers[0].resources.requests',
    body: pod('over-mem', (p) => { p.spec.containers[0].resources = { requests: { memory: '2Gi' }, limits: { memory: '1000Mi' } }; }) },
  { name: 'unknown imagePullPolicy', path: `${ns}/pods`, status: 422, field: 'spec.containers[0].imagePullPolicy',
    body: pod('pull-sometimes', (p) => { p.spec.containers[0].imagePullPolicy = 'Sometimes'; }) },
  { name: 'negative activeDeadlineSeconds', path: `${ns}/pods`, status: 422, field: 'spec.activeDeadlineSeconds',
    body: pod('deadline', (p) => { p.spec.activeDeadlineSeconds = -5; }) },
  { name: 'unknown restartPolicy', path: `${ns}/pods`, status: 422, field: 'spec.restartPolicy',
    body: pod('restart', (p) => { p.spec.restartPolicy = 'Sometimes'; }) },
  { name: 'duplicate container names', path: `${ns}/pods`, status: 422, field: 'spec.containers[1].name',
    body: pod('dup-containers', (p) => { p.spec.containers.push({ name: 'main', image: 'x' }); }) },
  { name: 'volumeMount of a missing volume', path: `${ns}/pods`, status: 422, field: 'spec.containers[0].volumeMounts[0].name',
    body: pod('no-volume', (p) => { p.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }]; }) },
  { name: 'projected token shorter than 10 minutes', path: `${ns}/pods`, status: 422, field: 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds',
    message: /may not specify a duration less than 10 minutes/,
    body: pod('short-token', (p) => { p.spec.volumes = [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 60 } }] } }]; }) },
  { name: 'downwardAPI volume item of a status field', path: `${ns}/pods`, status: 422, field: 'spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath',
    message: /Unsupported value: "status.podIP"/,
    body: pod('ip-file', (p) => { p.spec.volumes = [{ name: 'd', downwardAPI: { items: [{ path: 'ip', fieldRef: { fieldPath: 'status.podIP' } }] } }]; }) },
  { name: 'downwardAPI resourceFieldRef without a container', path: `${ns}/pods`, status: 422, field: 'spec.volumes[0].projected.sources[0].downwardAPI.items[0].resourceFieldRef.containerName',
    body: pod('no-container', (p) => { p.spec.volumes = [{ name: 'd', projected: { sources: [{ downwardAPI: { items: [{ path: 'mem', resourceFieldRef: { resource: 'limits.memory' } }] } }] } }]; }) },
  { name: 'downwardAPI item path with ..', path: `${ns}/pods`, status: 422, field: 'spec.volumes[0].downwardAPI.items[0].path',
    body: pod('escape', (p) => { p.spec.volumes = [{ name: 'd', downwardAPI: { items: [{ path: '../x', fieldRef: { fieldPath: 'metadata.name' } }] } }]; }) },
  { name: 'Node podCIDR that is no CIDR', path: '/api/v1/nodes', status: 422, field: 'spec.podCIDR',
    body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bad-cidr' }, spec: { podCIDR: '10.244.1.0' } } },
  { name: 'Service selector with an invalid key', path: `${ns}/services`, status: 422, field: 'spec.selector',
    body: fixtures.service('bad-selector', { selector: { 'bad key': 'x' } }) },
  { name: 'EndpointSlice address of the wrong family', path: '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', status: 422, field: 'endpoints[0].addresses[0]',
    body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'wrong-family' }, addressType: 'IPv4', endpoints: [{ addresses: ['fd00::1'] }] } },
  { name: 'Endpoints address that is no IP', path: `${ns}/endpoints`, status: 422, field: 'subsets[0].addresses[0].ip',
    body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'not-ip' }, subsets: [{ addresses: [{ ip: 'web-1' }], ports: [{ port: 80 }] }] } },
  { name: 'Lease with a negative duration', path: '/apis/coordination.k8s.io/v1/namespaces/default/leases', status: 422, field: 'spec.leaseDurationSeconds',
    body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'neg' }, spec: { leaseDurationSeconds: -1 } } },
  { name: 'Deployment maxSurge that is neither int nor percent', path: '/apis/apps/v1/namespaces/default/deployments', status: 422, field: 'spec.strategy.rollingUpdate.maxSurge',
    body: fixtures.deployment('surge', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'many' } } }) },
  { name: 'a string where an integer belongs', path: '/apis/apps/v1/namespaces/default/deployments', status: 400, message: /spec\.replicas/,
    body: fixtures.deployment('string-replicas', { replicas: 'three' }) },
];

for (const tc of cases) {
  t.test(`${tc.status}: ${tc.name}`, async (t) => {
    const res = await c.post(tc.path, tc.body);
    t.equal(res.status, tc.status);
    t.equal(res.body.reason, tc.status === 422 ? 'Invalid' : 'BadRequest');
    if (tc.field) {
      const fields = (res.body.details?.causes ?? []).map((x: any) => x.field);
      t.ok(fields.includes(tc.field), `causes name ${tc.field} (got ${fields.join(', ')})`);
    }
    if (tc.message) t.match(res.body.message, tc.message);
    t.equal((await c.get(`${tc.path}/${tc.body.metadata.name}`)).status, 404, 'nothing written');
  });
}

const good: Array<[string, string, any]> = [
  ['complete ownerReferences', `${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'a', controller: true }, { apiVersion: 'v1', kind: 'Pod', name: 'y', uid: 'b' }] } }],
  ['requests within limits in other units', `${ns}/pods`, pod('within', (p) => { p.spec.containers[0].resources = { requests: { cpu: '0.5', memory: '1000Mi' }, limits: { cpu: '500m', memory: '1Gi' } }; })],
  ['quantities as numbers and exponents', `${ns}/pods`, pod('numbers', (p) => { p.spec.containers[0].resources = { requests: { cpu: 1, memory: '1e9' } }; })],
  ['downwardAPI and projected volumes with labels, one annotation and a container\'s limit', `${ns}/pods`, pod('downward-ok', (p) => {
    p.spec.volumes = [
      { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'a', fieldRef: { fieldPath: "metadata.annotations['x']" } }] } },
      { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 600 } }, { downwardAPI: { items: [{ path: 'mem', resourceFieldRef: { containerName: 'main', resource: 'limits.memory' } }] } }] } },
    ];
  })],
  ['IPv6 podCIDR', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'v6' }, spec: { podCIDR: 'fd00:10:244::/64', podCIDRs: ['fd00:10:244::/64'] } }],
  ['IPv4 EndpointSlice', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'v4' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }] }],
  ['FQDN EndpointSlice', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'fqdn' }, addressType: 'FQDN', endpoints: [{ addresses: ['web.example.com'] }] }],
];
for (const [name, path, body] of good) {
  t.test(`accepted: ${name}`, async (t) => {
    const res = await c.post(path, body);
    t.equal(res.status, 201, res.status === 201 ? 'created' : res.body.message);
  });
}
