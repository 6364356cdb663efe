// The truth-table lab world shared by the NetworkPolicy and AdminNetworkPolicy lab tests:
// namespaces x, y, z and six pods pinned to nodes, and how to find a pod's network namespace.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import type { Namespace as ApiNamespace, Pod } from '../../src/api/kinds.js';
import { readState, type LabTopology } from '../../src/lab/index.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { kubectlFor, type Kubectl } from '../helpers/kubectl.js';
import type { Namespace } from '../native/fixtures/netns.js';
import { probe, startServers } from '../network/policy-probe.js';
import { PROBES } from '../network/policy-scenarios.js';

// Where each pod of the scenarios' world lives, and its named container ports (as in policy-scenarios.ts).
export const PLACEMENT: { ns: string; name: string; node: number; web: number }[] = [
  { ns: 'x', name: 'a', node: 1, web: 80 }, { ns: 'y', name: 'a', node: 1, web: 80 }, { ns: 'z', name: 'a', node: 1, web: 80 },
  { ns: 'x', name: 'b', node: 2, web: 81 }, { ns: 'y', name: 'b', node: 2, web: 81 }, { ns: 'z', name: 'b', node: 3, web: 81 },
];
export const NAMESPACES = [{ name: 'x', labels: { ns: 'x', team: 'a' } }, { name: 'y', labels: { ns: 'y', team: 'a' } }, { name: 'z', labels: { ns: 'z', team: 'b' } }];
export const manifests = (): string => [
  ...NAMESPACES.map((n) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n.name, labels: n.labels } })),
  ...PLACEMENT.map((p) => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { namespace: p.ns, name: p.name, labels: { app: p.name, role: p.name === 'a' ? 'client' : 'server', tt: 'yes' } },
    spec: {
      nodeName: `node-${p.node}`, terminationGracePeriodSeconds: 1,
      containers: [{
        name: 'c', image: 'localhost/capstan/busybox:1', command: ['sleep', '100000'],
        ports: [{ name: 'web', containerPort: p.web, protocol: 'TCP' }, { name: 'dgram', containerPort: 81, protocol: 'UDP' }],
      }],
    },
  })),
].map((o) => JSON.stringify(o)).join('\n');

/** The network namespace of a pod's processes, found by the pod's UID in their cgroup path. */
export function podNetns(uid: string): Namespace {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(`pod${uid}`)) return { name: `pod-${uid}`, path: `/proc/${pid}/ns/net` };
    } catch { /* gone meanwhile */ }
  }
  throw new Error(`no process of pod ${uid}`);
}


export const podKey = (p: Pod): string => `${p.metadata.namespace}/${p.metadata.name}`;

/** What decides a flow in the expected matrix (the NetworkPolicy oracle or the admin tiers' one). */
interface FlowOracle {
  allowed(src: { ip: string; pod: Pod }, dst: { ip: string; pod: Pod }, port: number, protocol: 'TCP' | 'UDP'): boolean;
}

/** Probes every (source, destination, probe) flow once; the differences from the oracle, and how many flows it allows and refuses. */
export async function probeMatrix(pods: Pod[], netns: Map<string, Namespace>, oracle: FlowOracle): Promise<{ wrong: string[]; allowed: number; refused: number }> {
  const where = (p: Pod) => p.spec!.nodeName!;
  const wrong: string[] = [];
  let allowed = 0, refused = 0;
  await Promise.all(pods.map(async (src) => {
    const flows = pods.filter((d) => d !== src).flatMap((dst) => PROBES.map((p) => ({ ip: dst.status!.podIP!, ...p, dst })));
    const answered = await probe(netns.get(podKey(src))!, flows.map(({ ip, protocol, port }) => ({ ip, protocol, port })));
    flows.forEach((f, i) => {
      const want = oracle.allowed({ ip: src.status!.podIP!, pod: src }, { ip: f.ip, pod: f.dst }, f.port, f.protocol);
      if (want) allowed++; else refused++;
      if (answered[i] !== want) wrong.push(`${podKey(src)}@${where(src)} → ${podKey(f.dst)}@${where(f.dst)} ${f.protocol}/${f.port}: ${answered[i] ? 'answered' : 'no answer'}, oracle ${want ? 'allow' : 'deny'}`);
    });
  }));
  return { wrong, allowed, refused };
}

const run = promisify(execFile);

/** The truth-table world running: a 3-node lab on 2 subnets (taken down at teardown), the six
 *  pods Ready with echo servers in their network namespaces. */
export async function startPolicyLab(t: Test, prefix: string): Promise<{ k: Kubectl; topo: LabTopology; pods: Pod[]; namespaces: ApiNamespace[]; netns: Map<string, Namespace> }> {
  const parent = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(parent, 'lab');
  t.teardown(async () => {
    await run(process.execPath, [capstanBin, 'lab', 'down', '--dir', dir], { timeout: 120_000 }).catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
  });
  const up = await run(process.execPath, [capstanBin, 'lab', 'up', '--nodes', '3', '--subnets', '2', '--dir', dir], { timeout: 240_000 })
    .catch((e: Error & { stderr?: string }) => { throw new Error(`lab up failed: ${e.message}\n${e.stderr ?? ''}`); });
  const k = kubectlFor(t, /export KUBECONFIG=(\S+)/.exec(up.stdout)![1]!);
  const topo = readState(dir)!.topology;
  await k.ok(['apply', '-f', '-'], manifests());
  await k.ok(['wait', '--for=condition=Ready', 'pod', '-l', 'tt=yes', '-A', '--timeout=150s']);
  const pods = (JSON.parse(await k.ok(['get', 'pods', '-A', '-l', 'tt=yes', '-o', 'json'])) as { items: Pod[] }).items;
  const namespaces = (JSON.parse(await k.ok(['get', 'namespaces', '-o', 'json'])) as { items: ApiNamespace[] }).items;
  t.equal(pods.length, 6, 'six pods');
  const netns = new Map(pods.map((p) => [podKey(p), podNetns(p.metadata.uid!)]));
  for (const p of pods) await startServers(t, netns.get(podKey(p))!);
  return { k, topo, pods, namespaces, netns };
}
