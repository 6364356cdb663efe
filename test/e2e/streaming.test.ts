// Streams into pods with every kubectl this machine has (1.27–1.33), on one real node:
// `capstan up` (API server, controllers, scheduler, containerd, kubelet) in a network
// namespace of its own. Per version: exec (SPDY/3.1 for 1.27–1.29, WebSocket v5 after),
// cp both ways (tar over exec), port-forward to a pod and to a Service (SPDY, or SPDY
// tunnelled in WebSocket from 1.31 on), attach -it and run -it --rm on a terminal with a
// resize; and the Python client's WebSocket port-forward. Port-forward reaches only the pods
// of this namespace, through kubectl's listener on the namespace's own loopback.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { addNodeUplink } from '../helpers/fake-uplink.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { runOnPty } from '../helpers/pty.js';
import { httpGetIn as httpGet } from '../helpers/netns-http.js';

const root = process.getuid?.() === 0;
const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
const kubectlBinary = (v: string) => `/usr/lib/google-cloud-sdk/bin/kubectl.${v}`;

t.test('exec, cp, port-forward, attach and run -it with kubectl 1.27–1.33', { skip: root ? false : 'needs root', timeout: 900_000 }, async (t) => {
  const netns = `capstan-stream-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', netns]);
  t.teardown(() => { try { execFileSync('ip', ['netns', 'del', netns]); } catch { /* gone */ } });
  execFileSync('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  addNodeUplink(netns);
  const up = await startCapstanUp(t, ['--node-name', 'node-s'], { netns });
  const k = kubectlFor(t, up.kubeconfig, { netns });
  const local = mkdtempSync(join(tmpdir(), 'capstan-stream-'));
  t.teardown(() => rmSync(local, { recursive: true, force: true }));

  await eventually(async () => / Ready /.test(await k.ok(['get', 'node', 'node-s', '--no-headers'])), 60_000, 'node Ready');
  await k.ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: httpd
    image: localhost/capstan/busybox:1
    command: [sh, -c, 'mkdir -p /www && echo hello from web > /www/index.html && dd if=/dev/urandom of=/www/big.bin bs=1024 count=2048 2>/dev/null && exec httpd -f -p 8080 -h /www']
    ports: [{name: http, containerPort: 8080}]
    readinessProbe: {httpGet: {path: /big.bin, port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: websvc}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Pod
metadata: {name: term}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: main, image: localhost/capstan/busybox:1, command: [sh], stdin: true, tty: true}]
`);
  await k.ok(['wait', '--for=condition=Ready', 'pod/web', 'pod/term', '--timeout=120s']);
  const bigSum = (await k.ok(['exec', 'web', '--', 'sha256sum', '/www/big.bin'])).split(' ')[0];
  t.match(bigSum, /^[0-9a-f]{64}$/);

  // What kubectl cp copies in: a file and a directory tree with a binary file.
  const src = join(local, 'src');
  mkdirSync(join(src, 'tree', 'sub'), { recursive: true });
  writeFileSync(join(src, 'note.txt'), 'a note from the host\n');
  const binary = randomBytes(300_000);
  writeFileSync(join(src, 'tree', 'sub', 'data.bin'), binary);
  writeFileSync(join(src, 'tree', 'top.txt'), 'top\n');
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  await t.test('the Python client forwards ports over the WebSocket channel protocol', async (t) => {
    // Debian's python3-kubernetes: v4.channel.k8s.io on pods/portforward?ports=…, straight to the kubelet.
    const script = `
import sys
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config(sys.argv[1])
port = int(sys.argv[2])
pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'web', 'default', ports=str(port))
s = pf.socket(port)
s.setblocking(True)
s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n')
data = b''
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
print(data.decode('latin1').split('\\r\\n\\r\\n', 1)[-1] + '|' + str(pf.error(port)))`;
    const py = (port: number) => execFileSync('nsenter', [`--net=/run/netns/${netns}`, '/usr/bin/python3', '-c', script, up.kubeconfig, String(port)], { encoding: 'utf8', timeout: 60_000 });
    t.equal(py(8080), 'hello from web\n|None\n', 'the page, no error');
    t.match(py(9999), /^\|error forwarding port 9999 to pod .*connection refused/, 'a closed port: the runtime\'s error on the error channel');
  });

  for (const v of VERSIONS) {
    await t.test(`kubectl ${v}`, async (t) => {
      const bin = kubectlBinary(v);
      if (!existsSync(bin)) return t.fail(`${bin} is missing`);
      const kv = kubectlFor(t, up.kubeconfig, { netns, binary: bin });
      const minor = Number(v.split('.')[1]);

      await t.test('exec: stdout, stderr, exit code and stdin', async (t) => {
        const r = await kv(['exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
        t.equal(r.code, 3, r.stderr);
        t.equal(r.stdout, 'out\n');
        t.match(r.stderr, /^err\n/);
        t.match(r.stderr, 'command terminated with exit code 3');
        const input = 'y'.repeat(150_000) + '\n';
        const wc = await kv(['exec', '-i', 'web', '--', 'wc', '-c'], input);
        t.same([wc.code, wc.stdout.trim()], [0, String(input.length)], wc.stderr);
        // Which protocol carried it: SPDY before 1.30, WebSocket (no fallback) from 1.30 on.
        const verbose = await kv(['exec', 'web', '-v=7', '--', 'true']);
        t.equal(verbose.code, 0, 'exec -v=7 succeeds');
        if (minor >= 30) {
          t.match(verbose.stderr, 'The subprotocol is v5.channel.k8s.io', 'WebSocket v5');
          t.notMatch(verbose.stderr, /fallback/i, 'no fallback to SPDY');
        } else {
          t.match(verbose.stderr, /POST https:\S+\/pods\/web\/exec\?/, 'SPDY (a POST upgrade)');
          t.match(verbose.stderr, 'X-Stream-Protocol-Version: v4.channel.k8s.io');
        }
      });

      await t.test('cp into the pod and back out', async (t) => {
        await kv.ok(['cp', join(src, 'note.txt'), `web:/tmp/note-${v}.txt`]);
        t.equal(await kv.ok(['exec', 'web', '--', 'cat', `/tmp/note-${v}.txt`]), 'a note from the host\n');
        await kv.ok(['cp', join(src, 'tree'), `web:/tmp/tree-${v}`]);
        t.equal((await kv.ok(['exec', 'web', '--', 'sha256sum', `/tmp/tree-${v}/sub/data.bin`])).split(' ')[0], sha(binary));
        const back = join(local, `back-${v}`);
        await kv.ok(['cp', `web:/tmp/tree-${v}`, back]);
        t.equal(sha(readFileSync(join(back, 'sub', 'data.bin'))), sha(binary), 'the binary file came back whole');
        t.equal(readFileSync(join(back, 'top.txt'), 'utf8'), 'top\n');
        await kv.ok(['cp', 'web:/www/big.bin', join(local, `big-${v}.bin`)]);
        t.equal(sha(readFileSync(join(local, `big-${v}.bin`))), bigSum, '2 MiB out of the pod');
      });

      await t.test('port-forward to a pod and to a Service', async (t) => {
        for (const target of ['pod/web', 'svc/websvc']) {
          const remote = target === 'pod/web' ? '8080' : '80';
          const pf = kv.background(['port-forward', '-v=6', target, `:${remote}`]);
          let port = 0;
          await eventually(() => {
            const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(pf.output());
            if (m) port = Number(m[1]);
            return port > 0 || /error/i.test(pf.output());
          }, 30_000, `kubectl ${v} port-forward ${target} listening`);
          if (!port) {
            t.fail(`kubectl port-forward ${target} did not listen: ${pf.output()}`);
            continue;
          }
          const small = await httpGet(netns, `http://127.0.0.1:${port}/`);
          t.same([small.status, small.body], [200, 'hello from web\n'], `${target}: the page`);
          // Two connections at once through one session, one of them 2 MiB.
          const [big, again] = await Promise.all([httpGet(netns, `http://127.0.0.1:${port}/big.bin`), httpGet(netns, `http://127.0.0.1:${port}/`)]);
          t.same([big.status, big.length, big.sha256], [200, 2048 * 1024, bigSum], `${target}: 2 MiB whole`);
          t.equal(again.body, 'hello from web\n');
          if (minor >= 31) t.notMatch(pf.output(), /fallback/i, 'WebSocket tunnel, no fallback to SPDY');
          await pf.stop();
        }
      });

      const kubectlOnPty = (args: string[]) => ['nsenter', `--net=/run/netns/${netns}`, bin, '--kubeconfig', up.kubeconfig, ...args];

      await t.test('attach -it to a shell on a terminal', async (t) => {
        const r = await runOnPty(kubectlOnPty(['attach', '-it', 'term']), [
          { expect: 'try pressing enter', timeoutMs: 60_000 },
          { send: 'echo attached-$((6*7))\r' },
          { expect: 'attached-42' },
          { send: 'stty size\r' },
          { expect: '\\d+ \\d+\\r\\n' },
          { terminate: true },
        ], { rows: 33, cols: 99 });
        if (r.failed) t.fail(`waited in vain for ${JSON.stringify(r.failed)}; the terminal showed: ${JSON.stringify(r.output)}`);
        t.match(r.output, '33 99\r\n', 'the terminal size reached the container');
      });

      await t.test('run -it --rm with a terminal and a resize', async (t) => {
        const name = `tty-${v.replace('.', '-')}`;
        const r = await runOnPty(kubectlOnPty(['run', name, '-it', '--rm', '--restart=Never', '--image=localhost/capstan/busybox:1', '--', 'sh']), [
          { expect: '# ', timeoutMs: 90_000 },
          { send: 'stty size\r' },
          { expect: '31 97\\r\\n' },
          { resize: { rows: 40, cols: 120 } },
          { send: 'sleep 0.5; stty size; tty\r' },
          { expect: '40 120\\r\\n/dev/pts/\\d+' },
          { send: 'exit 7\r' },
          { expect: `pod "${name}" deleted` },
        ], { rows: 31, cols: 97 });
        if (r.failed) t.fail(`waited in vain for ${JSON.stringify(r.failed)}; the terminal showed: ${JSON.stringify(r.output)}`);
        t.not(r.code, 0, 'the shell exit status fails kubectl');
        const left = await k(['get', 'pod', name]);
        t.match(left.stderr, 'NotFound', '--rm removed the pod');
      });
    });
  }
});
