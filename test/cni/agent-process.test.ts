// `capstan network-agent` as a process against a real API server: it waits for its Node's
// podCIDR before writing the conflist, answers "try again later" while it has none or is
// down, keeps allocations across a crash, and exits cleanly on SIGTERM.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { clientsetFromKubeconfig, resources } from '../../src/client/index.js';
import { createNetlink } from '../../src/netlink/index.js';
import { CONFLIST_NAME } from '../../src/network/index.js';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { isRoot, newNamespace, ping } from '../native/fixtures/netns.js';
import { nodeNamespace, pluginStdin, runPlugin, tempDir } from './fixtures.js';

const nl = createNetlink('addon');

t.test('network agent process: Node podCIDR, crash and restart, SIGTERM', { skip: !isRoot && 'needs root' }, async (t) => {
  const s = await startAPIServer(t);
  const kubeconfig = writeAdminKubeconfig(s.dir, s.pki, `https://127.0.0.1:${s.port}`);
  const clients = clientsetFromKubeconfig(kubeconfig, 'test');
  t.teardown(() => clients.close());
  const nodes = clients.resource(resources.nodes);
  await nodes.create(undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' }, spec: {} });

  const node = await nodeNamespace(t);
  const dir = tempDir(t);
  const binDir = join(dir, 'bin'), confDir = join(dir, 'net.d'), socket = join(dir, 'cni.sock');
  const args = ['bin/capstan.js', 'network-agent', '--kubeconfig', kubeconfig, '--node-name', 'node-a', '--netns', node.path,
    '--socket', socket, '--state-dir', join(dir, 'state'), '--cni-bin-dir', binDir, '--cni-conf-dir', confDir, '--health-port', '0'];
  let agent: ChildProcess | undefined;
  let healthPort = 0;
  const start = () => new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    agent = child;
    child.stdout!.on('data', (d: Buffer) => {
      const m = /running \(healthz on :(\d+)\)/.exec(d.toString());
      if (m) { healthPort = Number(m[1]); resolve(); }
    });
    child.once('exit', (code) => reject(new Error(`agent exited with ${code}`)));
  });
  const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));
  t.teardown(async () => { if (agent && agent.exitCode === null) { agent.kill('SIGKILL'); await exited(agent); } });
  const readyz = async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status;

  await start();
  const plugin = join(binDir, 'capstan');
  t.ok(existsSync(join(binDir, 'loopback')), 'loopback installed next to the plugin');
  t.notOk(existsSync(join(confDir, CONFLIST_NAME)), 'no conflist while the Node has no podCIDR');
  t.equal(await readyz(), 503, 'not ready without a podCIDR');
  const manual = JSON.stringify({ cniVersion: '1.0.0', name: 'capstan', type: 'capstan', agentSocket: socket });
  const env = (cmd: string, id: string, netns: string) => ({ CNI_COMMAND: cmd, CNI_CONTAINERID: id, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: binDir });
  const pod1 = await newNamespace(t, 'cnipod');
  const early = await runPlugin(plugin, env('ADD', 'c1', pod1.path), manual);
  t.match([early.code, early.json], [1, { code: 11, msg: /podCIDR/ }], 'ADD before the podCIDR: try again later');

  await nodes.patch(undefined, 'node-a', 'merge', { spec: { podCIDR: '10.77.5.0/24', podCIDRs: ['10.77.5.0/24'] } });
  await eventually(async () => existsSync(join(confDir, CONFLIST_NAME)), 10_000, 'conflist written once the Node has a podCIDR');
  t.equal(await readyz(), 200, 'ready');
  const add1 = await runPlugin(plugin, env('ADD', 'c1', pod1.path), pluginStdin(confDir));
  t.equal(add1.json.ips?.[0]?.address, '10.77.5.2/32', 'address from the Node\'s block');

  agent!.kill('SIGKILL');
  await exited(agent!);
  const pod2 = await newNamespace(t, 'cnipod');
  const down = await runPlugin(plugin, env('ADD', 'c2', pod2.path), pluginStdin(confDir));
  t.match([down.code, down.json], [1, { cniVersion: '1.0.0', code: 11, details: /ECONNREFUSED|refused/i }], 'agent down: try again later');
  t.ok(await ping(node, '10.77.5.2'), 'the running pod keeps its network while the agent is down');

  await start();
  const add2 = await runPlugin(plugin, env('ADD', 'c2', pod2.path), pluginStdin(confDir));
  t.equal(add2.code, 0, add2.stdout);
  t.equal(add2.json.ips?.[0]?.address, '10.77.5.3/32', 'the restarted agent does not hand out c1\'s address');
  t.equal((await runPlugin(plugin, env('CHECK', 'c1', pod1.path), pluginStdin(confDir))).code, 0, 'c1 is still known after the crash');
  t.equal((await runPlugin(plugin, env('DEL', 'c1', pod1.path), pluginStdin(confDir))).code, 0);
  t.equal((await runPlugin(plugin, env('DEL', 'c2', ''), pluginStdin(confDir))).code, 0);
  t.same((await nl.links(node.path)).filter((l) => l.name.startsWith('cap')), [], 'both host veths removed');

  agent!.kill('SIGTERM');
  t.equal(await exited(agent!), 0, 'clean exit on SIGTERM');
  t.notOk(existsSync(socket), 'socket removed');
  const after = await runPlugin(plugin, env('ADD', 'c3', pod2.path), pluginStdin(confDir));
  t.match(after.json, { code: 11, details: /No such file/ });
});
