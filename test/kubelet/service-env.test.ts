// The Service variables the kubelet gives containers, as upstream's kubelet names them.
import t from 'tap';
import { servicesForPod, serviceEnvVars } from '../../src/kubelet/service-env.js';
import { containerEnv } from '../../src/kubelet/env.js';
import type { Pod, Service } from '../../src/api/kinds.js';

const svc = (namespace: string, name: string, clusterIP: string, ports: { name?: string; port: number; protocol?: string }[]) =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, spec: { clusterIP, ports } }) as unknown as Service;
const pod = (namespace: string, enableServiceLinks?: boolean) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name: 'p' }, spec: { containers: [], ...(enableServiceLinks === undefined ? {} : { enableServiceLinks }) } }) as unknown as Pod;

const kubernetes = svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]);
const web = svc('team', 'my-web', '10.96.0.20', [{ name: 'http', port: 80 }, { name: 'dns-udp', port: 53, protocol: 'UDP' }]);
const headless = svc('team', 'headless', 'None', [{ port: 80 }]);
const elsewhere = svc('other', 'db', '10.96.0.30', [{ port: 5432 }]);

t.test('which Services: the pod\'s namespace (unless enableServiceLinks: false) and always kubernetes', async (t) => {
  const all = [kubernetes, web, headless, elsewhere];
  t.strictSame(servicesForPod(pod('team'), all).map((s) => s.metadata.name), ['kubernetes', 'my-web']);
  t.strictSame(servicesForPod(pod('team', false), all).map((s) => s.metadata.name), ['kubernetes']);
  t.strictSame(servicesForPod(pod('default', false), all).map((s) => s.metadata.name), ['kubernetes']);
});

t.test('the variables of a Service', async (t) => {
  t.strictSame(Object.fromEntries(serviceEnvVars([kubernetes])), {
    KUBERNETES_SERVICE_HOST: '10.96.0.1',
    KUBERNETES_SERVICE_PORT: '443',
    KUBERNETES_SERVICE_PORT_HTTPS: '443',
    KUBERNETES_PORT: 'tcp://10.96.0.1:443',
    KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
    KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
    KUBERNETES_PORT_443_TCP_PORT: '443',
    KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
  });
  const vars = serviceEnvVars([web]);
  t.equal(vars.get('MY_WEB_SERVICE_PORT_DNS_UDP'), '53', 'dashes become underscores');
  t.equal(vars.get('MY_WEB_PORT'), 'tcp://10.96.0.20:80', 'the first port only');
  t.equal(vars.get('MY_WEB_PORT_53_UDP'), 'udp://10.96.0.20:53');
});

t.test('in the container\'s environment: after env, which wins; $(VAR) may name them', async (t) => {
  const env = await containerEnv({
    pod: pod('team'), facts: { podIP: '', podIPs: [], hostIP: '', nodeName: '' }, allocatable: { cpu: 1, memory: 1 },
    objects: { configMap: async () => undefined, secret: async () => undefined },
    container: { name: 'c', env: [{ name: 'KUBERNETES_SERVICE_PORT', value: '6443' }, { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST)' }] },
    serviceEnv: serviceEnvVars([kubernetes]),
  });
  const m = new Map(env.map((e) => [e.key, e.value]));
  t.equal(m.get('KUBERNETES_SERVICE_PORT'), '6443', 'the container\'s own value');
  t.equal(m.get('URL'), 'https://10.96.0.1');
  t.equal(m.get('KUBERNETES_SERVICE_HOST'), '10.96.0.1');
  t.strictSame(env.slice(0, 2).map((e) => e.key), ['KUBERNETES_SERVICE_PORT', 'URL'], 'the Service variables come last');
});
