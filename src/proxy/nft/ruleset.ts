// Plans → the whole desired `ip capstan-proxy` table. Static chains; the per-service data
// lives in a few shared sets and maps (see ../DESIGN.md for why this shape and not
// kube-proxy's chain-and-map-per-service one).
import type { BaseChain, Element, Expr, KeyType, SetSpec } from '../../nft/index.js';
import { shortHash, type EndpointTarget, type ProxyConfig, type ServicePortPlan } from '../model.js';

export const MASQ_MARK = 0x4000;

export interface DesiredChain {
  base?: BaseChain;
  rules: Expr[][];
}

export interface DesiredSet {
  spec: SetSpec;
  /** element identity (JSON of the key) → element */
  elements: Map<string, Element>;
}

export interface DesiredTable {
  chains: Map<string, DesiredChain>;
  sets: Map<string, DesiredSet>;
}

const SVC_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];
const NP_KEY: KeyType[] = ['inet_proto', 'inet_service'];
const EP_DATA: KeyType[] = ['ipv4_addr', 'inet_service'];

export const SETS = {
  serviceIPs: { name: 'service-ips', keyType: SVC_KEY, map: 'verdict' },
  serviceNodePorts: { name: 'service-nodeports', keyType: NP_KEY, map: 'verdict' },
  endpoints: { name: 'endpoints', keyType: [...SVC_KEY, 'integer'], data: EP_DATA },
  nodePortEndpoints: { name: 'nodeport-endpoints', keyType: [...NP_KEY, 'integer'], data: EP_DATA },
  clusterIPs: { name: 'cluster-ips', keyType: ['ipv4_addr'] },
  nodePortMasq: { name: 'nodeport-masq', keyType: NP_KEY },
  noEndpointServices: { name: 'no-endpoint-services', keyType: SVC_KEY },
  noEndpointNodePorts: { name: 'no-endpoint-nodeports', keyType: NP_KEY },
  dropServices: { name: 'drop-services', keyType: SVC_KEY },
  dropNodePorts: { name: 'drop-nodeports', keyType: NP_KEY },
  hairpin: { name: 'hairpin', keyType: ['ipv4_addr', 'ipv4_addr'] },
} satisfies Record<string, SetSpec>;

export const elementId = (key: Element['key']): string => key.join('|');

const SVC_FIELDS = ['ip daddr', 'meta l4proto', 'th dport'] as const;
const NP_FIELDS = ['meta l4proto', 'th dport'] as const;

function staticChains(cfg: ProxyConfig): Map<string, DesiredChain> {
  const c = new Map<string, DesiredChain>();
  const jump = (chain: string): Expr[] => [{ kind: 'jump', chain }];
  c.set('nat-prerouting', { base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'accept' }, rules: [jump('services')] });
  c.set('nat-output', { base: { type: 'nat', hook: 'output', priority: -100, policy: 'accept' }, rules: [jump('services')] });
  c.set('nat-postrouting', { base: { type: 'nat', hook: 'postrouting', priority: 100, policy: 'accept' }, rules: [jump('masquerading')] });
  c.set('filter-prerouting', { base: { type: 'filter', hook: 'prerouting', priority: -110, policy: 'accept' }, rules: [jump('reject-services')] });
  c.set('filter-output', { base: { type: 'filter', hook: 'output', priority: -110, policy: 'accept' }, rules: [jump('reject-services')] });
  c.set('masquerading', {
    rules: [
      [{ kind: 'match', field: 'meta mark', value: MASQ_MARK, mask: MASQ_MARK }, { kind: 'masquerade' }],
      [{ kind: 'lookup', fields: ['ip saddr', 'ip daddr'], set: SETS.hairpin.name }, { kind: 'masquerade' }],
    ],
  });
  const local: Expr = { kind: 'fibDaddrLocal' };
  // TCP gets a reset: ICMP errors are rate-limited per peer by the kernel, so a client retrying
  // a Service without endpoints would soon wait a SYN retransmit (1 s) instead of a refusal.
  const tcp: Expr = { kind: 'match', field: 'meta l4proto', value: 'tcp' };
  c.set('reject-services', {
    rules: [
      [tcp, { kind: 'lookup', fields: [...SVC_FIELDS], set: SETS.noEndpointServices.name }, { kind: 'reject', with: 'tcp reset' }],
      [{ kind: 'lookup', fields: [...SVC_FIELDS], set: SETS.noEndpointServices.name }, { kind: 'reject', with: 'icmp port-unreachable' }],
      [{ kind: 'lookup', fields: [...SVC_FIELDS], set: SETS.dropServices.name }, { kind: 'drop' }],
      [local, tcp, { kind: 'lookup', fields: [...NP_FIELDS], set: SETS.noEndpointNodePorts.name }, { kind: 'reject', with: 'tcp reset' }],
      [local, { kind: 'lookup', fields: [...NP_FIELDS], set: SETS.noEndpointNodePorts.name }, { kind: 'reject', with: 'icmp port-unreachable' }],
      [local, { kind: 'lookup', fields: [...NP_FIELDS], set: SETS.dropNodePorts.name }, { kind: 'drop' }],
    ],
  });
  const services: Expr[][] = [];
  const markMasq: Expr = { kind: 'markOr', value: MASQ_MARK };
  const toClusterIP: Expr = { kind: 'lookup', fields: ['ip daddr'], set: SETS.clusterIPs.name };
  if (cfg.masqueradeAll) services.push([toClusterIP, markMasq]);
  else if (cfg.clusterCIDR) services.push([{ kind: 'match', field: 'ip saddr', value: cfg.clusterCIDR, op: '!=' }, toClusterIP, markMasq]);
  services.push([{ kind: 'vmap', fields: [...SVC_FIELDS], map: SETS.serviceIPs.name }]);
  if (cfg.nodePortAddresses?.length) {
    for (const cidr of cfg.nodePortAddresses) services.push([{ kind: 'match', field: 'ip daddr', value: cidr }, local, { kind: 'jump', chain: 'nodeports' }]);
  } else {
    services.push([local, { kind: 'jump', chain: 'nodeports' }]);
  }
  c.set('services', { rules: services });
  c.set('nodeports', {
    rules: [
      [{ kind: 'lookup', fields: [...NP_FIELDS], set: SETS.nodePortMasq.name }, markMasq],
      [{ kind: 'vmap', fields: [...NP_FIELDS], map: SETS.serviceNodePorts.name }],
    ],
  });
  return c;
}

