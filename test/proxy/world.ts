// A small world of network namespaces for proxy tests: a "node" namespace where the proxy's
// rules live, "pod" namespaces behind veths (Calico-style /32 routes, 169.254.1.1 gateway)
// each running a tiny TCP/UDP server that answers with its own name, and a "client"
// namespace outside the cluster CIDR. Everything is removed at teardown.
import { randomBytes } from 'node:crypto';
import { execa, type ResultPromise } from 'execa';
import { createNetlink } from '../../src/netlink/index.js';

type Teardown = { teardown(fn: () => unknown): void };

export interface Ns { name: string; path: string }

export const NODE_IP = '10.10.0.1';
export const CLIENT_IP = '10.10.0.2';
export const POD_CIDR = '10.244.0.0/16';

const SERVER = `
import socket, sys, threading
name = sys.argv[1].encode()
def tcp():
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('0.0.0.0', 8080)); s.listen(128)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
def serve(c):
    try:
        c.sendall(name + b'\\n')
        while True:
            d = c.recv(100)
            if not d: break
            c.sendall(d)
    except OSError: pass
    c.close()
def udp():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('0.0.0.0', 8080))
    while True:
        d, a = u.recvfrom(100); u.sendto(name + b'\\n', a)
threading.Thread(target=udp, daemon=True).start()
tcp()
`;

/** n connections (TCP or UDP) to host:port; prints one JSON object with per-reply counts and errors. */
const CLIENT = `
import socket, sys, json, time, errno
host, port, n, proto = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
seen, errors, slowest = {}, {}, 0.0
for i in range(n):
    t0 = time.monotonic()
    try:
        if proto == 'tcp':
            c = socket.create_connection((host, port), timeout=2)
            f = c.makefile('rb'); r = f.readline().decode().strip(); c.close()
        else:
            c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.settimeout(1)
            c.sendto(b'hi', (host, port)); r = c.recv(100).decode().strip(); c.close()
        seen[r] = seen.get(r, 0) + 1
    except OSError as e:
        k = errno.errorcode.get(e.errno, type(e).__name__) if e.errno else type(e).__name__
        errors[k] = errors.get(k, 0) + 1
    slowest = max(slowest, time.monotonic() - t0)
print(json.dumps({'seen': seen, 'errors': errors, 'slowest': slowest}))
`;

/** Connects, reads the name, waits, then checks the same connection still echoes. */
const HOLD = `
import socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
f = c.makefile('rb'); name = f.readline().decode().strip()
time.sleep(float(sys.argv[3]))
c.sendall(b'still-here\\n'); echo = f.readline().decode().strip()
print(name, echo)
`;

export interface Probe { seen: Record<string, number>; errors: Record<string, number>; slowest: number }

export interface World {
  node: Ns;
  client: Ns;
  pods: { name: string; ns: Ns; ip: string }[];
  /** n connections from `from` (client namespace by default). */
  probe(host: string, port: number, n: number, opts?: { proto?: 'tcp' | 'udp'; from?: Ns }): Promise<Probe>;
  hold(host: string, port: number, seconds: number): ResultPromise;
}

async function newNs(t: Teardown, label: string): Promise<Ns> {
  const name = `capstan-proxy-${label}-${randomBytes(3).toString('hex')}`;
  await execa('ip', ['netns', 'add', name]);
  t.teardown(() => execa('ip', ['netns', 'del', name], { reject: false }));
  await execa('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  return { name, path: `/run/netns/${name}` };
}

function spawn(t: Teardown, ns: Ns, args: string[]): ResultPromise {
  const child = execa('nsenter', [`--net=${ns.path}`, ...args], { reject: false });
  t.teardown(() => { child.kill('SIGKILL'); return child.catch(() => undefined); });
  return child;
}

export async function buildWorld(t: Teardown, podCount = 3): Promise<World> {
  const nl = createNetlink('addon');
  const node = await newNs(t, 'node');
  const client = await newNs(t, 'cli');
  await nl.apply(node.path, [
    { op: 'linkAddVeth', name: 'vcli', peerName: 'eth0', peerNetns: client.path },
    { op: 'linkSet', name: 'vcli', up: true },
    { op: 'addrAdd', dev: 'vcli', address: `${NODE_IP}/24` },
    { op: 'sysctlWrite', path: 'net/ipv4/ip_forward', value: '1' },
    // A fake uplink with the default route, as a real node has: service addresses must be
    // routable for iptables' FORWARD-chain reject to see them.
    { op: 'linkAddVeth', name: 'vup0', peerName: 'vup1' },
    { op: 'linkSet', name: 'vup0', up: true },
    { op: 'linkSet', name: 'vup1', up: true },
    { op: 'routeAdd', dst: 'default', dev: 'vup0' },
  ]);
  await nl.apply(client.path, [
    { op: 'linkSet', name: 'eth0', up: true },
    { op: 'addrAdd', dev: 'eth0', address: `${CLIENT_IP}/24` },
    { op: 'routeAdd', dst: 'default', via: NODE_IP, dev: 'eth0' },
  ]);
  const pods: World['pods'] = [];
  for (let i = 0; i < podCount; i++) {
    const name = `pod-${i}`, ip = `10.244.0.${10 + i}`, host = `vpod${i}`;
    const ns = await newNs(t, `p${i}`);
    await nl.apply(node.path, [
      { op: 'linkAddVeth', name: host, peerName: 'eth0', peerNetns: ns.path },
      { op: 'linkSet', name: host, up: true },
      // Every pod's gateway is 169.254.1.1: the host side of each veth owns it.
      { op: 'addrAdd', dev: host, address: '169.254.1.1/32' },
      { op: 'routeAdd', dst: `${ip}/32`, dev: host, scope: 'link' },
    ]);
    await nl.apply(ns.path, [
      { op: 'linkSet', name: 'eth0', up: true },
      { op: 'addrAdd', dev: 'eth0', address: `${ip}/32` },
      { op: 'routeAdd', dst: '169.254.1.1/32', dev: 'eth0', scope: 'link' },
      { op: 'routeAdd', dst: 'default', via: '169.254.1.1', dev: 'eth0' },
    ]);
    spawn(t, ns, ['python3', '-c', SERVER, name]);
    pods.push({ name, ns, ip });
  }
  const world: World = {
    node, client, pods,
    async probe(host, port, n, opts = {}) {
      const r = await execa('nsenter', [`--net=${(opts.from ?? client).path}`, 'python3', '-c', CLIENT, host, String(port), String(n), opts.proto ?? 'tcp'], { reject: false });
      if (r.exitCode !== 0) throw new Error(`probe failed: ${r.stderr}`);
      return JSON.parse(String(r.stdout)) as Probe;
    },
    hold: (host, port, seconds) => spawn(t, client, ['python3', '-c', HOLD, host, String(port), String(seconds)]),
  };
  // Servers are up when a direct connection from the node answers.
  for (const p of pods) {
    for (let i = 0; ; i++) {
      const r = await world.probe(p.ip, 8080, 1, { from: node });
      if (r.seen[p.name]) break;
      if (i > 50) throw new Error(`server in ${p.name} did not start`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }
  return world;
}
