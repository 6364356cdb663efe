// Reaching the CRI stream server. containerd listens in its own network namespace; when the
// kubelet runs elsewhere (a node whose containerd lives in a lab or test netns), a small
// relay started inside that namespace carries the connection over its stdio.
import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import type { Dialer } from './remote-command.js';

const RELAY = `
const net = require('node:net');
const s = net.connect({ host: process.argv[1], port: Number(process.argv[2]) });
s.on('connect', () => { process.stdout.write('+'); process.stdin.pipe(s); s.pipe(process.stdout); });
s.on('error', (e) => { process.stderr.write(e.message); process.exit(1); });
s.on('close', () => process.exit(0));
process.stdin.on('end', () => s.end());
`;

/** Dials from inside the network namespace at `netnsPath` (e.g. /run/netns/NAME or /proc/PID/ns/net). */
export function netnsDialer(netnsPath: string): Dialer {
  return (host, port) => new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=${netnsPath}`, '--', process.execPath, '-e', RELAY, host, String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`relay into ${netnsPath} exited ${code}: ${stderr.trim()}`)));
    // The relay writes one byte once connected, so a refused connection is an error here.
    child.stdout.once('readable', () => {
      const first = child.stdout.read(1) as Buffer | null;
      if (!first) return reject(new Error(`relay into ${netnsPath} ended: ${stderr.trim()}`));
      const duplex = Duplex.from({ readable: child.stdout, writable: child.stdin });
      duplex.on('close', () => { if (child.exitCode === null) child.kill('SIGKILL'); });
      child.once('exit', () => duplex.destroy());
      resolve(duplex);
    });
  });
}
