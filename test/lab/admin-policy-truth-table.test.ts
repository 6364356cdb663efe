// AdminNetworkPolicy / BaselineAdminNetworkPolicy truth tables through a real multi-node lab
// (`capstan lab up --nodes 3 --subnets 2`), in the same world as policy-truth-table.test.ts:
// six pods in three labelled namespaces, made by kubelets and containerd. Each scenario of
// admin-policy-scenarios.ts (NetworkPolicies and admin policies together) is applied with
// kubectl, and every (source pod, destination pod, protocol, port) is probed from the pods'
// network namespaces and compared with the independent oracle (admin-policy-oracle.ts) over
// the pods and namespaces read back from the API. The admin rules that decided are counted in
// the nodes' tables under the policy's name.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import type { NetworkPolicy } from '../../src/api/kinds.js';
import type { LabNode } from '../../src/lab/index.js';
import { AdminOracle } from '../network/admin-policy-oracle.js';
import { adminScenarios, type AdminScenario } from '../network/admin-policy-scenarios.js';
import { BLOCKS } from '../network/policy-scenarios.js';
import { NAMESPACES, probeMatrix, startPolicyLab } from './policy-lab.js';

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
  const { k, topo, pods, namespaces, netns } = await startPolicyLab(t, 'capstan-lab-anp-');

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
