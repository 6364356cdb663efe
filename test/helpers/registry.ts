// A real image registry for tests: Debian's docker-registry (distribution 2.8) on loopback
// inside a network namespace the test created, with TLS from a test CA and htpasswd basic
// auth. Images are pushed with skopeo (also run inside the namespace). The registry process,
// its files and the containerd hosts.toml written for it are removed at teardown.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface Teardown { teardown(fn: () => unknown): void }

export interface TestRegistry {
  /** "127.0.0.1:PORT": the registry's host as image names and pull secrets spell it. */
  host: string;
  username: string;
  password: string;
  /** The test CA's certificate (PEM file). */
  caFile: string;
  /** Pushes an OCI archive (a file) as `host/<repository>:<tag>`. */
  push(archive: string, repositoryAndTag: string): Promise<void>;
}

export interface RegistryOptions {
  /** The network namespace to serve in (its loopback must be up). */
  netns: string;
  /** A directory the registry may use (its files go into <dir>/registry). */
  dir: string;
  /** containerd's registry config_path: a hosts.toml trusting the test CA is written there. */
  hostsDir?: string;
  port?: number;
}

export async function startRegistry(t: Teardown, o: RegistryOptions): Promise<TestRegistry> {
  const dir = join(o.dir, 'registry');
  mkdirSync(join(dir, 'data'), { recursive: true });
  const port = o.port ?? 5000 + Math.floor(Math.random() * 1000);
  const host = `127.0.0.1:${port}`;
  const username = 'capstan';
  const password = `pw-${Math.random().toString(36).slice(2, 10)}`;
  const caFile = join(dir, 'ca.crt');
  const ossl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await ossl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=capstan test registry CA', '-keyout', 'ca.key', '-out', 'ca.crt');
  await ossl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=127.0.0.1', '-keyout', 'server.key', '-out', 'server.csr');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await ossl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1',
    '-extfile', 'san.ext', '-out', 'server.crt');
  const { stdout: htpasswd } = await run('htpasswd', ['-Bbn', username, password]);
  writeFileSync(join(dir, 'htpasswd'), htpasswd);
  writeFileSync(join(dir, 'config.yml'), [
    'version: 0.1',
    'log: { level: info }',
    `storage: { filesystem: { rootdirectory: ${JSON.stringify(join(dir, 'data'))} }, delete: { enabled: true } }`,
    `http: { addr: ${JSON.stringify(host)}, tls: { certificate: ${JSON.stringify(join(dir, 'server.crt'))}, key: ${JSON.stringify(join(dir, 'server.key'))} } }`,
    `auth: { htpasswd: { realm: capstan-test, path: ${JSON.stringify(join(dir, 'htpasswd'))} } }`,
    '',
  ].join('\n'));
  // skopeo reads a directory of *.crt as its trust store.
  mkdirSync(join(dir, 'certs'));
  copyFileSync(caFile, join(dir, 'certs', 'ca.crt'));
  writeFileSync(join(dir, 'policy.json'), '{"default":[{"type":"insecureAcceptAnything"}]}');

  const child: ChildProcess = spawn('nsenter', [`--net=/run/netns/${o.netns}`, '--', 'docker-registry', 'serve', join(dir, 'config.yml')],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`registry did not start: ${log}`)), 20_000);
    const onData = (d: Buffer) => {
      log = (log + d.toString()).slice(-10_000);
      if (log.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`registry exited (${code}): ${log}`)); });
  });

  if (o.hostsDir) {
    const hostDir = join(o.hostsDir, host);
    mkdirSync(hostDir, { recursive: true });
    writeFileSync(join(hostDir, 'hosts.toml'), `server = "https://${host}"\n\n[host."https://${host}"]\n  capabilities = ["pull", "resolve"]\n  ca = ${JSON.stringify(caFile)}\n`);
    t.teardown(() => rmSync(hostDir, { recursive: true, force: true }));
  }

  return {
    host, username, password, caFile,
    push: async (archive, ref) => {
      await run('nsenter', [`--net=/run/netns/${o.netns}`, '--', 'skopeo', '--policy', join(dir, 'policy.json'), 'copy', '--quiet',
        '--dest-creds', `${username}:${password}`, '--dest-cert-dir', join(dir, 'certs'),
        `oci-archive:${archive}`, `docker://${host}/${ref}`], { timeout: 120_000 });
    },
  };
}
