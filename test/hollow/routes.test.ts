// The network agent's desired routes never point at a hollow node: its InternalIP is a
// loopback address, and no route or VXLAN peer via loopback can reach anything.
import t from 'tap';
import { desiredRoutes } from '../../src/network/routes/index.js';
import { nodeObject } from '../../src/hollow/node-object.js';
import { nodeInternalIP } from '../../src/hollow/addresses.js';
import type { KubeObject } from '../../src/api/object.js';

const shape = { cpu: '4', memory: '16Gi', pods: 110, ephemeralStorage: '100Gi' };
const withCIDR = (n: KubeObject, cidr: string): KubeObject => ({ ...n, spec: { podCIDR: cidr, podCIDRs: [cidr] } });
const real = (name: string, ip: string, cidr: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { podCIDR: cidr }, status: { addresses: [{ type: 'InternalIP', address: ip }] },
});

t.test('hollow nodes are skipped with a reason; real nodes are still routed', async (t) => {
  const hollow = [0, 1].map((i) => withCIDR(nodeObject(`hollow-${i}`, { address: nodeInternalIP(i), port: 40000 }, shape, Date.now()), `10.244.${10 + i}.0/24`));
  const uplink = { name: 'eth0', address: '10.0.1.11', prefixLen: 24, mtu: 1500 };
  for (const mode of ['CrossSubnet', 'Always', 'Never'] as const) {
    const state = desiredRoutes('n1', [real('n1', '10.0.1.11', '10.244.1.0/24'), real('n2', '10.0.1.12', '10.244.2.0/24'), ...hollow], mode, uplink);
    t.same(state.skipped.filter((s) => s.node.startsWith('hollow-')), [
      { node: 'hollow-0', reason: 'InternalIP 127.1.0.1 is a loopback address: no route via loopback' },
      { node: 'hollow-1', reason: 'InternalIP 127.1.0.2 is a loopback address: no route via loopback' },
    ], mode);
    t.notOk([...state.routes.map((r) => r.via), ...state.fdb.map((f) => f.dst)].some((a) => a.startsWith('127.')), `${mode}: nothing via loopback`);
  }
  const direct = desiredRoutes('n1', [real('n1', '10.0.1.11', '10.244.1.0/24'), real('n2', '10.0.1.12', '10.244.2.0/24'), ...hollow], 'CrossSubnet', uplink);
  t.same(direct.routes.map((r) => [r.dst, r.via]), [['10.244.2.0/24', '10.0.1.12']]);
});
