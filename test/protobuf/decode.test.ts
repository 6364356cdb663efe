// Hand-built bodies for what kubectl's create commands do not exercise: pointer zeros, times,
// inlined structs, int-or-string, unknown fields and broken input.
import t from 'tap';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../../src/apiserver/protobuf/index.js';
import { MessageDecoder } from '../../src/apiserver/protobuf/decode.js';
import { messages } from '../../src/apiserver/protobuf/registry.js';
import { bytes, entry, envelope, fixed32, fixed64, int, msg, str, varint } from '../helpers/protobuf-wire.js';

const decode = (body: Buffer) => decodeKubernetesProtobuf(body).object as any;
// ObjectMeta with name only and the zero values gogo writes for the rest.
const meta = (name: string) => msg(1, str(1, name), str(2, ''), str(3, ''), int(7, 0), msg(8));

t.test('ObjectMeta: times, maps, owner references, managed fields', async (t) => {
  const body = envelope('v1', 'ConfigMap', msg(1,
    str(1, 'c'), str(3, 'ns'), str(5, 'uid-1'), int(7, 3),
    msg(8, int(1, 1796007225), int(2, 500)),
    msg(9, int(1, 1796007285)),
    int(10, 0),
    entry(11, 'app', str(2, 'web')),
    entry(12, 'note', str(2, '')),
    msg(13, str(1, 'Deployment'), str(3, 'web'), str(4, 'u2'), str(5, 'apps/v1'), int(6, true), int(7, false)),
    str(14, 'example.com/f'),
    msg(17, str(1, 'kubectl'), str(2, 'Apply'), str(3, 'v1'), msg(4, int(1, 1796007225)), str(6, 'FieldsV1'),
      msg(7, bytes(1, Buffer.from('{"f:data":{".":{}}}'))), str(8, '')),
  ));
  t.strictSame(decode(body).metadata, {
    name: 'c', namespace: 'ns', uid: 'uid-1', generation: 3,
    creationTimestamp: '2026-11-30T02:53:45Z',
    deletionTimestamp: '2026-11-30T02:54:45Z',
    deletionGracePeriodSeconds: 0,
    labels: { app: 'web' }, annotations: { note: '' },
    ownerReferences: [{ kind: 'Deployment', name: 'web', uid: 'u2', apiVersion: 'apps/v1', controller: true, blockOwnerDeletion: false }],
    finalizers: ['example.com/f'],
    managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2026-11-30T02:53:45Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {} } } }],
  });
});

t.test('ConfigMap binaryData and immutable=false survive; Secret stringData and type', async (t) => {
  const cm = decode(envelope('v1', 'ConfigMap', meta('c'), entry(3, 'bin', bytes(2, Buffer.from([0, 1, 2]))), int(4, false)));
  t.strictSame(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, binaryData: { bin: 'AAEC' }, immutable: false });
  const s = decode(envelope('v1', 'Secret', meta('s'), entry(4, 'k', str(2, 'v')), str(3, 'kubernetes.io/tls'), int(5, true)));
  t.strictSame(s, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' }, type: 'kubernetes.io/tls', immutable: true });
});

