// Plans → the whole desired `ip capstan-proxy` table. Static chains; the per-service data
// lives in a few shared sets and maps (see ../DESIGN.md for why this shape and not
// kube-proxy's chain-and-map-per-service one).
import type { BaseChain, ColumnReader, Element, Expr, KeyType, NftOp, SetFlag, SetSpec } from '../../nft/index.js';
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
  /** A set read back in columns: its elements are here until `readElements` moves them into
   *  `elements` (only a restart needs them by key; the diff reads the columns). */
  columns?: ColumnReader;
}

export interface DesiredTable {
  chains: Map<string, DesiredChain>;
  sets: Map<string, DesiredSet>;
}

const SVC_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];
const NP_KEY: KeyType[] = ['inet_proto', 'inet_service'];
const EP_DATA: KeyType[] = ['ipv4_addr', 'inet_service'];

/** Which copy of the generational maps a service port lives in (see DESIGN.md: changing an
 *  element's data needs a delete, and a delete costs a grace period; a service port whose
 *  data changes moves to the other copy instead, and its old elements are left to expire).
 *  Verdicts and endpoint data move independently: replacing an endpoint leaves the verdict
 *  alone, and adding a verdict (a goto) makes the kernel re-validate every jump. */
export type Gen = 0 | 1;
export interface Gens { verdict: Gen; data: Gen }

/** Every element is added with this timeout, and `expires` as long: in effect, forever. */
export const LIVE_MS = 3650 * 86_400_000;
/** A retired verdict element lapses at the next jiffy; data elements several jiffies later
 *  (expiry is taken per element as the batch is parsed, and a jiffy may tick in between), so
 *  a packet that still took a retired verdict always finds the data it leads to. */
export const RETIRE_VERDICT_MS = 1;
export const RETIRE_DATA_MS = 50;
/** Read back with less time left than this, an element is one we retired. */
export const DYING_MS = 86_400_000;

const timeout = ['timeout'] as SetFlag[];
const genMaps = {
  serviceIPs: { name: 'service-ips', keyType: SVC_KEY, map: 'verdict' },
  serviceNodePorts: { name: 'service-nodeports', keyType: NP_KEY, map: 'verdict' },
  endpoints: { name: 'endpoints', keyType: [...SVC_KEY, 'integer'], data: EP_DATA },
  nodePortEndpoints: { name: 'nodeport-endpoints', keyType: [...NP_KEY, 'integer'], data: EP_DATA },
} satisfies Record<string, Omit<SetSpec, 'flags'>>;
const plainSets = {
  clusterIPs: { name: 'cluster-ips', keyType: ['ipv4_addr'] },
  nodePortMasq: { name: 'nodeport-masq', keyType: NP_KEY },
  noEndpointServices: { name: 'no-endpoint-services', keyType: SVC_KEY },
  noEndpointNodePorts: { name: 'no-endpoint-nodeports', keyType: NP_KEY },
  dropServices: { name: 'drop-services', keyType: SVC_KEY },
  dropNodePorts: { name: 'drop-nodeports', keyType: NP_KEY },
  hairpin: { name: 'hairpin', keyType: ['ipv4_addr', 'ipv4_addr'] },
} satisfies Record<string, Omit<SetSpec, 'flags'>>;

type GenMap = keyof typeof genMaps;
export const genSet = (m: GenMap, g: Gen): string => `${genMaps[m].name}-${g}`;

export const SETS = Object.fromEntries(Object.entries(plainSets).map(([k, v]) => [k, { ...v, flags: timeout }])) as { [K in keyof typeof plainSets]: SetSpec & { name: (typeof plainSets)[K]['name'] } };

/** Every static set and map, by name. */
export const SET_SPECS: ReadonlyMap<string, SetSpec> = new Map([
  ...Object.values(SETS).map((s): [string, SetSpec] => [s.name, s]),
  ...Object.keys(genMaps).flatMap((m) => ([0, 1] as Gen[]).map((g): [string, SetSpec] => [genSet(m as GenMap, g), { ...genMaps[m as GenMap], name: genSet(m as GenMap, g), flags: timeout } as SetSpec])),
]);
/** Verdict maps: a retired element there must lapse before the data it leads to. */
export const isVerdictSet = (name: string): boolean => SET_SPECS.get(name)?.map === 'verdict';
export const isGenerational = (name: string): boolean => /-[01]$/.test(name) && SET_SPECS.has(name);

