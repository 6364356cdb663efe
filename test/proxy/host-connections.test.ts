// The proxy's rules must leave the node's own connections alone. The API server's endpoint
// is the host's own address (127.0.0.1 under `capstan up`), so its hairpin pair is
// 127.0.0.1 . 127.0.0.1; a masquerade on that pair without `ct status dnat` caught every
// loopback connection, and those open before the proxy's first sync were reset (all
// components' watches at once, and a request in flight hung until its timeout).
import t from 'tap';
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { buildPlans, type ProxyConfig } from '../../src/proxy/model.js';
import { freshTableOps } from '../../src/proxy/nft/ruleset.js';
import { NftTable, createNftDriver } from '../../src/nft/index.js';

const isRoot = process.getuid?.() === 0;

// One process holds a loopback connection open across the rules' arrival: it connects,
// says "connected", waits for a line on stdin, then checks the connection still echoes.
const HOLD = `
import socket, sys, threading
srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)
port = srv.getsockname()[1]
def serve():
    c, _ = srv.accept()
    while True:
        d = c.recv(100)
        if not d: return
        c.sendall(d)
threading.Thread(target=serve, daemon=True).start()
cli = socket.create_connection(('127.0.0.1', port)); cli.settimeout(5)
cli.sendall(b'before'); assert cli.recv(100) == b'before'
print('connected', port, flush=True)
sys.stdin.readline()
try:
    cli.sendall(b'after'); print('echo', cli.recv(100).decode(), flush=True)
except Exception as e:
    print('error', type(e).__name__, flush=True)
`;

t.test('a loopback connection open before the first sync survives it', { skip: !isRoot && 'needs root' }, async (t) => {
  const ns = `capstan-proxy-host-${randomBytes(3).toString('hex')}`;
  await execa('ip', ['netns', 'add', ns]);
  t.teardown(() => execa('ip', ['netns', 'del', ns], { reject: false }));
  await execa('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  const path = `/run/netns/${ns}`;

  const hold = execa('nsenter', [`--net=${path}`, 'python3', '-c', HOLD], { reject: false, stdin: 'pipe' });
  t.teardown(() => { hold.kill('SIGKILL'); return hold.catch(() => undefined); });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    hold.stdout!.on('data', (d: Buffer) => { out += d.toString(); const m = /connected (\d+)\n/.exec(out); if (m) resolve(Number(m[1])); });
    void hold.then((r) => reject(new Error(`holder exited: ${r.stderr}`)));
  });

  // The `kubernetes` Service as `capstan up` has it: its endpoint is the host's loopback.
  const cfg: ProxyConfig = { nodeName: 'node-a', clusterCIDR: '10.244.0.0/16' };
  const plans = buildPlans(
    [{ metadata: { namespace: 'default', name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, targetPort: port, protocol: 'TCP' }] } }],
    [{
      metadata: { namespace: 'default', name: 'kubernetes', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: 'IPv4', ports: [{ name: 'https', port, protocol: 'TCP' }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    }],
    cfg,
  );
  const table = new NftTable(createNftDriver('addon'), { family: 'ip', name: 'capstan-proxy' }, path);
  await table.apply(freshTableOps(plans, cfg).ops);
  const state = await table.list();
  t.ok(state.sets.find((s) => s.name === 'hairpin')?.elements.some((e) => e.key.join() === '127.0.0.1,127.0.0.1'), 'the loopback endpoint has its hairpin pair');

  hold.stdin!.write('go\n');
  const r = await hold;
  t.match(r.stdout, /echo after/, `the connection still works after the rules arrived (${r.stdout.trim()} ${r.stderr.trim()})`);
});