t.test('Deployment: pointer zeros are kept, non-pointer zeros dropped, int-or-string both ways', async (t) => {
  const probe = msg(10,
    msg(1, msg(2, str(1, '/healthz'), msg(2, int(1, 1), int(2, 0), str(3, 'http')), str(4, 'HTTP'))),
    int(2, 0), int(3, 1), int(4, 10), int(5, 1), int(6, 3));
  const container = msg(2, str(1, 'app'), str(2, 'img'), str(3, 'sh'), str(3, '-c'), str(5, ''),
    msg(7, str(1, 'FROM_CM'), str(2, ''), msg(3, msg(3, msg(1, str(1, 'cfg')), str(2, 'key'), int(3, false)))),
    msg(7, str(1, 'POD'), msg(3, msg(1, str(1, 'v1'), str(2, 'metadata.name')))),
    msg(8, entry(1, 'cpu', msg(2, str(1, '500m'))), entry(2, 'memory', msg(2, str(1, '64Mi')))),
    msg(9, str(1, 'data'), int(2, false), str(3, '/data')),
    probe,
    int(16, false), int(18, true));
  const podSpec = msg(2,
    msg(1, str(1, 'data'), msg(2, msg(2, str(1, '')))),
    msg(1, str(1, 'cfg'), msg(2, msg(19, msg(1, str(1, 'cm')), int(3, 420)))),
    container,
    str(3, 'Always'), int(4, 0), str(6, 'ClusterFirst'), entry(7, 'disk', str(2, 'ssd')), str(8, ''), int(11, false),
    msg(22, str(1, 'k'), str(2, 'Exists'), str(4, 'NoSchedule'), int(5, 0)));
  const body = envelope('apps/v1', 'Deployment', meta('d'), msg(2,
    int(1, 0),
    msg(2, entry(1, 'app', str(2, 'd'))),
    msg(3, msg(1, entry(11, 'app', str(2, 'd'))), podSpec),
    msg(4, str(1, 'RollingUpdate'), msg(2, msg(1, int(1, 0), int(2, 0)), msg(2, int(1, 1), str(3, '25%')))),
    int(5, 0), int(6, 0), int(7, false), int(9, 600)),
  msg(3));
  t.strictSame(decode(body).spec, {
    replicas: 0,
    selector: { matchLabels: { app: 'd' } },
    template: {
      metadata: { labels: { app: 'd' } },
      spec: {
        volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cm', defaultMode: 420 } }],
        containers: [{
          name: 'app', image: 'img', command: ['sh', '-c'],
          env: [
            { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'key', optional: false } } },
            { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          ],
          resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
          livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          tty: true,
        }],
        restartPolicy: 'Always', terminationGracePeriodSeconds: 0, dnsPolicy: 'ClusterFirst', nodeSelector: { disk: 'ssd' },
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 0 }],
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } },
    revisionHistoryLimit: 0,
    progressDeadlineSeconds: 600,
  });
});

t.test('Pod: exec and tcpSocket probes inline into the probe, projected volumes, negative numbers', async (t) => {
  const pod = decode(envelope('v1', 'Pod', meta('p'), msg(2,
    msg(1, str(1, 'proj'), msg(2, msg(26, msg(1, msg(4, str(1, 'aud'), int(2, 3600), str(3, 'token'))), msg(1, msg(1, msg(1, str(1, 's'))))))),
    msg(2, str(1, 'c'), msg(11, msg(1, msg(1, str(1, 'true'))), int(2, 5)), msg(22, msg(1, msg(3, msg(1, int(2, 8080)))), int(6, -1)),
      msg(12, msg(2, msg(4, int(1, 3))))),
    msg(14, int(2, 1000), int(3, true), int(5, 2000)))));
  t.strictSame(pod.spec, {
    volumes: [{ name: 'proj', projected: { sources: [{ serviceAccountToken: { audience: 'aud', expirationSeconds: 3600, path: 'token' } }, { secret: { name: 's' } }] } }],
    containers: [{
      name: 'c',
      readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5 },
      startupProbe: { tcpSocket: { port: 8080 }, failureThreshold: -1 },
      lifecycle: { preStop: { sleep: { seconds: 3 } } },
    }],
    securityContext: { runAsUser: 1000, runAsNonRoot: true, fsGroup: 2000 },
  });
});

t.test('Eviction with DeleteOptions and preconditions; ClusterRole aggregation; SelfSubjectAccessReview non-resource', async (t) => {
  const ev = decode(envelope('policy/v1', 'Eviction', msg(1, str(1, 'p'), str(3, 'ns')),
    msg(2, int(1, 0), msg(2, str(1, 'uid-9'), str(2, '42')), str(4, 'Background'), str(5, 'All'))));
  t.strictSame(ev, {
    apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'ns' },
    deleteOptions: { gracePeriodSeconds: 0, preconditions: { uid: 'uid-9', resourceVersion: '42' }, propagationPolicy: 'Background', dryRun: ['All'] },
  });
  const cr = decode(envelope('rbac.authorization.k8s.io/v1', 'ClusterRole', meta('agg'),
    msg(3, msg(1, entry(1, 'rbac.example.com/aggregate', str(2, 'true')), msg(2, str(1, 'tier'), str(2, 'In'), str(3, 'a'), str(3, 'b'))))));
  t.strictSame(cr.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }] });
  const sar = decode(envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', msg(1), msg(2, msg(2, str(1, '/healthz'), str(2, 'get')))));
  t.strictSame(sar.spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' } });
});

