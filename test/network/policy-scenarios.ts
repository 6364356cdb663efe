// The truth-table world: three namespaces, six pods on two nodes (same-node and cross-node
// pairs), named container ports that differ per pod, and the policy scenarios every test
// of NetworkPolicy enforcement runs (model, fake nftables, real nftables in namespaces).
import type { Namespace, NetworkPolicy, Pod } from '../../src/api/kinds.js';

export const NODES = ['n1', 'n2'] as const;
export const BLOCKS: Record<(typeof NODES)[number], string> = { n1: '10.244.1.0/24', n2: '10.244.2.0/24' };

export const namespaces: Namespace[] = [
  { metadata: { name: 'x', labels: { ns: 'x', team: 'a' } } },
  { metadata: { name: 'y', labels: { ns: 'y', team: 'a' } } },
  { metadata: { name: 'z', labels: { ns: 'z', team: 'b' } } },
];

function pod(ns: string, name: string, ip: string, node: string, web: number): Pod {
  return {
    metadata: { namespace: ns, name, labels: { app: name, role: name === 'a' ? 'client' : 'server' } },
    spec: {
      nodeName: node,
      containers: [{
        name: 'c', image: 'none',
        ports: [{ name: 'web', containerPort: web, protocol: 'TCP' }, { name: 'dgram', containerPort: 81, protocol: 'UDP' }],
      }],
    },
    status: { phase: 'Running', podIP: ip },
  };
}

export const pods: Pod[] = [
  pod('x', 'a', '10.244.1.2', 'n1', 80),
  pod('x', 'b', '10.244.2.2', 'n2', 81),
  pod('y', 'a', '10.244.1.3', 'n1', 80),
  pod('y', 'b', '10.244.2.3', 'n2', 81),
  pod('z', 'a', '10.244.1.4', 'n1', 80),
  pod('z', 'b', '10.244.1.5', 'n1', 81),
];

/** What every probe tries: servers in every pod listen on all of these. */
export const PROBES: { protocol: 'TCP' | 'UDP'; port: number }[] = [
  { protocol: 'TCP', port: 80 }, { protocol: 'TCP', port: 81 }, { protocol: 'TCP', port: 82 },
  { protocol: 'UDP', port: 80 }, { protocol: 'UDP', port: 81 },
];

const np = (ns: string, name: string, spec: Record<string, unknown>): NetworkPolicy =>
  ({ metadata: { namespace: ns, name }, spec: spec as unknown as NetworkPolicy['spec'] });

export const scenarios: { name: string; policies: NetworkPolicy[] }[] = [
  { name: 'no policy', policies: [] },
  { name: 'default deny ingress in x', policies: [np('x', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })] },
  { name: 'default deny egress in y', policies: [np('y', 'deny', { podSelector: {}, policyTypes: ['Egress'] })] },
  { name: 'allow from namespaces of team a', policies: [np('x', 'from-team-a', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] })] },
  { name: 'pod AND namespace', policies: [np('x', 'and', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } }, podSelector: { matchLabels: { app: 'a' } } }] }] })] },
  { name: 'pod OR namespace', policies: [np('x', 'or', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }, { podSelector: { matchLabels: { app: 'a' } } }] }] })] },
  { name: 'ipBlock with except', policies: [np('z', 'block', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.244.1.0/24', except: ['10.244.1.3/32'] } }] }] })] },
  {
    name: 'named ports (ingress on the pod, egress on the destination)', policies: [
      np('z', 'web-in', { podSelector: {}, ingress: [{ ports: [{ port: 'web' }, { port: 'dgram', protocol: 'UDP' }] }] }),
      np('y', 'web-out', { podSelector: { matchLabels: { app: 'a' } }, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: {} }], ports: [{ port: 'web' }] }] }),
    ],
  },
  { name: 'endPort range', policies: [np('x', 'range', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ ports: [{ port: 80, endPort: 81 }] }] })] },
  // A selector with a port range: a rule of the pod chain looking up the shared peer set (no pod set holds ranges).
  { name: 'endPort range from a namespace', policies: [np('y', 'range-from-x', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }], ports: [{ port: 80, endPort: 81 }] }] })] },
  { name: 'UDP only', policies: [np('x', 'udp', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ ports: [{ protocol: 'UDP', port: 80 }] }] })] },
  {
    name: 'union of two policies on one pod', policies: [
      np('x', 'from-y-tcp80', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }], ports: [{ port: 80 }] }] }),
      np('x', 'from-z-udp81', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'z' } } }], ports: [{ protocol: 'UDP', port: 81 }] }] }),
    ],
  },
  {
    name: 'egress and ingress together', policies: [
      np('y', 'out-to-x', { podSelector: {}, egress: [{ to: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }] }] }),
      np('x', 'in-from-y-a', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } }, podSelector: { matchLabels: { app: 'a' } } }] }] }),
    ],
  },
];

export const podIP = (p: Pod): string => p.status!.podIP!;
export const podName = (p: Pod): string => `${p.metadata.namespace}/${p.metadata.name}`;
