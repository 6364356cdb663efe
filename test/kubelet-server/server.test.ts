// The kubelet's HTTPS server over FakeRuntime: who may connect, /healthz, /pods,
// /containerLogs (with follow ending when the container exits) and exec's refusals.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { eventually } from '../helpers/kubectl.js';
import { FakeRuntime } from '../../cri/index.js';
import { createCA, issueCert, type KeyPair } from '../../src/pki/index.js';
import { LABELS, startKubeletServer } from '../../src/kubelet/server/index.js';

const IMAGE = 'localhost/capstan/busybox:1';

t.test('kubelet server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-kubelet-server-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ca = createCA('test-ca');
  const client = issueCert(ca, { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'], usage: 'client' });
  const stranger = issueCert(createCA('other-ca'), { commonName: 'mallory', usage: 'client' });
  const cri = new FakeRuntime({ images: [IMAGE] });
  const srv = await startKubeletServer({
    cri, address: '127.0.0.1', port: 0, nodeName: 'node-a', clientCA: ca.certPem, logPollMs: 20,
    tls: issueCert(ca, { commonName: 'node-a', ipAddresses: ['127.0.0.1'], usage: 'server' }),
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as never,
  });
  t.teardown(() => srv.stop());

  const labels = { [LABELS.podNamespace]: 'default', [LABELS.podName]: 'web', [LABELS.podUID]: 'uid-1' };
  const sandbox = { metadata: { name: 'web', uid: 'uid-1', namespace: 'default', attempt: 0 }, log_directory: join(dir, 'web'), labels };
  const sb = await cri.runPodSandbox(sandbox);
  const mk = async (attempt: number) => {
    const id = await cri.createContainer(sb, { metadata: { name: 'main', attempt }, image: { image: IMAGE }, log_path: `main/${attempt}.log`, labels: { ...labels, [LABELS.containerName]: 'main' } }, sandbox);
    await cri.startContainer(id);
    return id;
  };
  mkdirSync(join(dir, 'web', 'main'), { recursive: true });
  const old = await mk(0);
  writeFileSync(join(dir, 'web', 'main', '0.log'), '2024-05-01T10:00:00Z stdout F crashed\n');
  cri.exitContainer(old, 1);
  const current = await mk(1);
  writeFileSync(join(dir, 'web', 'main', '1.log'), '2024-05-01T10:00:01Z stdout F a\n2024-05-01T10:00:02Z stderr F b\n');

  const get = (path: string, creds: KeyPair | null = client, onData?: (body: string) => void) => new Promise<{ code: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: srv.port, path, ca: ca.certPem, ...(creds ? { cert: creds.certPem, key: creds.keyPem } : {}), agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; onData?.(body); });
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

  t.test('only clients with a cluster-CA certificate get in', async (t) => {
    await t.rejects(get('/healthz', null), 'no certificate');
    await t.rejects(get('/healthz', stranger), 'certificate of another CA');
    t.same(await get('/healthz'), { code: 200, body: 'ok\n' });
  });

  t.test('/pods lists the pods from CRI sandboxes', async (t) => {
    const r = await get('/pods');
    t.equal(r.code, 200);
    t.match(JSON.parse(r.body), { kind: 'PodList', items: [{ metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec: { nodeName: 'node-a' } }] });
  });

  t.test('/containerLogs', async (t) => {
    const cases: [string, number, string][] = [
      ['/containerLogs/default/web/main', 200, 'a\nb\n'],
      ['/containerLogs/default/web/main?tailLines=1&timestamps=true', 200, '2024-05-01T10:00:02Z b\n'],
      ['/containerLogs/default/web/main?previous=true', 200, 'crashed\n'],
      ['/containerLogs/default/web/nope', 404, 'container "nope" in pod "web" is not available\n'],
      ['/containerLogs/default/other/main', 404, 'container "main" in pod "other" is not available\n'],
      ['/containerLogs/default/web/main?tailLines=-1', 400, 'tailLines: Invalid value: must be greater than or equal to 0\n'],
      ['/containerLogs/default/web', 400, 'expected /containerLogs/{namespace}/{pod}/{container}\n'],
      ['/nothing', 404, '404 page not found\n'],
    ];
    for (const [path, code, body] of cases) t.same(await get(path), { code, body }, path);
  });

  t.test('previous without an earlier container', async (t) => {
    const lone = { ...sandbox, metadata: { ...sandbox.metadata, name: 'lone', uid: 'uid-2' }, labels: { ...labels, [LABELS.podName]: 'lone', [LABELS.podUID]: 'uid-2' } };
    const sb2 = await cri.runPodSandbox(lone);
    const id = await cri.createContainer(sb2, { metadata: { name: 'main' }, image: { image: IMAGE }, log_path: 'x.log', labels: { ...lone.labels, [LABELS.containerName]: 'main' } }, lone);
    await cri.startContainer(id);
    t.same(await get('/containerLogs/default/lone/main?previous=true'), { code: 400, body: 'previous terminated container "main" in pod "lone" not found\n' });
  });

  t.test('follow streams until the container exits', async (t) => {
    let seen = '';
    const pending = get('/containerLogs/default/web/main?follow=true', client, (body) => { seen = body; });
    await eventually(() => seen === 'a\nb\n', 10_000, 'what the file held');
    appendFileSync(join(dir, 'web', 'main', '1.log'), '2024-05-01T10:00:03Z stdout F c\n');
    await eventually(() => seen === 'a\nb\nc\n', 10_000, 'the line written while following, before the container exits');
    cri.exitContainer(current, 0);
    t.same(await pending, { code: 200, body: 'a\nb\nc\n' });
  });

  t.test('exec refusals', async (t) => {
    const ws = (path: string, protocols = ['v5.channel.k8s.io']) => new Promise<{ code?: number; status?: string; open: boolean }>((resolve) => {
      const w = new WebSocket(`wss://127.0.0.1:${srv.port}${path}`, protocols, { ca: ca.certPem, cert: client.certPem, key: client.keyPem });
      w.on('unexpected-response', (_req, res) => resolve({ code: res.statusCode, open: false }));
      w.on('message', (m: Buffer) => { if (m[0] === 3) resolve({ status: JSON.parse(m.subarray(1).toString()).status, open: true }); });
      w.on('error', () => undefined);
    });
    t.same(await ws('/exec/default/web/main?command=true&stdout=true', ['base64.channel.k8s.io']), { code: 400, open: false }, 'unsupported subprotocol');
    t.same(await ws('/exec/default/web/main?stdout=true'), { code: 400, open: false }, 'no command');
    t.same(await ws('/exec/default/web/nope?command=true&stdout=true'), { code: 404, open: false }, 'unknown container');
    t.same(await ws('/exec/default/web/main?command=true&stdout=true'), { code: 400, open: false }, 'container not running');
    t.same(await ws('/exec/default/lone/main?command=true&stdout=true'), { status: 'Failure', open: true }, 'stream server unreachable: a Failure status');
    t.same(await get('/exec/default/web/main?command=true'), { code: 400, body: 'exec needs an upgrade (Upgrade: websocket with Sec-WebSocket-Protocol v5.channel.k8s.io, or SPDY/3.1)\n' });
  });

  t.test('port-forward refusals', async (t) => {
    /** A raw upgrade request; the status code and body of the answer. */
    const upgrade = (path: string, headers: string[]) => new Promise<{ code: number; body: string }>((resolve, reject) => {
      const c = tlsConnect({ host: '127.0.0.1', port: srv.port, ca: ca.certPem, cert: client.certPem, key: client.keyPem }, () => {
        c.write([`POST ${path} HTTP/1.1`, 'Host: kubelet', 'Connection: Upgrade', ...headers, 'Content-Length: 0', '', ''].join('\r\n'));
      });
      let got = '';
      c.on('data', (d) => { got += d; });
      c.on('end', () => resolve({ code: Number(got.split(' ')[1]), body: got.slice(got.indexOf('\r\n\r\n') + 4) }));
      c.on('error', reject);
    });
    const spdy = ['Upgrade: SPDY/3.1', 'X-Stream-Protocol-Version: portforward.k8s.io'];
    t.same(await upgrade('/portForward/default/absent', spdy), { code: 404, body: 'pod "absent" in namespace "default" has no running sandbox on this node\n' });
    const ws = await upgrade('/portForward/default/web', ['Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']);
    t.equal(ws.code, 400);
    t.match(ws.body, 'supported: v4.channel.k8s.io', 'a WebSocket without the channel protocol');
    // FakeRuntime's stream URL leads nowhere: the failure to reach it is the answer.
    const unreachable = await upgrade('/portForward/default/web', spdy);
    t.equal(unreachable.code, 400);
    t.match(unreachable.body, /ECONNREFUSED|connect/);
    t.same(await get('/portForward/default/web'), { code: 400, body: 'portForward needs an upgrade (Upgrade: SPDY/3.1, X-Stream-Protocol-Version: portforward.k8s.io)\n' });
  });
});
