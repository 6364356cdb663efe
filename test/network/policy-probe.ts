// Servers and probes inside pod namespaces for the policy truth tables. Every pod runs one
// server process answering TCP 80-82 (echo) and UDP 80-81 (echo); a probe process per source
// pod tries all its flows at once and reports which were answered.
import type { ResultPromise } from 'execa';
import { inNs, spawnInNs, type Namespace } from '../native/fixtures/netns.js';

type Teardown = { teardown(fn: () => unknown): void };

const SERVER = `
const net = require('node:net'), dgram = require('node:dgram');
let up = 0; const ready = () => { if (++up === 5) console.log('listening'); };
for (const port of [80, 81, 82]) net.createServer((c) => c.on('data', (d) => c.write(d)).on('error', () => {})).listen(port, '0.0.0.0', ready);
for (const port of [80, 81]) { const s = dgram.createSocket('udp4'); s.on('message', (m, r) => s.send(m, r.port, r.address)); s.bind(port, '0.0.0.0', ready); }
`;

export async function startServers(t: Teardown, ns: Namespace): Promise<void> {
  const child: ResultPromise = spawnInNs(t, ns, process.execPath, ['-e', SERVER]);
  await new Promise<void>((res, rej) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('listening')) res(); });
    void child.then((r) => rej(new Error(`servers exited: ${r.stderr}`)));
  });
}

// A flow is answered when the server echoes our bytes back. TCP SYNs a drop swallows are
// retried by the kernel; a UDP datagram is sent again every 200 ms until the deadline.
const PROBE = `
const net = require('node:net'), dgram = require('node:dgram');
const flows = JSON.parse(process.argv[1]), deadline = Number(process.argv[2]);
const one = (f) => new Promise((resolve) => {
  const done = (ok) => { clearTimeout(timer); resolve(ok); };
  let timer;
  if (f.protocol === 'TCP') {
    const c = net.connect({ host: f.ip, port: f.port });
    timer = setTimeout(() => { c.destroy(); done(false); }, deadline);
    c.on('connect', () => c.write('ping')).on('data', () => { c.destroy(); done(true); }).on('error', () => done(false));
  } else {
    const s = dgram.createSocket('udp4');
    const send = () => s.send('ping', f.port, f.ip, () => {});
    const again = setInterval(send, 200);
    timer = setTimeout(() => { clearInterval(again); s.close(); done(false); }, deadline);
    s.on('message', () => { clearInterval(again); s.close(); done(true); });
    send();
  }
});
Promise.all(flows.map(one)).then((r) => console.log(JSON.stringify(r)));
`;

export interface Flow {
  ip: string;
  protocol: 'TCP' | 'UDP';
  port: number;
}

/** Which of `flows` from `ns` were answered within `deadlineMs`. */
export async function probe(ns: Namespace, flows: Flow[], deadlineMs = 1500): Promise<boolean[]> {
  const r = await inNs(ns, process.execPath, ['-e', PROBE, JSON.stringify(flows), String(deadlineMs)]);
  if (r.exitCode !== 0) throw new Error(`probe failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as boolean[];
}

const CONNECTION = `
const c = require('node:net').connect({ host: process.argv[1], port: Number(process.argv[2]) });
c.on('connect', () => console.log('connected')).on('error', (e) => console.log('error ' + e.message));
c.on('data', (d) => console.log('echo ' + d));
process.stdin.on('data', (d) => c.write(d.toString().trim()));
`;

/** A long-lived TCP connection from `ns`: `say(text)` resolves once the echo came back. */
export async function openConnection(t: Teardown, ns: Namespace, ip: string, port: number): Promise<{ say(text: string, timeoutMs?: number): Promise<boolean> }> {
  const child: ResultPromise = spawnInNs(t, ns, process.execPath, ['-e', CONNECTION, ip, String(port)]);
  let out = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); for (const w of waiters.splice(0)) w(); });
  const until = (re: RegExp, ms: number) => new Promise<boolean>((res) => {
    const check = () => { if (re.test(out)) { clearTimeout(timer); res(true); } else waiters.push(check); };
    const timer = setTimeout(() => res(false), ms);
    check();
  });
  if (!(await until(/connected/, 5000))) throw new Error(`no connection to ${ip}:${port}: ${out}`);
  return {
    say(text, timeoutMs = 3000) {
      child.stdin!.write(`${text}\n`);
      return until(new RegExp(`echo ${text}`), timeoutMs);
    },
  };
}