export const elementId = (key: Element['key']): string => key.join('|');

const SVC_FIELDS = ['ip daddr', 'meta l4proto', 'th dport'] as const;
const NP_FIELDS = ['meta l4proto', 'th dport'] as const;

function staticChains(cfg: ProxyConfig): Map<string, DesiredChain> {
  const c = new Map<string, DesiredChain>();
  const jump = (chain: string): Expr[] => [{ kind: 'jump', chain }];
  c.set('nat-prerouting', { base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'accept' }, rules: [jump('services')] });
  c.set('nat-output', { base: { type: 'nat', hook: 'output', priority: -100, policy: 'accept' }, rules: [jump('services')] });
  c.set('nat-postrouting', { base: { type: 'nat', hook: 'postrouting', priority: 100, policy: 'accept' }, rules: [jump('masquerading')] });
  // Only new connections are refused or dropped, as upstream: these chains see a packet before
  // DNAT, still addressed to the Service, so an established connection whose Service lost its
  // endpoints for a while (a node briefly NotReady marks its pods unready) would be reset.
  const isNew: Expr = { kind: 'ctState', states: ['new'] };
  c.set('filter-prerouting', { base: { type: 'filter', hook: 'prerouting', priority: -110, policy: 'accept' }, rules: [[isNew, ...jump('reject-services')]] });
  c.set('filter-output', { base: { type: 'filter', hook: 'output', priority: -110, policy: 'accept' }, rules: [[isNew, ...jump('reject-services')]] });
  c.set('masquerading', {
    rules: [
      [{ kind: 'match', field: 'meta mark', value: MASQ_MARK, mask: MASQ_MARK }, { kind: 'masquerade' }],
      // Only DNATed connections: the set holds <endpoint> . <endpoint>, and an endpoint on
      // the host's own address (the API server on 127.0.0.1) would otherwise masquerade all
      // of the host's traffic to itself, resetting connections open before the rule existed.
      [{ kind: 'ctStatusDnat' }, { kind: 'lookup', fields: ['ip saddr', 'ip daddr'], set: SETS.hairpin.name }, { kind: 'masquerade' }],
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
  for (const g of [0, 1] as Gen[]) services.push([{ kind: 'vmap', fields: [...SVC_FIELDS], map: genSet('serviceIPs', g) }]);
  if (cfg.nodePortAddresses?.length) {
    for (const cidr of cfg.nodePortAddresses) services.push([{ kind: 'match', field: 'ip daddr', value: cidr }, local, { kind: 'jump', chain: 'nodeports' }]);
  } else {
    services.push([local, { kind: 'jump', chain: 'nodeports' }]);
  }
  c.set('services', { rules: services });
  c.set('nodeports', {
    rules: [
      [{ kind: 'lookup', fields: [...NP_FIELDS], set: SETS.nodePortMasq.name }, markMasq],
      [{ kind: 'vmap', fields: [...NP_FIELDS], map: genSet('serviceNodePorts', 0) }],
      [{ kind: 'vmap', fields: [...NP_FIELDS], map: genSet('serviceNodePorts', 1) }],
    ],
  });
  return c;
}

/** Shared load-balancing chain for every service with n endpoints. It looks in both
 *  generations of the endpoint map: a service's slots are complete in the one it lives in. */
export const lbChain = (n: number): string => `lb-${n}`;
export const lbNodePortChain = (n: number): string => `lbnp-${n}`;
/** Load-balancing chains that always exist: adding one later (a nat rule) re-validates the table. */
export const PRESET_LB = 16;

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
  gens: Gens;
  elements: [set: string, el: Element][];
  shared: [set: string, el: Element][];
  chains: Map<string, DesiredChain>;
  sets: Map<string, DesiredSet>;
  /** load-balancing chains this plan's verdicts go to */
  lb: string[];
}

export function fragmentFor(p: ServicePortPlan, gens: Gens = { verdict: 0, data: 0 }): Fragment {
  const f: Fragment = { gens, elements: [], shared: [], chains: new Map(), sets: new Map(), lb: [] };
  const own = (set: string, el: Element) => f.elements.push([set, el]);
  // Only an endpoint that may be on this node can be its own client through the Service.
  for (const ep of p.clusterEndpoints) if (!ep.remote) f.shared.push([SETS.hairpin.name, { key: [ep.ip, ep.ip] }]);
  for (const ep of p.nodePortEndpoints) if (!ep.remote) f.shared.push([SETS.hairpin.name, { key: [ep.ip, ep.ip] }]);
  const svcChain = `svc-${p.hash}`, npChain = `svcnp-${p.hash}`;
  const affinity = p.affinitySeconds !== undefined;
  const same = sameEndpoints(p);
  if (affinity) {
    if (p.clusterEndpoints.length) affinityChains(f.chains, f.sets, p, svcChain, p.clusterEndpoints);
    if (p.nodePort && p.nodePortEndpoints.length && !same) affinityChains(f.chains, f.sets, p, npChain, p.nodePortEndpoints);
  }
  const n = p.clusterEndpoints.length;
  const serviceIPs = genSet('serviceIPs', gens.verdict), endpoints = genSet('endpoints', gens.data);
  for (const ip of p.clusterIPs) {
    f.shared.push([SETS.clusterIPs.name, { key: [ip] }]);
    const key = [ip, p.protocol, p.port];
    if (!n) own(p.hasEndpoints ? SETS.dropServices.name : SETS.noEndpointServices.name, { key });
    else if (affinity) own(serviceIPs, { key, verdict: { kind: 'goto', chain: svcChain } });
    else {
      const lb = lbChain(n);
      f.lb.push(lb);
      own(serviceIPs, { key, verdict: { kind: 'goto', chain: lb } });
      for (let i = 0; i < n; i++) {
        const ep = p.clusterEndpoints[i]!;
        own(endpoints, { key: [ip, p.protocol, p.port, i], data: [ep.ip, ep.port] });
      }
    }
  }
  if (p.nodePort) {
    const key = [p.protocol, p.nodePort];
    const m = p.nodePortEndpoints.length;
    const serviceNodePorts = genSet('serviceNodePorts', gens.verdict);
    if (!m) own(p.hasEndpoints ? SETS.dropNodePorts.name : SETS.noEndpointNodePorts.name, { key });
    else {
      if (!p.externalLocal) own(SETS.nodePortMasq.name, { key });
      if (affinity) own(serviceNodePorts, { key, verdict: { kind: 'goto', chain: same && n ? svcChain : npChain } });
      else {
        const lb = lbNodePortChain(m);
        f.lb.push(lb);
        own(serviceNodePorts, { key, verdict: { kind: 'goto', chain: lb } });
        const npEndpoints = genSet('nodePortEndpoints', gens.data);
        for (let i = 0; i < m; i++) {
          const ep = p.nodePortEndpoints[i]!;
          own(npEndpoints, { key: [p.protocol, p.nodePort, i], data: [ep.ip, ep.port] });
        }
      }
    }
  }
  return f;
}

/** The rules of a load-balancing chain, from its name (`lb-<n>` / `lbnp-<n>`): generation 0
 *  first, then 1 (a slot missing from one — retired, or never there — falls to the other). */
export function lbRules(chain: string): Expr[][] {
  const m = /^lb(np)?-(\d+)$/.exec(chain);
  if (!m) throw new Error(`not a load-balancing chain: ${chain}`);
  const n = Number(m[2]);
  return ([0, 1] as Gen[]).map((g) => m[1]
    ? [{ kind: 'dnatMap', fields: [...NP_FIELDS], numgen: n, map: genSet('nodePortEndpoints', g) }]
    : [{ kind: 'dnatMap', fields: [...SVC_FIELDS], numgen: n, map: genSet('endpoints', g) }]);
}

export const presetLbChains = (): string[] =>
  Array.from({ length: PRESET_LB }, (_, i) => [lbChain(i + 1), lbNodePortChain(i + 1)]).flat();

/** The static part: base chains, dispatch chains and the shared sets, empty. */
export function emptyTable(cfg: ProxyConfig): DesiredTable {
  const sets = new Map<string, DesiredSet>();
  for (const spec of SET_SPECS.values()) sets.set(spec.name, { spec, elements: new Map() });
  return { chains: staticChains(cfg), sets };
}

export interface Desired { table: DesiredTable; fragments: Fragment[] }

/** The whole table for these plans, each in the generation genOf gives it. */
export function buildDesired(plans: readonly ServicePortPlan[], cfg: ProxyConfig, genOf: (p: ServicePortPlan) => Gens = () => ({ verdict: 0, data: 0 })): Desired {
  const put = (set: string, el: Element, t: DesiredTable) => { t.sets.get(set)!.elements.set(elementId(el.key), el); };
  return assemble(plans, cfg, genOf, put, put);
}

/** Fragments for every plan, their chains, sets and load-balancing chains in the table;
 *  each owned and shared element handed to the caller, which decides how to keep it. */
function assemble(plans: readonly ServicePortPlan[], cfg: ProxyConfig, genOf: (p: ServicePortPlan) => Gens,
  owned: (set: string, el: Element, t: DesiredTable) => void, shared: (set: string, el: Element, t: DesiredTable) => void): Desired {
  const t = emptyTable(cfg);
  const fragments: Fragment[] = [];
  const lb = new Set<string>(presetLbChains());
  for (const p of plans) {
    const f = fragmentFor(p, genOf(p));
    fragments.push(f);
    for (const [set, el] of f.elements) owned(set, el, t);
    for (const [set, el] of f.shared) shared(set, el, t);
    for (const [name, c] of f.chains) t.chains.set(name, c);
    for (const [name, s] of f.sets) t.sets.set(name, s);
    for (const name of f.lb) lb.add(name);
  }
  for (const name of lb) t.chains.set(name, { rules: lbRules(name) });
  return { table: t, fragments };
}

/** The transaction that creates the whole table where none exists: the same result as
 *  diffing buildDesired against nothing, without keying every element (the first sync of a
 *  big cluster is dominated by the JS side otherwise). */
export function freshTableOps(plans: readonly ServicePortPlan[], cfg: ProxyConfig): { ops: NftOp[]; fragments: Fragment[]; counts: { rules: number; elements: number; chains: number } } {
  const owned = new Map<string, Element[]>();
  const shared = new Map<string, Map<string, Element>>();
  const { table: t, fragments } = assemble(plans, cfg, () => ({ verdict: 0, data: 0 }),
    (set, el) => { let l = owned.get(set); if (!l) owned.set(set, (l = [])); l.push(el); },
    (set, el) => { let m = shared.get(set); if (!m) shared.set(set, (m = new Map())); m.set(elementId(el.key), el); });
  const ops: NftOp[] = [{ op: 'addTable' }];
  const rules: NftOp[] = [], elements: NftOp[] = [];
  let ruleCount = 0, elementCount = 0;
  for (const s of t.sets.values()) ops.push({ op: 'addSet', set: s.spec });
  for (const [name, c] of t.chains) {
    ops.push({ op: 'addChain', chain: name, ...(c.base ? { base: c.base } : {}) });
    for (const exprs of c.rules) rules.push({ op: 'addRule', chain: name, exprs });
    ruleCount += c.rules.length;
  }
  for (const [name, list] of [...owned, ...[...shared].map(([n, m]): [string, Element[]] => [n, [...m.values()]])]) {
    const spec = t.sets.get(name)!.spec;
    elements.push({ op: 'addElements', set: name, keyType: spec.keyType, ...(spec.data ? { dataType: spec.data } : {}), elements: list, timeoutMs: LIVE_MS, expiresMs: LIVE_MS });
    elementCount += list.length;
  }
  return { ops: [...ops, ...rules, ...elements], fragments, counts: { rules: ruleCount, elements: elementCount, chains: t.chains.size } };
}

export const desiredTable = (plans: readonly ServicePortPlan[], cfg: ProxyConfig, genOf?: (p: ServicePortPlan) => Gens): DesiredTable =>
  buildDesired(plans, cfg, genOf).table;

export function countRulesAndElements(t: DesiredTable): { rules: number; elements: number; chains: number } {
  let rules = 0, elements = 0;
  for (const c of t.chains.values()) rules += c.rules.length;
  for (const s of t.sets.values()) elements += s.elements.size;
  return { rules, elements, chains: t.chains.size };
}
