// AdminNetworkPolicy / BaselineAdminNetworkPolicy truth tables through a real multi-node lab
// (`capstan lab up --nodes 3 --subnets 2`), in the same world as policy-truth-table.test.ts:
// six pods in three labelled namespaces, made by kubelets and containerd. Each scenario of
// admin-policy-scenarios.ts (NetworkPolicies and admin policies together) is applied with
// kubectl, and every (source pod, destination pod, protocol, port) is probed from the pods'
// network namespaces and compared with the independent oracle (admin-policy-oracle.ts) over
// the pods and namespaces read back from the API. The admin rules that decided are counted in
// the nodes' tables under the policy's name.
import t from 'tap';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Namespace as ApiNamespace, NetworkPolicy, Pod } from '../../src/api/kinds.js';
import { readState, type LabNode } from '../../src/lab/index.js';
import { capstanBin } from '../helpers/apiserver-process.js';
import { kubectlFor, type Kubectl } from '../helpers/kubectl.js';
import { AdminOracle } from '../network/admin-policy-oracle.js';
import { adminScenarios, type AdminScenario } from '../network/admin-policy-scenarios.js';
import { startServers } from '../network/policy-probe.js';
import { BLOCKS } from '../network/policy-scenarios.js';
import { NAMESPACES, manifests, podKey, podNetns, probeMatrix } from './policy-lab.js';

const run = promisify(execFile);
const root = process.getuid?.() === 0;

/** Packets counted by the admin tiers' rules of every node's table, by rule comment (`anp:<name>`, `banp:default`). */
function adminCounts(nodes: LabNode[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const node of nodes) {
    const text = execFileSync('nsenter', [`--net=/run/netns/${node.netns}`, 'nft', 'list', 'table', 'ip', 'capstan-policy'], { encoding: 'utf8' });
    for (const m of text.matchAll(/counter packets (\d+) bytes \d+ (?:accept|drop|return) comment "(b?anp:[^"]+)"/g)) out.set(m[2]!, (out.get(m[2]!) ?? 0) + Number(m[1]));
  }
  return out;
}

t.test('AdminNetworkPolicy truth tables in a 3-node lab on 2 subnets', { skip: root ? false : 'needs root', timeout: 600_000 }, async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'capstan-lab-anp-'));
  const dir = join(parent, 'lab');
  t.teardown(async () => {
    await run(process.execPath, [capstanBin, 'lab', 'down', '--dir', dir], { timeout: 120_000 }).catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
  });
  const up = await run(process.execPath, [capstanBin, 'lab', 'up', '--nodes', '3', '--subnets', '2', '--dir', dir], { timeout: 240_000 })
    .catch((e: Error & { stderr?: string }) => { throw new Error(`lab up failed: ${e.message}\n${e.stderr ?? ''}`); });
  const kubeconfig = /export KUBECONFIG=(\S+)/.exec(up.stdout)![1]!;
  const k: Kubectl = kubectlFor(t, kubeconfig);
  const topo = readState(dir)!.topology;

  await k.ok(['apply', '-f', '-'], manifests());
  await k.ok(['wait', '--for=condition=Ready', 'pod', '-l', 'tt=yes', '-A', '--timeout=150s']);
  const pods = (JSON.parse(await k.ok(['get', 'pods', '-A', '-l', 'tt=yes', '-o', 'json'])) as { items: Pod[] }).items;
  const namespaces = (JSON.parse(await k.ok(['get', 'namespaces', '-o', 'json'])) as { items: ApiNamespace[] }).items;
  t.equal(pods.length, 6, 'six pods');
  const key = podKey;
  const netns = new Map(pods.map((p) => [key(p), podNetns(p.metadata.uid!)]));
  for (const p of pods) await startServers(t, netns.get(key(p))!);

  // The scenarios' "node 2 block" is the lab's node-2 pod block (x/b and y/b live there).
  const n2Block = (await k.ok(['get', 'node', 'node-2', '-o', 'jsonpath={.spec.podCIDR}'])).trim();
  const inLab = (s: AdminScenario): AdminScenario => JSON.parse(JSON.stringify(s).replaceAll(BLOCKS.n2, n2Block));

  const apply = async (s: AdminScenario) => {
    await Promise.all(NAMESPACES.map((n) => k.ok(['delete', 'networkpolicy', '--all', '-n', n.name])));
    await k.ok(['delete', 'adminnetworkpolicies', '--all']);
    await k.ok(['delete', 'baselineadminnetworkpolicies', '--all']);
    const docs = [
      ...s.policies.map((np: NetworkPolicy) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: np.metadata, spec: np.spec })),
      ...s.admin, ...s.baseline,
    ];
    if (docs.length) await k.ok(['apply', '-f', '-'], docs.map((d) => JSON.stringify(d)).join('\n'));
  };

  const matrix = (oracle: AdminOracle) => probeMatrix(pods, netns, oracle);

  for (const scenario of adminScenarios) {
    await t.test(`scenario: ${scenario.name}`, async (t) => {
      const s = inLab(scenario);
      await apply(s);
      const oracle = new AdminOracle(namespaces, s.policies, s.admin, s.baseline);
      let last = await matrix(oracle);
      // The agents apply what kubectl wrote within moments; until then the old scenario's table holds.
      const deadline = Date.now() + 30_000;
      while (last.wrong.length && Date.now() < deadline) last = await matrix(oracle);
      t.same(last.wrong, [], `${last.allowed} allowed and ${last.refused} refused flows as the oracle says (same node, same segment, across VXLAN)`);
      const counts = adminCounts(topo.nodes);
      for (const a of s.admin) t.ok((counts.get(`anp:${a.metadata.name}`) ?? 0) > 0, `AdminNetworkPolicy ${a.metadata.name}: its rules counted packets`);
      for (const b of s.baseline) t.ok((counts.get(`banp:${b.metadata.name}`) ?? 0) > 0, 'the BaselineAdminNetworkPolicy\'s rules counted packets');
    });
  }
});
