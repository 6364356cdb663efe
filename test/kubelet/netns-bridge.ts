// Makes a loopback TCP port of this (host) namespace reachable at the same port on
// 127.0.0.1 inside a test network namespace, through a unix socket (paths cross network
// namespaces): a kubelet running inside the namespace, where it can reach pod IPs, talks
// to an API server the test runs in-process. Nothing is added to the host's network.
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';

interface Teardown { teardown(fn: () => unknown): void }

const inner = `
const net = require('node:net');
const [port, sock] = process.argv.slice(1);
net.createServer((c) => { const u = net.connect(sock); c.pipe(u); u.pipe(c); c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

export async function bridgeIntoNetns(t: Teardown, netns: string, port: number, dir: string): Promise<void> {
  const sock = join(dir, `bridge-${port}.sock`);
  const server = createServer((c) => {
    const up = createConnection({ host: '127.0.0.1', port });
    c.pipe(up);
    up.pipe(c);
    c.on('error', () => up.destroy());
    up.on('error', () => c.destroy());
  });
  await new Promise<void>((r) => server.listen(sock, r));
  const child = spawn('nsenter', [`--net=/run/netns/${netns}`, '--', process.execPath, '-e', inner, String(port), sock], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    server.close();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
    child.once('exit', (code) => reject(new Error(`netns bridge exited with ${code}`)));
  });
}
