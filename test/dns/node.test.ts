// `capstan dns` as the node agent runs it, inside a network namespace this test creates
// (with its own API server process there): the link-local and Service addresses on `lo`,
// the kube-dns Service and this node's EndpointSlice, answers on every address, and a clean
// exit on SIGTERM that takes the addresses and the endpoints away again.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ensureClusterPKI, writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { data, dig, within } from './harness.js';

const ns = `capstan-dns-${randomBytes(3).toString('hex')}`;
const nsenter = ['nsenter', `--net=/run/netns/${ns}`];
const NODE_IP = '10.244.7.5';

function inNs(cmd: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(nsenter[0], [...nsenter.slice(1), ...cmd], { timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

function start(args: string[], readyText: string): Promise<ChildProcess> {
  const child = spawn(nsenter[0], [...nsenter.slice(1), process.execPath, capstanBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} not ready:\n${err}`)), 60_000);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(readyText)) { clearTimeout(timer); resolve(child); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${args[0]} exited ${code}:\n${err}`)); });
  });
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

t.test('capstan dns in a node namespace', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-dns-node-'));
  const children: ChildProcess[] = [];
  t.teardown(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) { c.kill('SIGKILL'); await exited(c); }
    try { execFileSync('ip', ['netns', 'del', ns]); } catch { /* already gone */ }
    rmSync(dir, { recursive: true, force: true });
  });
  execFileSync('ip', ['netns', 'add', ns]);
  execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  execFileSync('ip', ['-n', ns, 'addr', 'add', `${NODE_IP}/32`, 'dev', 'lo']);

  const pki = ensureClusterPKI(dir, ['127.0.0.1'], '10.96.0.0/12');
  const port = 6443;
  const kubeconfig = writeAdminKubeconfig(dir, pki, `https://127.0.0.1:${port}`);
  children.push(await start(['apiserver', '--data-dir', dir, '--secure-port', String(port), '--store', `sqlite://${join(dir, 'state.db')}`, '--token-auth-file', pki.tokenFile, '--disable-admission-plugins', 'ServiceAccount'], 'ready on'));
  const dns = await start(['dns', '--kubeconfig', kubeconfig, '--node-name', 'node-a', '--advertise-address', NODE_IP, '--upstream', '', '--health-port', '9153'], 'capstan dns serving');
  children.push(dns);

  const addrs = JSON.parse((await inNs(['ip', '-j', 'addr', 'show', 'lo'])).stdout)[0].addr_info.map((a: { local: string }) => a.local);
  t.ok(addrs.includes('169.254.20.10') && addrs.includes('10.96.0.10'), `link-local and Service addresses on lo (${addrs.join(' ')})`);

  const q = (server: string, args: string[]) => dig(53, args, server, nsenter);
  await within(10_000, async () => (await q('169.254.20.10', ['kubernetes.default.svc.cluster.local'])).status === 'NOERROR', 'synced');
  t.same(data(await q('169.254.20.10', ['kubernetes.default.svc.cluster.local'])), ['10.96.0.1']);
  await within(5_000, async () => data(await q('10.96.0.10', ['kube-dns.kube-system.svc.cluster.local']))[0] === '10.96.0.10', 'kube-dns Service');
  t.same(data(await q(NODE_IP, ['+tcp', 'kube-dns.kube-system.svc.cluster.local'])), ['10.96.0.10'], 'the advertised address answers, TCP too');
  t.equal((await q('169.254.20.10', ['example.org'])).status, 'REFUSED', 'no upstream');

  const k = (args: string[]) => inNs(['kubectl', '--kubeconfig', kubeconfig, ...args]);
  const svc = JSON.parse((await k(['get', 'service', '-n', 'kube-system', 'kube-dns', '-o', 'json'])).stdout);
  t.same(svc.spec.ports.map((p: { name: string; port: number; protocol: string }) => `${p.name} ${p.port}/${p.protocol}`), ['dns 53/UDP', 'dns-tcp 53/TCP']);
  await within(5_000, async () => (await k(['get', 'endpointslice', '-n', 'kube-system', 'kube-dns-node-a'])).code === 0, 'slice');
  const slice = JSON.parse((await k(['get', 'endpointslice', '-n', 'kube-system', 'kube-dns-node-a', '-o', 'json'])).stdout);
  t.equal(slice.metadata.labels['kubernetes.io/service-name'], 'kube-dns');
  t.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'capstan-dns');
  t.same(slice.endpoints.map((e: { addresses: string[]; nodeName: string }) => `${e.addresses[0]} ${e.nodeName}`), [`${NODE_IP} node-a`]);

  // Deleted by someone else: it comes back.
  await k(['delete', 'endpointslice', '-n', 'kube-system', 'kube-dns-node-a']);
  await within(5_000, async () => (await k(['get', 'endpointslice', '-n', 'kube-system', 'kube-dns-node-a'])).code === 0, 'slice restored');

  const get = (path: string) => inNs([process.execPath, '-e', `fetch('http://127.0.0.1:9153${path}').then((r) => r.text()).then((b) => process.stdout.write(b))`]);
  const metrics = await get('/metrics');
  t.match(metrics.stdout, /capstan_dns_requests_total\{proto="udp",type="A"\}/);
  t.equal((await get('/healthz')).stdout, 'ok');

  dns.kill('SIGTERM');
  t.equal(await exited(dns), 0, 'clean exit');
  const after = JSON.parse((await inNs(['ip', '-j', 'addr', 'show', 'lo'])).stdout)[0].addr_info.map((a: { local: string }) => a.local);
  t.notOk(after.includes('169.254.20.10') || after.includes('10.96.0.10'), 'its addresses are gone');
  t.ok(after.includes(NODE_IP), 'the node address stays');
  t.not((await k(['get', 'endpointslice', '-n', 'kube-system', 'kube-dns-node-a'])).code, 0, 'its endpoints are withdrawn');

  // Started before its Node has an address: it publishes once the kubelet reports one.
  const NODE_B = '10.244.7.6';
  execFileSync('ip', ['-n', ns, 'addr', 'add', `${NODE_B}/32`, 'dev', 'lo']);
  const late = await start(['dns', '--kubeconfig', kubeconfig, '--node-name', 'node-b', '--upstream', '', '--health-port=-1'], 'capstan dns serving');
  children.push(late);
  const node = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b' } });
  await inNs(['sh', '-c', `echo '${node}' | kubectl --kubeconfig ${kubeconfig} create -f -`]);
  const patched = await k(['patch', 'node', 'node-b', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: NODE_B }] } })]);
  t.equal(patched.code, 0, patched.stderr);
  await within(25_000, async () => (await k(['get', 'endpointslice', '-n', 'kube-system', 'kube-dns-node-b'])).code === 0, 'late slice');
  t.same(data(await q(NODE_B, ['kube-dns.kube-system.svc.cluster.local'])), ['10.96.0.10'], 'now listening on the node address');
  late.kill('SIGTERM');
  t.equal(await exited(late), 0);
});
