// Hollow nodes as real clients see them: `capstan hollow-nodes --ca-dir` against an API
// server, driven with the real kubectl. Node addresses are loopback and distinct; `kubectl
// logs` of a hollow pod reaches the hollow kubelet API on that address (and no dial of the
// API server leaves the machine); `kubectl exec` fails with a clear message; a pod whose
// Secret is missing waits in ContainerCreating with a FailedMount event until the Secret
// appears; native sidecars keep running.
import t from 'tap';
import { request } from 'node:https';
import { join } from 'node:path';
import { createCA, issueCert, type KeyPair } from '../../src/pki/index.js';
import { startAPIServer } from '../helpers/api.js';
import { startHollowNodesProcess } from '../helpers/hollow-nodes-process.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { guardDials } from './dial-guard.js';

t.test('hollow nodes through the real API server and kubectl', { timeout: 120_000 }, async (t) => {
  const dials = guardDials(t);
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const prefix = `hk${process.pid}-`;
  const { match } = await startHollowNodesProcess(t, ['--kubeconfig', kubeconfig, '--count', '3', '--name-prefix', prefix,
    '--ca-dir', join(api.dir, 'pki'), '--heartbeat-interval', '2s'], /kubelet API on port (\d+)/);
  const kubeletPort = Number(match[1]);
  const k = kubectlFor(t, kubeconfig);
  const node0 = `${prefix}0`;
  // No controller-manager here: give the nodes their pod CIDRs as node IPAM would.
  for (let i = 0; i < 3; i++) await k.ok(['patch', 'node', `${prefix}${i}`, '--type=merge', '-p', JSON.stringify({ spec: { podCIDR: `10.244.${i}.0/24`, podCIDRs: [`10.244.${i}.0/24`] } })]);
  const pod = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: node0, ...spec } });
  const phase = async (name: string) => (await k.ok(['get', 'pod', name, '-o', 'jsonpath={.status.phase}'])).trim();

  t.test('node addresses are loopback, distinct, and advertise the kubelet port', async (t) => {
    const lines = (await k.ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.status.addresses[?(@.type=="InternalIP")].address} {.status.daemonEndpoints.kubeletEndpoint.Port}{"\\n"}{end}'])).trim().split('\n');
    t.equal(lines.length, 3);
    const ips = lines.map((l) => l.split(' ')[0]);
    for (const ip of ips) t.match(ip, /^127\.1\.\d+\.\d+$/, `${ip} is in 127.1.0.0/16`);
    t.equal(new Set(ips).size, 3, 'distinct');
    t.same(lines.map((l) => Number(l.split(' ')[1])), [kubeletPort, kubeletPort, kubeletPort]);
  });

  t.test('kubectl logs reaches the hollow kubelet on the node\'s loopback address', async (t) => {
    await k.ok(['create', '-f', '-'], pod('web', { containers: [{ name: 'main', image: 'nginx:1.27' }] }));
    await eventually(async () => (await phase('web')) === 'Running', 30_000, 'web Running');
    const ip = (await k.ok(['get', 'node', node0, '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}'])).trim();
    const before = dials.length;
    const line = `container "main" of pod default/web is hollow: hollow node ${node0} runs no processes, so it prints nothing else\n`;
    t.equal(await k.ok(['logs', 'web']), line);
    t.equal(await k.ok(['logs', 'web', '--tail=0']), '');
    t.match(await k.ok(['logs', 'web', '--timestamps']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z container "main"/);
    t.equal(await k.ok(['logs', 'web', '-f']), line, 'follow ends after the one line');
    t.equal(await k.ok(['logs', 'web', '--limit-bytes=9']), 'container');
    const prev = await k(['logs', 'web', '--previous']);
    t.not(prev.code, 0);
    t.match(prev.stderr, 'previous terminated container "main" in pod "web" not found');
    const kubeletDials = dials.slice(before).filter((d) => d.port === kubeletPort);
    t.ok(kubeletDials.length >= 5, 'the API server dialled the kubelet for each request');
    t.same([...new Set(kubeletDials.map((d) => d.host))], [ip], `only the node's own InternalIP ${ip}`);
  });

  t.test('the kubelet API wants a client certificate of the cluster CA, as the kubelet does', async (t) => {
    const ip = (await k.ok(['get', 'node', node0, '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}'])).trim();
    const healthz = (client?: KeyPair) => new Promise<string>((resolve) => {
      const req = request({ host: ip, port: kubeletPort, path: '/healthz', ca: api.pki.ca.certPem, cert: client?.certPem, key: client?.keyPem, agent: false }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => { body += d.toString(); });
        res.on('end', () => resolve(`${res.statusCode} ${body.trim()}`));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code ?? e.message}`));
      req.end();
    });
    t.equal(await healthz(api.pki.kubeletClient), '200 ok', 'the API server\'s kubelet client; the serving certificate holds the node\'s IP');
    t.match(await healthz(), /^error /, 'no client certificate: refused');
    t.match(await healthz(issueCert(createCA('elsewhere'), { commonName: 'intruder', usage: 'client' })), /^error /, 'another CA\'s certificate: refused');
  });

  t.test('kubectl exec, attach and port-forward fail with a clear message', async (t) => {
    const exec = await k(['exec', 'web', '--', 'true']);
    t.not(exec.code, 0);
    t.match(exec.stderr, `container "main" in pod "web" is hollow: hollow node ${node0} runs no processes, so there is nothing to exec into`);
    const attach = await k(['attach', 'web']);
    t.not(attach.code, 0);
    t.match(attach.stderr, 'so there is nothing to attach to');
    const forward = await k(['port-forward', 'pod/web', ':80', '--address=127.0.0.1']);
    t.not(forward.code, 0);
    t.match(forward.stderr, `pod "web" is hollow: hollow node ${node0} runs no processes, so there is nothing to forward ports to`);
  });

  t.test('a missing Secret volume keeps the pod in ContainerCreating with FailedMount until it exists', async (t) => {
    await k.ok(['create', '-f', '-'], pod('needs-secret', {
      containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'creds', mountPath: '/creds' }, { name: 'extra', mountPath: '/extra' }] }],
      volumes: [{ name: 'creds', secret: { secretName: 'db-creds' } }, { name: 'extra', configMap: { name: 'not-there', optional: true } }],
    }));
    const eventMessage = async () => (await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=needs-secret,reason=FailedMount', '-o', 'jsonpath={.items[*].message}'])).trim();
    await eventually(async () => (await eventMessage()) !== '', 30_000, 'a FailedMount event');
    t.equal(await eventMessage(), 'MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found', 'the optional ConfigMap does not block');
    const status = JSON.parse(await k.ok(['get', 'pod', 'needs-secret', '-o', 'json'])).status;
    t.equal(status.phase, 'Pending');
    t.same(status.containerStatuses.map((c: { name: string; state: { waiting?: { reason: string } }; ready: boolean }) => [c.name, c.state.waiting?.reason, c.ready]), [['app', 'ContainerCreating', false]]);
    t.match(await k.ok(['get', 'pod', 'needs-secret', '--no-headers']), /needs-secret\s+0\/1\s+ContainerCreating/);
    const logs = await k(['logs', 'needs-secret']);
    t.match(logs.stderr, 'container "app" in pod "needs-secret" is waiting to start: ContainerCreating');
    await k.ok(['create', 'secret', 'generic', 'db-creds', '--from-literal=password=x']);
    await eventually(async () => (await phase('needs-secret')) === 'Running', 30_000, 'needs-secret Running once the Secret exists');
  });

  t.test('native sidecars keep running; regular init containers completed', async (t) => {
    await k.ok(['create', '-f', '-'], pod('with-sidecar', {
      initContainers: [{ name: 'setup', image: 'busybox' }, { name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
      containers: [{ name: 'app', image: 'nginx' }],
    }));
    await eventually(async () => (await phase('with-sidecar')) === 'Running', 30_000, 'with-sidecar Running');
    const status = JSON.parse(await k.ok(['get', 'pod', 'with-sidecar', '-o', 'json'])).status;
    const brief = (c: { name: string; state: Record<string, { reason?: string }>; ready: boolean; started: boolean }) => {
      const [kind, s] = Object.entries(c.state)[0];
      return [c.name, kind, s.reason ?? '', c.ready, c.started];
    };
    t.same(status.initContainerStatuses.map(brief), [['setup', 'terminated', 'Completed', true, false], ['proxy', 'running', '', true, true]]);
    t.same(status.containerStatuses.map(brief), [['app', 'running', '', true, true]]);
  });

  t.test('no dial of this process left the machine', async (t) => {
    t.same(dials.filter((d) => d.refused), []);
  });
});
