// The lab's shape as data: names and addresses for a router, S segments, a control plane
// and N nodes. Pure, so the plan can be checked without root.

export interface LabNode {
  name: string;
  netns: string;
  segment: number;
  ip: string;
  /** The veth end inside the router namespace (the node's end is `eth0`). */
  routerIf: string;
  cgroupRoot: string;
}

export interface LabTopology {
  id: string;
  routerNetns: string;
  segments: { index: number; bridge: string; cidr: string; gateway: string }[];
  controlPlane: { netns: string; ip: string; routerIf: string; segment: 0 };
  nodes: LabNode[];
  apiPort: number;
}

export const LAB_PREFIX = 'cl-';
export const MAX_NODES = 200;
export const MAX_SUBNETS = 250;

/** Namespaces are `cl-<id>-…`; id is short so every name stays far under 15 characters. */
export function labTopology(id: string, nodes: number, subnets: number): LabTopology {
  if (!/^[0-9a-f]{4,6}$/.test(id)) throw new Error(`lab id ${JSON.stringify(id)}: 4–6 hex digits`);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES) throw new Error(`--nodes ${nodes}: 1..${MAX_NODES}`);
  if (!Number.isInteger(subnets) || subnets < 1 || subnets > MAX_SUBNETS) throw new Error(`--subnets ${subnets}: 1..${MAX_SUBNETS}`);
  const p = `${LAB_PREFIX}${id}`;
  const segments = Array.from({ length: subnets }, (_, s) => ({ index: s, bridge: `br${s}`, cidr: `10.77.${s}.0/24`, gateway: `10.77.${s}.1` }));
  return {
    id,
    routerNetns: `${p}-r`,
    segments,
    controlPlane: { netns: `${p}-cp`, ip: '10.77.0.2', routerIf: 'vcp', segment: 0 },
    nodes: Array.from({ length: nodes }, (_, k) => {
      const i = k + 1;
      const segment = k % subnets;
      return { name: `node-${i}`, netns: `${p}-n${i}`, segment, ip: `10.77.${segment}.${10 + i}`, routerIf: `vn${i}`, cgroupRoot: `/capstan-lab-${id}-node-${i}` };
    }),
    apiPort: 6443,
  };
}

/** Every namespace the topology names, router last (deleting it drops the segments). */
export function labNamespaces(t: LabTopology): string[] {
  return [t.controlPlane.netns, ...t.nodes.map((n) => n.netns), t.routerNetns];
}
