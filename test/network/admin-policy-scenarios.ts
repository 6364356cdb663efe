// AdminNetworkPolicy / BaselineAdminNetworkPolicy scenarios over the truth-table world of
// policy-scenarios.ts (namespaces x, y, z; pods a and b in each): the tiers' order (admin
// Deny over a NetworkPolicy allow, Pass handing over to NetworkPolicy, baseline only where no
// NetworkPolicy isolates, priorities), egress peers by pod, by network and named port.
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, NetworkPolicy } from '../../src/api/kinds.js';
import { BLOCKS } from './policy-scenarios.js';

const np = (ns: string, name: string, spec: Record<string, unknown>): NetworkPolicy =>
  ({ metadata: { namespace: ns, name }, spec: spec as unknown as NetworkPolicy['spec'] });
const anp = (name: string, spec: Record<string, unknown>): AdminNetworkPolicy =>
  ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name }, spec: spec as unknown as AdminNetworkPolicy['spec'] });
const banp = (spec: Record<string, unknown>): BaselineAdminNetworkPolicy =>
  ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec: spec as unknown as BaselineAdminNetworkPolicy['spec'] });
const ns = (labels: Record<string, string>) => ({ namespaces: { matchLabels: labels } });

export interface AdminScenario {
  name: string;
  policies: NetworkPolicy[];
  admin: AdminNetworkPolicy[];
  baseline: BaselineAdminNetworkPolicy[];
}

export const adminScenarios: AdminScenario[] = [
  {
    name: 'ANP Deny overrides a NetworkPolicy allow',
    policies: [np('x', 'allow-all-to-b', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{}] })],
    admin: [anp('deny-y-to-x', { priority: 10, subject: ns({ ns: 'x' }), ingress: [{ name: 'no-y', action: 'Deny', from: [ns({ ns: 'y' })] }] })],
    baseline: [],
  },
  {
    name: 'ANP Pass delegates to NetworkPolicy',
    policies: [np('x', 'from-y-a-80', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } }, podSelector: { matchLabels: { app: 'a' } } }], ports: [{ port: 80 }] }] })],
    admin: [
      anp('pass-team-a', { priority: 5, subject: ns({ ns: 'x' }), ingress: [{ name: 'to-np', action: 'Pass', from: [ns({ team: 'a' })] }] }),
      anp('deny-rest', { priority: 20, subject: ns({ ns: 'x' }), ingress: [{ name: 'everyone', action: 'Deny', from: [{ namespaces: {} }] }] }),
    ],
    baseline: [],
  },
  {
    name: 'BANP denies where no NetworkPolicy selects',
    policies: [np('y', 'b-from-z', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'z' } } }] }] })],
    admin: [],
    baseline: [banp({ subject: { namespaces: {} }, ingress: [{ name: 'no-z', action: 'Deny', from: [ns({ ns: 'z' })] }] })],
  },
  {
    name: 'priority order: lower number first',
    policies: [np('y', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })],
    admin: [
      // Created in the "wrong" order on purpose: names sort the other way round.
      anp('a-deny-x', { priority: 40, subject: ns({ ns: 'y' }), ingress: [{ name: 'x-all', action: 'Deny', from: [ns({ ns: 'x' })] }] }),
      anp('b-allow-x-80', { priority: 30, subject: ns({ ns: 'y' }), ingress: [{ name: 'x-tcp80', action: 'Allow', from: [ns({ ns: 'x' })], ports: [{ portNumber: { protocol: 'TCP', port: 80 } }] }] }),
    ],
    baseline: [],
  },
  {
    name: 'egress: named port, network with port range, Pass to the baseline',
    policies: [],
    admin: [anp('z-a-out', {
      priority: 1,
      subject: { pods: { namespaceSelector: { matchLabels: { ns: 'z' } }, podSelector: { matchLabels: { app: 'a' } } } },
      egress: [
        { name: 'web-to-b', action: 'Allow', to: [{ pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'b' } } } }], ports: [{ namedPort: 'web' }] },
        { name: 'no-node-2', action: 'Deny', to: [{ networks: [BLOCKS.n2] }], ports: [{ portRange: { protocol: 'TCP', start: 80, end: 82 } }] },
        { name: 'udp81-to-baseline', action: 'Pass', to: [{ namespaces: {} }], ports: [{ portNumber: { protocol: 'UDP', port: 81 } }] },
      ],
    })],
    baseline: [banp({
      subject: { pods: { namespaceSelector: { matchLabels: { ns: 'z' } }, podSelector: { matchLabels: { app: 'a' } } } },
      egress: [{ name: 'allow-x-tcp', action: 'Allow', to: [ns({ ns: 'x' })], ports: [{ portRange: { protocol: 'TCP', start: 80, end: 82 } }] }, { name: 'rest', action: 'Deny', to: [{ namespaces: {} }] }],
    })],
  },
];
