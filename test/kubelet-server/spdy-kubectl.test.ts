// src/util/spdy's server role against the SPDY of a real kubectl (client-go on
// moby/spdystream): kubectl 1.27 and 1.29 talk to a small HTTPS server on loopback that
// answers the pod GET and upgrades exec and port-forward to a SpdySession. kubectl's
// SYN_STREAMs (headers in its zlib context), data, FIN and the exec Status on the error
// stream must all mean to kubectl what they mean to upstream.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { createCA, issueCert } from '../../src/pki/index.js';
import { SpdySession, type SpdyStream } from '../../src/util/spdy/index.js';
import { eventually } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.29'];

t.test('kubectl speaks SPDY with SpdySession as the server', async (t) => {
  const ca = createCA('spdy-test-ca');
  const serving = issueCert(ca, { commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
  const seen: { path: string; protocols: string; streams: Record<string, string>[] }[] = [];
  // Just enough of an API server for kubectl to find pods (plain discovery) and read one.
  const answers: Record<string, unknown> = {
    '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
    '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
    '/api/v1': {
      kind: 'APIResourceList', groupVersion: 'v1', resources: [
        { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
        { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
        { name: 'pods/portforward', singularName: '', namespaced: true, kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      ],
    },
    '/api/v1/namespaces/default/pods/p': { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Running' } },
  };
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const answer = answers[new URL(req.url ?? '/', 'https://x').pathname];
    if (answer) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify(answer));
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${req.url} not found` }));
  });
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'https://x');
    const offered = String(req.headers['x-stream-protocol-version'] ?? '');
    const record = { path: url.pathname, protocols: offered, streams: [] as Record<string, string>[] };
    seen.push(record);
    const portForward = url.pathname.endsWith('/portforward');
    const protocol = portForward ? 'portforward.k8s.io' : 'v4.channel.k8s.io';
    if (String(req.headers.upgrade).toLowerCase() !== 'spdy/3.1' || !offered.includes(protocol)) {
      return void socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
    const session = new SpdySession(socket, { role: 'server', initial: head });
    session.on('error', () => session.close());
    if (portForward) {
      // Each forwarded connection: an error and a data stream; the data is echoed upper-cased,
      // and when the client half-closes it both streams end (kubectl reads the error stream
      // to its end before it lets the connection go).
      const errors = new Map<string, SpdyStream>();
      session.on('stream', (s: SpdyStream) => {
        record.streams.push(s.headers);
        s.reply();
        if (s.headers.streamtype === 'error') return void errors.set(s.headers.requestid, s);
        s.on('data', (d: Buffer) => s.write(Buffer.from(d.toString().toUpperCase())));
        s.once('end', () => {
          s.end();
          errors.get(s.headers.requestid)?.end();
        });
      });
      return;
    }
    // exec: wait for the streams the query asks for, then play a command that upper-cases
    // stdin, writes to stdout and stderr and exits 5.
    const want = ['error', 'stdout', 'stderr', ...(url.searchParams.get('stdin') === 'true' ? ['stdin'] : [])];
    const streams = new Map<string, SpdyStream>();
    session.on('stream', (s: SpdyStream) => {
      record.streams.push(s.headers);
      s.reply();
      streams.set(s.headers.streamtype, s);
      if (want.every((w) => streams.has(w))) void run();
    });
    const run = async () => {
      const out = streams.get('stdout')!, err = streams.get('stderr')!, status = streams.get('error')!;
      out.write(Buffer.from(`args: ${url.searchParams.getAll('command').join(' ')}\n`));
      const stdin = streams.get('stdin');
      if (stdin) {
        stdin.on('data', (d: Buffer) => out.write(Buffer.from(d.toString().toUpperCase())));
        await new Promise((r) => stdin.once('end', r));
      }
      err.write(Buffer.from('to stderr\n'));
      out.end();
      err.end();
      status.write(Buffer.from(JSON.stringify({
        metadata: {}, status: 'Failure', message: 'command terminated with non-zero exit code: exit code 5', reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '5' }] },
      })));
      status.end();
      await session.end();
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-spdy-kubectl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
    users: [{ name: 'u', user: { token: 'not-checked' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
  }));

  for (const v of VERSIONS) {
    const bin = `/usr/lib/google-cloud-sdk/bin/kubectl.${v}`;
    await t.test(`kubectl ${v}`, async (t) => {
      if (!existsSync(bin)) return t.fail(`${bin} is missing`);
      const run = (args: string[], input = '') => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(bin, ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '', stderr = '';
        child.stdout.on('data', (d: Buffer) => { stdout += d; });
        child.stderr.on('data', (d: Buffer) => { stderr += d; });
        child.once('close', (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(input);
      });

      const r = await run(['exec', '-i', 'p', '--', 'tr', 'a-z', 'A-Z'], 'hello over spdy\n');
      t.equal(r.code, 5, r.stderr);
      t.equal(r.stdout, 'args: tr a-z A-Z\nHELLO OVER SPDY\n', 'stdout, then stdin echoed until kubectl closed it with a FIN');
      t.match(r.stderr, /^to stderr\n/);
      t.match(r.stderr, 'command terminated with exit code 5');
      const exec = seen.at(-1)!;
      t.match(exec.protocols, 'v4.channel.k8s.io');
      t.same(exec.streams.map((s) => s.streamtype).sort(), ['error', 'stderr', 'stdin', 'stdout']);

      const pf = spawn(bin, ['--kubeconfig', kubeconfig, 'port-forward', 'pod/p', ':80'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let pfOut = '';
      pf.stdout.on('data', (d: Buffer) => { pfOut += d; });
      pf.stderr.on('data', (d: Buffer) => { pfOut += d; });
      const closed = new Promise((r) => pf.once('close', r));
      t.teardown(() => { pf.kill('SIGKILL'); });
      await eventually(() => /Forwarding from 127\.0\.0\.1:\d+/.test(pfOut), 20_000, 'port-forward listening');
      const local = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(pfOut)![1]);
      const echo = (text: string) => new Promise<string>((resolve, reject) => {
        const c = connect(local, '127.0.0.1', () => c.end(text));
        let got = '';
        c.on('data', (d) => { got += d; });
        c.on('end', () => resolve(got));
        c.on('error', reject);
      });
      t.same(await Promise.all([echo('first connection'), echo('second')]), ['FIRST CONNECTION', 'SECOND']);
      const pfStreams = seen.at(-1)!.streams;
      t.same(pfStreams.map((s) => s.streamtype).sort(), ['data', 'data', 'error', 'error'], 'a data and an error stream per connection');
      t.same(new Set(pfStreams.map((s) => s.port)), new Set(['80']));
      t.equal(new Set(pfStreams.map((s) => s.requestid)).size, 2, 'two request ids');
      pf.kill('SIGTERM');
      await closed;
    });
  }
});