t.test('unknown fields of every wire type are skipped, packed repeated ints are read', async (t) => {
  const ns = decode(envelope('v1', 'Namespace',
    msg(1, str(1, 'x'), int(99, 7), fixed64(100), fixed32(101), str(102, 'later field')),
    msg(2, str(1, 'kubernetes'), msg(50, str(1, 'nested unknown'))),
    int(77, 1)));
  t.strictSame(ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' }, spec: { finalizers: ['kubernetes'] } });
  const pod = decode(envelope('v1', 'Pod', meta('p'), msg(2, msg(14, bytes(4, Buffer.concat([varint(1), varint(2), varint(300)]))))));
  t.strictSame(pod.spec.securityContext, { supplementalGroups: [1, 2, 300] });
});

t.test('broken bodies throw ProtobufDecodeError', async (t) => {
  const good = envelope('v1', 'Namespace', msg(1, str(1, 'x')));
  const bad: [string, Buffer][] = [
    ['empty', Buffer.alloc(0)],
    ['no magic', Buffer.from('{"kind":"Namespace"}')],
    ['truncated envelope', good.subarray(0, 10)],
    ['truncated object', Buffer.concat([good.subarray(0, 4), msg(1, str(1, 'v1'), str(2, 'Namespace')), Buffer.from([0x12, 0x10, 0x0a, 0x05])])],
    ['unknown kind', envelope('example.com/v1', 'Widget', meta('w'))],
    ['no kind', envelope('v1', '', meta('w'))],
    ['wrong wire type for a known field', envelope('v1', 'Namespace', msg(1, int(1, 5)))],
    ['group wire type', Buffer.concat([envelope('v1', 'Namespace'), Buffer.from([0x0b])])],
    ['varint overflow', Buffer.concat([envelope('v1', 'Namespace'), Buffer.from([0x08, ...Array(11).fill(0xff)])])],
    ['field number 0', envelope('v1', 'Namespace', Buffer.from([0x02, 0x00]))],
    ['fieldsV1 not JSON', envelope('v1', 'Namespace', msg(1, msg(17, msg(7, bytes(1, Buffer.from('{nope'))))))],
    ['gzip content encoding', Buffer.concat([envelope('v1', 'Namespace', meta('x')), str(3, 'gzip')])],
  ];
  for (const [what, body] of bad) t.throws(() => decodeKubernetesProtobuf(body), ProtobufDecodeError, what);
  for (let n = 5; n < good.length; n++) {
    try { decodeKubernetesProtobuf(good.subarray(0, n)); } catch (e) { if (!(e instanceof ProtobufDecodeError)) t.fail(`cut at ${n}: ${e}`); }
  }
});

t.test('every table resolves: each field names a scalar or a known message', async (t) => {
  const decoder = new MessageDecoder(messages);
  for (const name of Object.keys(messages)) t.doesNotThrow(() => decoder.decode(name, Buffer.alloc(0)), name);
});

t.test('PodSpec affinity', async (t) => {
  const term = (key: string, ...values: string[]) => msg(1, str(1, key), str(2, 'In'), ...values.map((v) => str(3, v)));
  const pod = decode(envelope('v1', 'Pod', meta('p'), msg(2, msg(18,
    msg(1, msg(1, msg(1, term('zone', 'a', 'b'))), msg(2, int(1, 10), msg(2, term('disk', 'ssd')))),
    msg(3, msg(2, int(1, 100), msg(2, msg(1, entry(1, 'app', str(2, 'web'))), str(3, 'kubernetes.io/hostname'))))))));
  t.strictSame(pod.spec.affinity, {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } }],
    },
  });
});

t.test('a Scale to zero keeps replicas: 0', async (t) => {
  const scale = decode(envelope('autoscaling/v1', 'Scale', meta('web'), msg(2, int(1, 0)), msg(3, int(1, 2), str(2, 'app=web'))));
  t.strictSame(scale, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 0 }, status: { replicas: 2, selector: 'app=web' } });
});
