// Real kubectl 1.32 imperative commands send protobuf bodies; check the objects they create by
// reading them back as JSON.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { envelope, msg, str } from '../helpers/protobuf-wire.js';

t.test('kubectl create with protobuf bodies', async (t) => {
  const s = await startAPIServer(t);
  const k = kubectlFor(t, writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`));
  const get = async (...args: string[]) => JSON.parse(await k.ok(['get', ...args, '-o', 'json']));

  t.test('namespace', async (t) => {
    t.match(await k.ok(['create', 'namespace', 'pb']), 'namespace/pb created');
    const ns = await get('namespace', 'pb');
    t.equal(ns.metadata.name, 'pb');
    t.equal(ns.status.phase, 'Active');
    t.notOk('generateName' in ns.metadata);
  });

  t.test('configmap --from-literal', async (t) => {
    await k.ok(['create', 'configmap', 'cfg', '-n', 'pb', '--from-literal=a=1', '--from-literal=empty=']);
    const cm = await get('configmap', 'cfg', '-n', 'pb');
    t.strictSame(cm.data, { a: '1', empty: '' });
    t.notOk('immutable' in cm);
  });

  t.test('configmap --from-file with a binary file goes to binaryData', async (t) => {
    const bin = join(s.dir, 'blob.bin'), text = join(s.dir, 'app.conf');
    writeFileSync(bin, Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    writeFileSync(text, 'key = value\n');
    await k.ok(['create', 'configmap', 'files', '-n', 'pb', `--from-file=${bin}`, `--from-file=${text}`]);
    const cm = await get('configmap', 'files', '-n', 'pb');
    t.strictSame(cm.data, { 'app.conf': 'key = value\n' });
    t.strictSame(cm.binaryData, { 'blob.bin': Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64') });
  });

  t.test('secret generic, tls, docker-registry', async (t) => {
    await k.ok(['create', 'secret', 'generic', 'gen', '-n', 'pb', '--from-literal=user=admin', '--from-literal=pw=s3cr3t']);
    const gen = await get('secret', 'gen', '-n', 'pb');
    t.equal(gen.type, 'Opaque');
    t.strictSame(gen.data, { user: Buffer.from('admin').toString('base64'), pw: Buffer.from('s3cr3t').toString('base64') });

    const cert = join(s.dir, 'tls.crt'), key = join(s.dir, 'tls.key');
    writeFileSync(cert, s.pki.serving.certPem);
    writeFileSync(key, s.pki.serving.keyPem);
    await k.ok(['create', 'secret', 'tls', 'web-tls', '-n', 'pb', `--cert=${cert}`, `--key=${key}`]);
    const tls = await get('secret', 'web-tls', '-n', 'pb');
    t.equal(tls.type, 'kubernetes.io/tls');
    t.equal(Buffer.from(tls.data['tls.crt'], 'base64').toString(), s.pki.serving.certPem);
    t.equal(Buffer.from(tls.data['tls.key'], 'base64').toString(), s.pki.serving.keyPem);

    await k.ok(['create', 'secret', 'docker-registry', 'pull', '-n', 'pb', '--docker-server=r.example.com', '--docker-username=u', '--docker-password=p']);
    const pull = await get('secret', 'pull', '-n', 'pb');
    t.equal(pull.type, 'kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(pull.data['.dockerconfigjson'], 'base64').toString());
    t.equal(config.auths['r.example.com'].username, 'u');
  });

  t.test('deployment --image --replicas=0 --port', async (t) => {
    await k.ok(['create', 'deployment', 'web', '-n', 'pb', '--image=nginx', '--replicas=0', '--port=80']);
    const d = await get('deployment', 'web', '-n', 'pb');
    t.equal(d.spec.replicas, 0, 'a present zero replicas is not defaulted to 1');
    t.strictSame(d.spec.selector, { matchLabels: { app: 'web' } });
    t.strictSame(d.spec.template.metadata.labels, { app: 'web' });
    const [c] = d.spec.template.spec.containers;
    t.equal(c.name, 'nginx');
    t.equal(c.image, 'nginx');
    t.strictSame(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    t.equal(d.spec.strategy.type, 'RollingUpdate');

    await k.ok(['create', 'deployment', 'two', '-n', 'pb', '--image=busybox']);
    t.equal((await get('deployment', 'two', '-n', 'pb')).spec.replicas, 1);
  });

  t.test('services: clusterip, nodeport, loadbalancer, externalname', async (t) => {
    await k.ok(['create', 'service', 'clusterip', 'cip', '-n', 'pb', '--tcp=80:8080']);
    const cip = await get('service', 'cip', '-n', 'pb');
    t.equal(cip.spec.type, 'ClusterIP');
    t.strictSame(cip.spec.selector, { app: 'cip' });
    t.match(cip.spec.ports, [{ name: '80-8080', port: 80, targetPort: 8080, protocol: 'TCP' }]);
    t.match(cip.spec.clusterIP, /^10\.\d+\.\d+\.\d+$/);

    await k.ok(['create', 'service', 'nodeport', 'np', '-n', 'pb', '--tcp=81:8081', '--node-port=30081']);
    const np = await get('service', 'np', '-n', 'pb');
    t.equal(np.spec.type, 'NodePort');
    t.match(np.spec.ports, [{ port: 81, targetPort: 8081, nodePort: 30081 }]);

    await k.ok(['create', 'service', 'nodeport', 'np-auto', '-n', 'pb', '--tcp=82:8082']);
    const auto = await get('service', 'np-auto', '-n', 'pb');
    t.ok(auto.spec.ports[0].nodePort >= 30000 && auto.spec.ports[0].nodePort <= 32767, 'a node port is allocated when none was asked for');

    await k.ok(['create', 'service', 'loadbalancer', 'lb', '-n', 'pb', '--tcp=83:8083']);
    t.equal((await get('service', 'lb', '-n', 'pb')).spec.type, 'LoadBalancer');

    await k.ok(['create', 'service', 'externalname', 'ext', '-n', 'pb', '--external-name=example.com']);
    const ext = await get('service', 'ext', '-n', 'pb');
    t.equal(ext.spec.type, 'ExternalName');
    t.equal(ext.spec.externalName, 'example.com');
  });

  t.test('serviceaccount', async (t) => {
    await k.ok(['create', 'serviceaccount', 'robot', '-n', 'pb']);
    const sa = await get('serviceaccount', 'robot', '-n', 'pb');
    t.equal(sa.metadata.name, 'robot');
    t.equal(sa.metadata.namespace, 'pb');
  });

  t.test('run and expose', async (t) => {
    await k.ok(['run', 'solo', '-n', 'pb', '--image=nginx', '--port=80', '--env=A=1', '--labels=app=solo', '--restart=Never']);
    const pod = await get('pod', 'solo', '-n', 'pb');
    t.strictSame(pod.metadata.labels, { app: 'solo' });
    t.equal(pod.spec.restartPolicy, 'Never');
    t.match(pod.spec.containers, [{ name: 'solo', image: 'nginx', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] }]);
    await k.ok(['expose', 'deployment', 'web', '-n', 'pb', '--port=90', '--target-port=80', '--name=web-exposed']);
    const svc = await get('service', 'web-exposed', '-n', 'pb');
    t.strictSame(svc.spec.selector, { app: 'web' });
    t.match(svc.spec.ports, [{ port: 90, targetPort: 80 }]);
  });

  t.test('auth whoami', async (t) => {
    t.match(await k.ok(['auth', 'whoami']), /kubernetes-admin/);
  });

  t.test('update and scale with protobuf bodies (client-go typed clients)', async (t) => {
    const pb = { contentType: 'application/vnd.kubernetes.protobuf' };
    const cm = await get('configmap', 'cfg', '-n', 'pb');
    const put = await s.client.request('PUT', '/api/v1/namespaces/pb/configmaps/cfg', {
      ...pb, body: envelope('v1', 'ConfigMap', msg(1, str(1, 'cfg'), str(3, 'pb'), str(6, cm.metadata.resourceVersion)), msg(2, str(1, 'b'), str(2, '2'))),
    });
    t.equal(put.status, 200, put.text);
    t.strictSame((await get('configmap', 'cfg', '-n', 'pb')).data, { b: '2' });
    const scale = await s.client.request('PUT', '/apis/apps/v1/namespaces/pb/deployments/two/scale', {
      ...pb, body: envelope('autoscaling/v1', 'Scale', msg(1, str(1, 'two'), str(3, 'pb')), msg(2, Buffer.from([0x08, 0x00]))),
    });
    t.equal(scale.status, 200, scale.text);
    t.equal((await get('deployment', 'two', '-n', 'pb')).spec.replicas, 0);
  });

  t.test('a protobuf body that does not decode is a 400 BadRequest', async (t) => {
    const whole = envelope('v1', 'ConfigMap', msg(1, str(1, 'x')));
    const truncated = whole.subarray(0, whole.indexOf('ConfigMap') + 12);
    const bad = await s.client.request('POST', '/api/v1/namespaces/pb/configmaps', { body: truncated, contentType: 'application/vnd.kubernetes.protobuf' });
    t.equal(bad.status, 400);
    t.equal(bad.body.reason, 'BadRequest');
    const unknown = await s.client.request('POST', '/api/v1/namespaces/pb/configmaps', { body: envelope('example.com/v1', 'Widget'), contentType: 'application/vnd.kubernetes.protobuf' });
    t.equal(unknown.status, 400);
    t.match(unknown.body.message, /Widget/);
  });
});