/** Shared load-balancing chain for every service with n endpoints. */
export const lbChain = (n: number): string => `lb-${n}`;
export const lbNodePortChain = (n: number): string => `lbnp-${n}`;

/** Affinity services get kube-proxy's shape: a chain per service, a chain and a timeout set per endpoint. */
function affinityChains(chains: Map<string, DesiredChain>, sets: Map<string, DesiredSet>, p: ServicePortPlan, chain: string, eps: EndpointTarget[]): void {
  const rules: Expr[][] = [];
  const names = eps.map((ep) => shortHash(`${p.id}|${ep.ip}:${ep.port}`));
  names.forEach((h) => rules.push([{ kind: 'lookup', fields: ['ip saddr'], set: `aff-${h}` }, { kind: 'goto', chain: `sep-${h}` }]));
  names.forEach((h, i) => {
    const left = eps.length - i;
    rules.push(left > 1 ? [{ kind: 'numgenMatch', mod: left, value: 0 }, { kind: 'goto', chain: `sep-${h}` }] : [{ kind: 'goto', chain: `sep-${h}` }]);
  });
  chains.set(chain, { rules });
  eps.forEach((ep, i) => {
    const h = names[i]!;
    sets.set(`aff-${h}`, { spec: { name: `aff-${h}`, keyType: ['ipv4_addr'], flags: ['dynamic', 'timeout'] }, elements: new Map() });
    chains.set(`sep-${h}`, {
      rules: [
        [{ kind: 'setUpdate', fields: ['ip saddr'], set: `aff-${h}`, timeout: p.affinitySeconds! }],
        [{ kind: 'match', field: 'meta l4proto', value: p.protocol }, { kind: 'dnat', addr: ep.ip, port: ep.port }],
      ],
    });
  });
}

const sameEndpoints = (p: ServicePortPlan): boolean => {
  const a = p.clusterEndpoints, b = p.nodePortEndpoints;
  return a === b || (a.length === b.length && a.every((e, i) => e.ip === b[i]!.ip && e.port === b[i]!.port));
};

/** What one service port contributes to the table. Shared elements (hairpin, cluster IPs)
 *  and load-balancing chains may be wanted by several plans: they are reference-counted. */
export interface Fragment {
  elements: [set: string, el: Element][];
  shared: [set: string, el: Element][];
  chains: Map<string, DesiredChain>;
  sets: Map<string, DesiredSet>;
  lb: number[];
  lbNodePort: number[];
}

