// A real containerd 1.6 with capstan's CNI: RunPodSandbox gets an address from the node's
// block through the thin plugin and the agent (also containerd's loopback call), the pod
// reaches the node, and stopping the sandbox gives the address back.
import t from 'tap';
import { execa } from 'execa';
import { join } from 'node:path';
import { CRIClient } from '../../cri/index.js';
import { startContainerd, type ContainerdHandle } from '../../src/kubelet/containerd/index.js';
import { ensureBuiltinImages, PAUSE_IMAGE } from '../../src/kubelet/images/index.js';
import { createNetlink } from '../../src/netlink/index.js';
import { POD_ROUTE_PROTOCOL, collectGarbage } from '../../src/network/index.js';
import { utimesSync, writeFileSync } from 'node:fs';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { NODE_IP, nodeNamespace, startAgent, tempDir } from './fixtures.js';

const nl = createNetlink('addon');

t.test('containerd RunPodSandbox gets a capstan address', { skip: runtimeUnavailable() }, async (t) => {
  const node = await nodeNamespace(t);
  const dir = tempDir(t, 'ccnid-');
  const a = await startAgent(t, node, '10.77.9.0/24', dir);
  const cgroupParent = `/capstan-cni-${Math.random().toString(36).slice(2, 8)}`;
  let containerd: ContainerdHandle | undefined;
  let cri: CRIClient | undefined;
  t.teardown(async () => {
    cri?.close();
    await containerd?.destroy({ cgroupParents: [cgroupParent] }).catch(() => undefined);
  });
  containerd = await startContainerd({ root: join(dir, 'c'), netns: node.name, isolateMounts: true, cniBinDir: a.binDir, cniConfDir: a.confDir });
  cri = new CRIClient({ socket: containerd.socket });
  await ensureBuiltinImages(containerd.socket, [PAUSE_IMAGE]);
  const status = await cri.status();
  t.ok(status.status?.conditions?.some((c: { type: string; status: boolean }) => c.type === 'NetworkReady' && c.status), 'NetworkReady with the capstan conflist');

  const uid = `uid-${Date.now()}`;
  const config = {
    metadata: { name: 'web', uid, namespace: 'default', attempt: 0 },
    hostname: 'web', log_directory: join(dir, 'logs'), dns_config: {},
    linux: { cgroup_parent: `${cgroupParent}/pod${uid}` },
  };
  const started = Date.now();
  const id = await cri.runPodSandbox(config);
  t.comment(`RunPodSandbox ${Date.now() - started} ms`);
  const sb = await cri.podSandboxStatus(id, true);
  t.equal(sb.status?.network?.ip, '10.77.9.2', 'the sandbox has the first address of the node block');
  const pid = (JSON.parse(sb.info?.info ?? '{}') as { pid?: number }).pid;
  t.ok(pid, 'pause pid');
  const inPod = (...args: string[]) => execa('nsenter', ['-t', String(pid), '-n', ...args], { reject: false });
  t.match((await inPod('ip', '-4', '-o', 'addr', 'show', 'eth0')).stdout, /inet 10\.77\.9\.2\/32/, 'eth0 carries the /32');
  t.match((await inPod('ip', '-o', 'link', 'show', 'lo')).stdout, /[<,]UP[,>]/, 'loopback up (containerd\'s loopback call went through capstan)');
  t.match((await inPod('ip', 'route')).stdout, /default via 169\.254\.1\.1 dev eth0/);
  t.equal((await inPod('ping', '-c', '2', '-i', '0.2', '-W', '2', NODE_IP)).exitCode, 0, 'the pod reaches the node');
  const alloc = a.agent.ipam.list();
  t.same(alloc.map((x) => [x.containerID, x.pod]), [[id, 'default/web']], 'allocation recorded under the sandbox ID with the pod name');
  t.ok((await nl.routes(node.path, 4, { protocol: POD_ROUTE_PROTOCOL })).some((r) => r.dst === '10.77.9.2/32' && r.dev === alloc[0]!.hostVeth), 'host route');

  // A record whose sandbox containerd never heard of (a DEL that never came), aged past the grace.
  const ghost = join(a.agent.ipam.dir, '10.77.9.50');
  writeFileSync(ghost, JSON.stringify({ containerID: 'ghost', ifName: 'eth0', hostVeth: 'capghost' }));
  utimesSync(ghost, new Date(Date.now() - 600_000), new Date(Date.now() - 600_000));
  a.agent.ipam.reload();
  const reclaimed = await collectGarbage(a.agent, async () => (await cri!.listPodSandbox()).map((s) => s.id), Date.now(), 120_000);
  t.same(reclaimed.map((x) => x.containerID), ['ghost'], 'GC asks containerd: CNI container IDs are sandbox IDs, the live pod is kept');

  await cri.stopPodSandbox(id);
  t.same(a.agent.ipam.list(), [], 'StopPodSandbox released the address');
  t.notOk((await nl.links(node.path)).some((l) => l.name === alloc[0]!.hostVeth), 'and removed the host veth');
  await cri.stopPodSandbox(id);
  await cri.removePodSandbox(id);
  t.same(a.agent.ipam.list(), []);
});
