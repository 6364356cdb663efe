import t, { type Test } from 'tap';
import { schemaFor } from '../../src/api/schemas.js';
import { pruneUnknownFields, strictDecodingMessage } from '../../src/api/fieldvalidation.js';

const deployment = schemaFor('apps', 'v1', 'Deployment')!;
const pod = schemaFor('', 'v1', 'Pod')!;
const configMap = schemaFor('', 'v1', 'ConfigMap')!;

const base = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{
          name: 'web', image: 'nginx',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
          resources: { requests: { cpu: 0.5, memory: '64Mi' }, limits: { cpu: '1' } },
          readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
        }],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
      },
    },
  },
});

t.test('a complete valid deployment has no unknown or invalid fields', async (t) => {
  const r = pruneUnknownFields(base(), deployment);
  t.same(r.unknown, []);
  t.same(r.invalid, []);
  t.same(r.object, base());
});

type Case = { name: string; mutate: (d: any) => void; unknown?: string[]; invalid?: string[]; check?: (o: any, t: Test) => void };
const cases: Case[] = [
  { name: 'unknown field in spec', mutate: (d) => { d.spec.foo = 1; }, unknown: ['spec.foo'], check: (o, t) => t.notOk('foo' in o.spec) },
  { name: 'unknown field under a container', mutate: (d) => { d.spec.template.spec.containers[0].foo = 'x'; },
    unknown: ['spec.template.spec.containers[0].foo'], check: (o, t) => t.notOk('foo' in o.spec.template.spec.containers[0]) },
  { name: 'unknown field in a second list element, deep', mutate: (d) => { d.spec.template.spec.containers[0].ports.push({ containerPort: 81, bogus: true }); },
    unknown: ['spec.template.spec.containers[0].ports[1].bogus'] },
  { name: 'unknown metadata field', mutate: (d) => { d.metadata.colour = 'red'; }, unknown: ['metadata.colour'] },
  { name: 'unknown top-level field', mutate: (d) => { d.extra = {}; }, unknown: ['extra'] },
  { name: 'several unknown fields keep document order', mutate: (d) => { d.spec.a = 1; d.spec.template.spec.b = 2; d.status = { c: 3 }; },
    unknown: ['spec.template.spec.b', 'spec.a', 'status.c'] },
  { name: 'map values are free-form keys', mutate: (d) => { d.metadata.annotations = { 'example.com/anything': 'v' }; } },
  { name: 'string where an integer belongs', mutate: (d) => { d.spec.replicas = '3'; }, invalid: ['spec.replicas'] },
  { name: 'fraction where an integer belongs', mutate: (d) => { d.spec.replicas = 1.5; }, invalid: ['spec.replicas'] },
  { name: 'object where a list belongs', mutate: (d) => { d.spec.template.spec.containers = { name: 'web' }; }, invalid: ['spec.template.spec.containers'] },
  { name: 'list where an object belongs', mutate: (d) => { d.spec.strategy = []; }, invalid: ['spec.strategy'] },
  { name: 'number where a label value string belongs', mutate: (d) => { d.metadata.labels.tier = 1; }, invalid: ['metadata.labels.tier'] },
  { name: 'int-or-string refuses a fraction and a boolean', mutate: (d) => { d.spec.strategy.rollingUpdate = { maxSurge: 0.5, maxUnavailable: true }; },
    invalid: ['spec.strategy.rollingUpdate.maxSurge', 'spec.strategy.rollingUpdate.maxUnavailable'] },
  { name: 'quantity accepts numbers and strings but not objects', mutate: (d) => { d.spec.template.spec.containers[0].resources.limits.memory = { gi: 1 }; },
    invalid: ['spec.template.spec.containers[0].resources.limits.memory'] },
  { name: 'null is the zero value, not an error', mutate: (d) => { d.spec.replicas = null; d.spec.template.spec.tolerations = null; } },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const d = base();
    c.mutate(d);
    const r = pruneUnknownFields(d, deployment);
    t.same(r.unknown, c.unknown ?? []);
    t.same(r.invalid.map((i) => i.path), c.invalid ?? []);
    for (const i of r.invalid) t.match(i.message, i.path, 'the message names the path');
    c.check?.(r.object, t);
  });
}

t.test('pruning returns a copy and leaves the input alone', async (t) => {
  const d: any = base();
  d.spec.foo = 1;
  const r: any = pruneUnknownFields(d, deployment);
  t.equal(d.spec.foo, 1);
  t.notOk('foo' in r.object.spec);
  t.equal(r.object.spec.template.spec.containers[0].image, 'nginx');
});

t.test('pod fields from every corner of PodSpec are known', async (t) => {
  const p = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u', controller: true }], finalizers: ['x'] },
    spec: {
      initContainers: [{ name: 'init', image: 'busybox', restartPolicy: 'Always', command: ['sh'] }],
      containers: [{
        name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'cm' }, prefix: 'P_' }],
        env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } }],
        volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true }],
        livenessProbe: { exec: { command: ['true'] } }, startupProbe: { grpc: { port: 9000 } }, readinessProbe: { tcpSocket: { port: 80 } },
        lifecycle: { preStop: { sleep: { seconds: 5 } } },
        securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
      }],
      volumes: [
        { name: 'a', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
        { name: 'b', configMap: { name: 'cm', items: [{ key: 'k', path: 'p' }] } },
        { name: 'c', secret: { secretName: 's', defaultMode: 0o400 } },
        { name: 'd', hostPath: { path: '/tmp', type: 'Directory' } },
        { name: 'e', persistentVolumeClaim: { claimName: 'pvc' } },
        { name: 'f', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
        { name: 'g', downwardAPI: { items: [{ path: 'cpu', resourceFieldRef: { containerName: 'c', resource: 'requests.cpu' } }] } },
      ],
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] } },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } } }] },
      },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { a: 'b' } } }],
      dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], options: [{ name: 'ndots', value: '2' }] },
      hostNetwork: false, serviceAccountName: 'sa', priority: 0, readinessGates: [{ conditionType: 'x' }], overhead: { cpu: '10m' },
      hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }], imagePullSecrets: [{ name: 'reg' }], nodeSelector: { os: 'linux' },
    },
    status: {
      phase: 'Running', podIP: '10.0.0.2', podIPs: [{ ip: '10.0.0.2' }], hostIP: '192.168.0.1', hostIPs: [{ ip: '192.168.0.1' }], qosClass: 'Burstable',
      startTime: '2024-01-01T00:00:00Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }],
      containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'i', imageID: 'x', state: { running: { startedAt: '2024-01-01T00:00:00Z' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error' } } }],
    },
  };
  const r = pruneUnknownFields(p, pod);
  t.same(r.unknown, []);
  t.same(r.invalid, []);
});

t.test('configmap binaryData and data are maps of strings', async (t) => {
  const r = pruneUnknownFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' }, binaryData: { x: 'AAE=' }, immutable: true, dta: {} }, configMap);
  t.same(r.unknown, ['dta']);
});

t.test('strict decoding message lists every unknown field', async (t) => {
  t.equal(strictDecodingMessage(['spec.foo', 'spec.bar']), 'strict decoding error: unknown field "spec.foo", unknown field "spec.bar"');
});
