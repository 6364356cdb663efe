// Shared pieces of the DNS tests: dig (Debian dnsutils) with its output parsed, a cluster
// DNS server on a loopback port against an in-process API server, and a tiny upstream.
import { execFile } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import * as dnsPacket from 'dns-packet';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, type Clientset } from '../../src/client/index.js';
import { startDNS, type DNSHandle, type Upstream } from '../../src/dns/index.js';
import { logger } from '../../src/log/index.js';
import { startAPIServer, type TestAPIServer } from '../helpers/api.js';

interface Teardown { teardown(fn: () => unknown): void }

export interface DigRecord { name: string; ttl: number; type: string; data: string }

export interface DigResult {
  status: string;
  flags: string[];
  answer: DigRecord[];
  authority: DigRecord[];
  additional: DigRecord[];
  /** The OPT pseudosection's `udp:` value, when the reply had EDNS0. */
  ednsUDP?: number;
  raw: string;
}

export function parseDig(out: string): DigResult {
  const status = /status: ([A-Z]+)/.exec(out)?.[1] ?? 'NONE';
  const flags = (/;; flags: ([a-z ]*);/.exec(out)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
  const section = (title: string): DigRecord[] => {
    const i = out.indexOf(`;; ${title} SECTION:`);
    if (i < 0) return [];
    const lines = out.slice(i).split('\n').slice(1);
    const recs: DigRecord[] = [];
    for (const l of lines) {
      if (!l.trim()) break;
      const [name, ttl, , type, ...data] = l.split(/\s+/);
      recs.push({ name, ttl: Number(ttl), type, data: data.join(' ') });
    }
    return recs;
  };
  const udp = /; EDNS: version: \d+, flags:[^;]*; udp: (\d+)/.exec(out);
  return { status, flags, answer: section('ANSWER'), authority: section('AUTHORITY'), additional: section('ADDITIONAL'), ednsUDP: udp ? Number(udp[1]) : undefined, raw: out };
}

export function dig(port: number, args: string[], server = '127.0.0.1', prefix: string[] = []): Promise<DigResult> {
  const argv = [...prefix, 'dig', `@${server}`, '-p', String(port), '+tries=1', '+time=3', ...args];
  return new Promise((resolve, reject) => {
    execFile(argv[0], argv.slice(1), { timeout: 15_000 }, (err, stdout, stderr) => {
      // dig exits 9 on no reply; the caller sees status NONE.
      if (err && !stdout) return reject(new Error(`${argv.join(' ')}: ${stderr || err.message}`));
      resolve(parseDig(stdout));
    });
  });
}

export const data = (r: DigResult, type?: string) => r.answer.filter((a) => !type || a.type === type).map((a) => a.data).sort();

export interface Cluster {
  api: TestAPIServer;
  clients: Clientset;
  dns: DNSHandle;
  port: number;
  registry: Registry;
  dig(args: string[]): Promise<DigResult>;
}

export async function startCluster(t: Teardown, o: { upstreams?: Upstream[]; upstreamTimeoutMs?: number; pods?: 'insecure' | 'verified' } = {}): Promise<Cluster> {
  const api = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'dns-test');
  const registry = new Registry();
  const dns = await startDNS({
    clients, registry, listen: [{ host: '127.0.0.1', port: 0 }], upstreams: o.upstreams ?? [],
    upstreamTimeoutMs: o.upstreamTimeoutMs ?? 1000, log: logger('dns', {}, () => undefined), pods: o.pods, clusterDNS: '10.96.0.10',
  });
  t.teardown(async () => { await dns.stop(); clients.close(); });
  await dns.informers.waitForCacheSync();
  const port = dns.server.bound.udp[0].port;
  return { api, clients, dns, port, registry, dig: (args) => dig(port, args) };
}

/** A DNS server (UDP and TCP) that answers every A question with `ip` (or stays silent), recording the questions. */
export async function fakeUpstream(t: Teardown, ip: string | null): Promise<{ port: number; queries: string[]; socket: Socket }> {
  const socket = createSocket('udp4');
  const queries: string[] = [];
  const answer = (msg: Buffer, proto: string): Buffer | undefined => {
    const q = dnsPacket.decode(msg);
    const question = q.questions![0];
    queries.push(`${question.name}/${question.type}/${proto}`);
    if (ip === null) return undefined;
    return dnsPacket.encode({
      id: q.id, type: 'response', flags: dnsPacket.RECURSION_AVAILABLE | (q.flags ?? 0) & dnsPacket.RECURSION_DESIRED,
      questions: q.questions,
      answers: question.type === 'A' ? [{ name: question.name, type: 'A', ttl: 60, class: 'IN', data: ip }] : [],
    });
  };
  socket.on('message', (msg, rinfo) => {
    const reply = answer(msg, 'udp');
    if (reply) socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const port = (socket.address() as AddressInfo).port;
  const tcp = createServer((conn) => {
    let buf = Buffer.alloc(0);
    conn.on('error', () => undefined);
    conn.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const reply = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)), 'tcp');
        buf = buf.subarray(2 + buf.readUInt16BE(0));
        if (reply) conn.write(Buffer.concat([Buffer.from([reply.length >> 8, reply.length & 255]), reply]));
      }
    });
  });
  await new Promise<void>((r) => tcp.listen(port, '127.0.0.1', () => r()));
  t.teardown(() => { socket.close(); tcp.close(); });
  return { port, queries, socket };
}

export function within(ms: number, check: () => Promise<boolean>, what: string): Promise<number> {
  const start = Date.now();
  return (async () => {
    for (;;) {
      if (await check()) return Date.now() - start;
      if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
}
