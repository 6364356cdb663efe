// `capstan trace` with real kubectl against a real `capstan apiserver` process: the command
// runs unchanged through the recording proxy (client certificate and bearer token kubeconfigs,
// a streaming watch), and the waterfall lists the requests kubectl made with the stages the
// API server reported. Also as a kubectl plugin (`kubectl capstan trace`).
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capstanBin, startAPIServerProcess } from '../helpers/apiserver-process.js';
import { writeKubeconfig } from '../../src/client/kubeconfig.js';

const kubectl = '/usr/bin/kubectl';
const server = await startAPIServerProcess(t);
const dir = mkdtempSync(join(tmpdir(), 'capstan-trace-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      res({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The waterfall's block for the first request whose line starts with `head`: its stage names. */
function stagesOf(waterfall: string, head: RegExp): string[] | undefined {
  const lines = waterfall.split('\n');
  const i = lines.findIndex((l) => head.test(l));
  if (i < 0) return undefined;
  const out: string[] = [];
  for (const l of lines.slice(i + 1)) {
    const m = /^ {2}\s*(\S+)\s+[\d.]+ ms \|[ █]+\|$/.exec(l);
    if (!m) break;
    out.push(m[1]);
  }
  return out;
}

t.test('kubectl apply through capstan trace: the waterfall lists its requests with their stages', async (t) => {
  const manifest = join(dir, 'cm.yaml');
  writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: traced\ndata:\n  a: b\n');
  const r = await run(process.execPath, [capstanBin, 'trace', '--kubeconfig', server.kubeconfig, '--', kubectl, 'apply', '-f', manifest]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, 'configmap/traced created');
  t.match(r.stderr, /^capstan trace: \d+ requests; bars are scaled/m);
  t.match(r.stderr, /^GET \/api\/v1\/namespaces\/default\/configmaps\/traced 404 [\d.]+ ms \(server [\d.]+ ms\)$/m, 'kubectl looked for the object first');
  t.match(r.stderr, /^GET \/api(\?|\/v1)/m, 'discovery');
  const create = stagesOf(r.stderr, /^POST \/api\/v1\/namespaces\/default\/configmaps\?fieldManager=kubectl-client-side-apply.* 201 /);
  t.ok(create, r.stderr);
  for (const stage of ['authn', 'authz', 'decode', 'admission.mutating.MutatingAdmissionWebhook', 'admission.validating.NamespaceLifecycle', 'admission.validating.ValidatingAdmissionWebhook', 'validation', 'storage.create', 'watch', 'encode']) {
    t.ok(create?.includes(stage), `the create shows ${stage}`);
  }
  const get = await run(kubectl, ['--kubeconfig', server.kubeconfig, 'get', 'configmap', 'traced', '-o', 'jsonpath={.data.a}']);
  t.equal(get.stdout, 'b', 'the object is really there');
});

t.test('a bearer-token kubeconfig and a streaming watch pass through the proxy', async (t) => {
  const token = readFileSync(server.pki.tokenFile, 'utf8').split(',')[0];
  const tokenConfig = join(dir, 'token.kubeconfig');
  writeKubeconfig(tokenConfig, { server: server.url, caPem: server.pki.ca.certPem, token });
  const get = await run(process.execPath, [capstanBin, 'trace', '--kubeconfig', tokenConfig, '--', kubectl, 'get', 'configmap', 'traced', '-o', 'jsonpath={.data.a}']);
  t.equal(get.code, 0, get.stderr);
  t.equal(get.stdout, 'b');
  t.strictSame(stagesOf(get.stderr, /^GET \/api\/v1\/namespaces\/default\/configmaps\/traced 200 /), ['authn', 'authz', 'read', 'encode']);

  // The watch ends when kubectl's request timeout does; what it printed came through the stream.
  const watch = await run(process.execPath, [capstanBin, 'trace', '--kubeconfig', tokenConfig, '--', kubectl, 'get', 'configmaps', '--watch', '--request-timeout=3s']);
  t.match(watch.stdout, /^traced\s+1\s+/m, watch.stderr);
  t.match(watch.stderr, /^GET \/api\/v1\/namespaces\/default\/configmaps\?.*watch=true.* 200 /m, 'the watch request is in the waterfall');
});

t.test('as a kubectl plugin: kubectl capstan trace', async (t) => {
  const path = join(dir, 'plugins');
  rmSync(path, { recursive: true, force: true });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(path);
  symlinkSync(capstanBin, join(path, 'kubectl-capstan'));
  const r = await run(kubectl, ['capstan', 'trace', '--kubeconfig', server.kubeconfig, '--', kubectl, 'get', 'namespace', 'default', '-o', 'name'], { PATH: `${path}:${process.env.PATH}` });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout.trim(), 'namespace/default');
  t.match(r.stderr, /^GET \/api\/v1\/namespaces\/default 200 /m);
});

t.test('capstan up passes --server-timing and --slow-request-threshold to its API server', async (t) => {
  const { startCapstanUp } = await import('../helpers/capstan-up.js');
  const up = await startCapstanUp(t, ['--no-node', '--server-timing', '--slow-request-threshold', '0.001ms']);
  const r = await run(kubectl, ['--kubeconfig', up.kubeconfig, 'get', '--raw', '/api/v1/namespaces/default', '-v=8']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, /Server-Timing: authn;dur=[\d.]+;start=[\d.]+, authz;dur=.*read;dur=.*total;dur=/, 'every reply carries Server-Timing');
  const line = up.stderr().split('\n').find((l) => l.includes('Trace[') && l.includes('url:/api/v1/namespaces/default,'));
  t.ok(line, 'a request over the threshold (1 µs) is logged as slow, with its stages');
  t.match(line, /authn [\d.]+ms, authz [\d.]+ms, read [\d.]+ms/);
});
