// kubectl over HTTP/2: client-go offers h2 by ALPN and gets it from capstan's API server for
// requests and watches, while its streams (exec, port-forward: WebSocket or SPDY, which Go
// dials with http/1.1 only) still reach the server as HTTP/1.1 upgrades. What each kubectl
// command spoke is read from the server's capstan_apiserver_connections_total{protocol}
// (fetched with `kubectl get --raw`, itself over h2). First against `capstan apiserver` with
// kubectl 1.32 and 1.27 (get, apply, get -w, delete, and exec reaching the upgrade path over
// HTTP/1.1); then, as root, on a real node of
// `capstan up` in a network namespace of its own: logs, exec and port-forward.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startAPIServerProcess } from '../helpers/apiserver-process.js';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { eventually, kubectlFor, type Kubectl } from '../helpers/kubectl.js';
import { httpGetIn } from '../helpers/netns-http.js';

const root = process.getuid?.() === 0;
const VERSIONS: [string, string][] = [['1.32', '/usr/bin/kubectl'], ['1.27', '/usr/lib/google-cloud-sdk/bin/kubectl.1.27']];

/** The server's connections so far, by the protocol ALPN chose. */
async function connections(k: Kubectl): Promise<{ h2: number; http1: number }> {
  const text = await k.ok(['get', '--raw', '/metrics']);
  const count = (p: string) => Number(new RegExp(`^capstan_apiserver_connections_total\\{protocol="${p}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { h2: count('h2'), http1: count('http\\/1\\.1') };
}

t.test('kubectl get, apply, get -w and delete over HTTP/2', { timeout: 300_000 }, async (t) => {
  const p = await startAPIServerProcess(t);
  t.teardown(() => p.stop());
  for (const [v, binary] of VERSIONS) {
    await t.test(`kubectl ${v}`, async (t) => {
      const k = kubectlFor(t, p.kubeconfig, { binary });
      t.match(await k.ok(['version', '--client']), new RegExp(`v${v.replace('.', '\\.')}\\.`));
      const before = await connections(k);
      t.ok(before.h2 >= 1, 'kubectl get --raw itself spoke h2');
      const ns = `h2-${v.replace('.', '-')}`;
      await k.ok(['create', 'namespace', ns]);
      const watch = k.background(['get', 'configmaps', '-n', ns, '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name} {.object.data.v}{"\\n"}']);
      await k.ok(['apply', '-n', ns, '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {v: one}\n`);
      await k.ok(['apply', '-n', ns, '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {v: two}\n`);
      const got = await k(['get', 'configmap', 'cm', '-n', ns, '-o', 'jsonpath={.data.v}', '-v=6']);
      t.equal(got.code, 0, got.stderr);
      t.equal(got.stdout, 'two');
      t.match(got.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/[^ ]+\/configmaps\/cm 200 OK/);
      await eventually(() => /MODIFIED cm two/.test(watch.output()), 30_000, 'the watch saw the second apply');
      t.match(watch.output(), /ADDED cm one/);
      await k.ok(['delete', 'configmap', 'cm', '-n', ns]);
      await eventually(() => /DELETED cm/.test(watch.output()), 30_000, 'the watch saw the delete');
      await watch.stop();
      const after = await connections(k);
      t.ok(after.h2 > before.h2, `kubectl's connections were h2 (${before.h2} → ${after.h2})`);
      t.equal(after.http1, before.http1, 'and none was HTTP/1.1');
      // exec is an upgrade, dialled offering http/1.1 only. With no node here the upgrade
      // path answers with a Status of its own; over h2 it would be "Upgrade request required".
      await k.ok(['apply', '-n', ns, '-f', '-'], `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: busybox}]}\n`);
      const exec = await k(['exec', '-n', ns, 'p', '--', 'true']);
      t.match(exec.stderr, /pod p does not have a host assigned/, 'exec reached the upgrade handler');
      t.ok((await connections(k)).http1 > after.http1, 'on an HTTP/1.1 connection');
      await k.ok(['delete', 'namespace', ns, '--wait=false']);
    });
  }
});

t.test('kubectl logs, exec and port-forward beside HTTP/2 on a real node', { skip: root ? false : 'needs root', timeout: 600_000 }, async (t) => {
  const netns = `capstan-h2-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ } });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  addNodeUplink(netns);
  const up = await startCapstanUp(t, ['--node-name', 'node-h2'], { netns });
  const k = kubectlFor(t, up.kubeconfig, { netns });
  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-h2', '--no-headers'])), 90_000, 'node Ready');
  await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: httpd
    image: localhost/capstan/busybox:1
    command: [sh, -c, 'mkdir -p /www && echo hello over h2 > /www/index.html && echo started-web && exec httpd -f -p 8080 -h /www']
    readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
`);
  await k.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=180s']);
  for (const [v, binary] of VERSIONS) {
    await t.test(`kubectl ${v}`, async (t) => {
      const kv = kubectlFor(t, up.kubeconfig, { netns, binary });
      const before = await connections(kv);
      // The node's components connect too (HTTP/1.1, capstan's own client): HTTP/1.1 counts
      // can only be asserted to grow.
      t.match(await kv.ok(['logs', 'web']), /started-web/, 'logs (a streamed GET)');
      const afterLogs = await connections(kv);
      t.equal(await kv.ok(['exec', 'web', '--', 'sh', '-c', 'echo exec-$((6*7))']), 'exec-42\n');
      const afterExec = await connections(kv);
      t.ok(afterExec.http1 > afterLogs.http1, `exec upgraded an HTTP/1.1 connection (${v === '1.27' ? 'SPDY' : 'WebSocket'})`);
      const pf = kv.background(['port-forward', 'pod/web', ':8080']);
      let port = 0;
      await eventually(() => {
        const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(pf.output());
        if (m) port = Number(m[1]);
        return port > 0 || /error/i.test(pf.output());
      }, 30_000, `kubectl ${v} port-forward listening`);
      t.ok(port, `port-forward listens: ${pf.output()}`);
      if (port) t.equal((await httpGetIn(netns, `http://127.0.0.1:${port}/`)).body, 'hello over h2\n', 'a page through port-forward');
      await pf.stop();
      const after = await connections(kv);
      t.ok(after.http1 > afterExec.http1, 'port-forward upgraded an HTTP/1.1 connection');
      t.ok(after.h2 > before.h2, 'the rest spoke h2');
    });
  }
});
