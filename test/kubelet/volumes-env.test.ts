// Volumes on disk, container env, DNS and container config mapping.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setUpVolumes } from '../../src/kubelet/volumes.js';
import { containerEnv, expand, type ObjectSource } from '../../src/kubelet/env.js';
import { podDNSConfig } from '../../src/kubelet/sandbox-config.js';
import { linuxResources } from '../../src/kubelet/container-config.js';
import { qosClass } from '../../src/kubelet/pod-spec.js';
import type { KubeObject } from '../../src/api/object.js';

const objects = (cms: Record<string, any>, secrets: Record<string, any> = {}): ObjectSource => ({
  configMap: async (_ns, name) => cms[name],
  secret: async (_ns, name) => secrets[name],
});

t.test('configMap and secret volumes: keys, items, modes, updates, stale keys removed', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'capstan-kubelet-vol-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const pod: KubeObject = {
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: {
      volumes: [
        { name: 'cfg', configMap: { name: 'cfg' } },
        { name: 'picked', configMap: { name: 'cfg', items: [{ key: 'a', path: 'sub/a.txt', mode: 0o600 }] } },
        { name: 'sec', secret: { secretName: 's', defaultMode: 0o400 } },
        { name: 'scratch', emptyDir: {} },
      ],
    },
  };
  const cms: Record<string, any> = { cfg: { data: { a: 'one', b: 'two' } } };
  let vols = await setUpVolumes({ root, pod, objects: objects(cms, { s: { data: { token: Buffer.from('secret!').toString('base64') } } }) });
  t.equal(readFileSync(join(vols.get('cfg')!, 'a'), 'utf8'), 'one');
  t.equal(readFileSync(join(vols.get('picked')!, 'sub/a.txt'), 'utf8'), 'one');
  t.equal(statSync(join(vols.get('picked')!, 'sub/a.txt')).mode & 0o777, 0o600);
  t.notOk(existsSync(join(vols.get('picked')!, 'b')));
  t.equal(readFileSync(join(vols.get('sec')!, 'token'), 'utf8'), 'secret!');
  t.equal(statSync(join(vols.get('sec')!, 'token')).mode & 0o777, 0o400);
  t.match(vols.get('scratch'), /pods\/u1\/volumes\/kubernetes.io~empty-dir\/scratch$/);
  cms.cfg = { data: { a: 'uno' } };
  vols = await setUpVolumes({ root, pod, objects: objects(cms, { s: { data: {} } }) });
  t.equal(readFileSync(join(vols.get('cfg')!, 'a'), 'utf8'), 'uno', 'updated');
  t.notOk(existsSync(join(vols.get('cfg')!, 'b')), 'removed key is gone');
  await t.rejects(setUpVolumes({ root, pod, objects: objects({}) }), { message: 'configmap "cfg" not found', volume: 'cfg' });
});

t.test('env: envFrom, refs, downward API, $(VAR) expansion, missing refs', async (t) => {
  const pod: KubeObject = { metadata: { name: 'p', namespace: 'ns1', uid: 'u1', labels: { app: 'web', tier: 'x' } }, spec: { nodeName: 'n1' } };
  const container = {
    name: 'c', resources: { limits: { memory: '64Mi' }, requests: { cpu: '250m' } },
    envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }],
    env: [
      { name: 'A', value: 'x' }, { name: 'B', value: '$(A)-$(MISSING)-$$(A)' },
      { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
      { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 't' } } },
      { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k', optional: true } } },
    ],
  };
  const env = await containerEnv({
    pod, container, facts: { podIP: '10.1.2.3', podIPs: ['10.1.2.3'], hostIP: '192.0.2.1', nodeName: 'n1' },
    objects: objects({ cfg: { data: { k1: 'v1' } } }, { s: { data: { t: Buffer.from('tok').toString('base64') } } }), allocatable: { cpu: 4, memory: 2 ** 33 },
  });
  t.same(Object.fromEntries(env.map((e) => [e.key, e.value])), {
    CFG_k1: 'v1', A: 'x', B: 'x-$(MISSING)-$(A)', IP: '10.1.2.3', NODE: 'n1', APP: 'web', MEM: '64', CPU: '250', TOKEN: 'tok',
  });
  await t.rejects(containerEnv({
    pod, container: { name: 'c', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'absent' } } }] },
    facts: { podIP: '', podIPs: [], hostIP: '', nodeName: '' }, objects: objects({ cfg: { data: {} } }), allocatable: { cpu: 1, memory: 1 },
  }), { message: "couldn't find key absent in ConfigMap ns1/cfg" });
  t.equal(expand('$(A)$(A', new Map([['A', '1']])), '1$(A');
});

t.test('DNS per dnsPolicy', async (t) => {
  const base = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf: '/nonexistent' };
  const p = (spec: any) => ({ metadata: { name: 'p', namespace: 'team' }, spec });
  t.same(podDNSConfig(p({}), base), { servers: ['10.96.0.10'], searches: ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] });
  t.same(podDNSConfig(p({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.b'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] } }), base),
    { servers: ['1.1.1.1'], searches: ['a.b'], options: ['ndots:2', 'edns0'] });
  t.same(podDNSConfig(p({ dnsPolicy: 'Default' }), base), { servers: [], searches: [], options: [] });
  t.same(podDNSConfig(p({ dnsPolicy: 'ClusterFirst', dnsConfig: { options: [{ name: 'ndots', value: '1' }] } }), base).options, ['ndots:1']);
});

t.test('resources → Linux values, QoS class', async (t) => {
  t.same(linuxResources({ resources: { requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '128Mi' } } }),
    { cpu_shares: 256, cpu_period: 100_000, cpu_quota: 50_000, memory_limit_in_bytes: 128 * 2 ** 20 });
  t.same(linuxResources({}), { cpu_shares: 2 });
  t.equal(qosClass({ metadata: {}, spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: '1Gi' } } }] } }), 'Guaranteed');
  t.equal(qosClass({ metadata: {}, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } }), 'Burstable');
  t.equal(qosClass({ metadata: {}, spec: { containers: [{ name: 'c' }] } }), 'BestEffort');
});