export function fragmentFor(p: ServicePortPlan): Fragment {
  const f: Fragment = { elements: [], shared: [], chains: new Map(), sets: new Map(), lb: [], lbNodePort: [] };
  const own = (set: string, el: Element) => f.elements.push([set, el]);
  for (const ep of p.clusterEndpoints) f.shared.push([SETS.hairpin.name, { key: [ep.ip, ep.ip] }]);
  for (const ep of p.nodePortEndpoints) f.shared.push([SETS.hairpin.name, { key: [ep.ip, ep.ip] }]);
  const svcChain = `svc-${p.hash}`, npChain = `svcnp-${p.hash}`;
  const affinity = p.affinitySeconds !== undefined;
  const same = sameEndpoints(p);
  if (affinity) {
    if (p.clusterEndpoints.length) affinityChains(f.chains, f.sets, p, svcChain, p.clusterEndpoints);
    if (p.nodePort && p.nodePortEndpoints.length && !same) affinityChains(f.chains, f.sets, p, npChain, p.nodePortEndpoints);
  }
  const n = p.clusterEndpoints.length;
  for (const ip of p.clusterIPs) {
    f.shared.push([SETS.clusterIPs.name, { key: [ip] }]);
    const key = [ip, p.protocol, p.port];
    if (!n) own(p.hasEndpoints ? SETS.dropServices.name : SETS.noEndpointServices.name, { key });
    else if (affinity) own(SETS.serviceIPs.name, { key, verdict: { kind: 'goto', chain: svcChain } });
    else {
      f.lb.push(n);
      own(SETS.serviceIPs.name, { key, verdict: { kind: 'goto', chain: lbChain(n) } });
      for (let i = 0; i < n; i++) {
        const ep = p.clusterEndpoints[i]!;
        own(SETS.endpoints.name, { key: [ip, p.protocol, p.port, i], data: [ep.ip, ep.port] });
      }
    }
  }
  if (p.nodePort) {
    const key = [p.protocol, p.nodePort];
    const m = p.nodePortEndpoints.length;
    if (!m) own(p.hasEndpoints ? SETS.dropNodePorts.name : SETS.noEndpointNodePorts.name, { key });
    else {
      if (!p.externalLocal) own(SETS.nodePortMasq.name, { key });
      if (affinity) own(SETS.serviceNodePorts.name, { key, verdict: { kind: 'goto', chain: same && n ? svcChain : npChain } });
      else {
        f.lbNodePort.push(m);
        own(SETS.serviceNodePorts.name, { key, verdict: { kind: 'goto', chain: lbNodePortChain(m) } });
        for (let i = 0; i < m; i++) {
          const ep = p.nodePortEndpoints[i]!;
          own(SETS.nodePortEndpoints.name, { key: [p.protocol, p.nodePort, i], data: [ep.ip, ep.port] });
        }
      }
    }
  }
  return f;
}

export const lbRule = (n: number): Expr[] => [{ kind: 'dnatMap', fields: [...SVC_FIELDS], numgen: n, map: SETS.endpoints.name }];
export const lbNodePortRule = (n: number): Expr[] => [{ kind: 'dnatMap', fields: [...NP_FIELDS], numgen: n, map: SETS.nodePortEndpoints.name }];

/** The static part: base chains, dispatch chains and the shared sets, empty. */
export function emptyTable(cfg: ProxyConfig): DesiredTable {
  const sets = new Map<string, DesiredSet>();
  for (const spec of Object.values(SETS)) sets.set(spec.name, { spec: spec as SetSpec, elements: new Map() });
  return { chains: staticChains(cfg), sets };
}

export function desiredTable(plans: readonly ServicePortPlan[], cfg: ProxyConfig): DesiredTable {
  const t = emptyTable(cfg);
  const lbSizes = new Set<number>(), npSizes = new Set<number>();
  for (const p of plans) {
    const f = fragmentFor(p);
    for (const [set, el] of f.elements) t.sets.get(set)!.elements.set(elementId(el.key), el);
    for (const [set, el] of f.shared) t.sets.get(set)!.elements.set(elementId(el.key), el);
    for (const [name, c] of f.chains) t.chains.set(name, c);
    for (const [name, s] of f.sets) t.sets.set(name, s);
    for (const n of f.lb) lbSizes.add(n);
    for (const n of f.lbNodePort) npSizes.add(n);
  }
  for (const n of [...lbSizes].sort((a, b) => a - b)) t.chains.set(lbChain(n), { rules: [lbRule(n)] });
  for (const n of [...npSizes].sort((a, b) => a - b)) t.chains.set(lbNodePortChain(n), { rules: [lbNodePortRule(n)] });
  return t;
}

export function countRulesAndElements(t: DesiredTable): { rules: number; elements: number; chains: number } {
  let rules = 0, elements = 0;
  for (const c of t.chains.values()) rules += c.rules.length;
  for (const s of t.sets.values()) elements += s.elements.size;
  return { rules, elements, chains: t.chains.size };
}
