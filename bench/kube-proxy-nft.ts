// kube-proxy's own nftables proxier (pkg/proxy/nftables, Kubernetes 1.31+), reproduced as a
// benchmark baseline: the same table, chains, maps, rule text and names, and the same sync
// protocol, sent the way knftables sends it (one `nft -f -` per transaction, one command per
// line). Written from reading the proxier, not copied from it.
//
// What a sync does, as kube-proxy does it:
//   * full sync (at start and after a failure): `add table` (no `flush table`), the base and
//     top-level chains added and flushed (on the process's first sync each base chain is also
//     added and deleted once, so changed hook properties apply), the static rules, sets and
//     maps, the six element containers flushed and refilled, and for every service port its
//     chain and endpoint chains added, flushed and rewritten.
//   * partial sync: only service ports of Services that changed get their chains added,
//     flushed and rewritten (all endpoint chains of that Service, not only the changed one);
//     map elements are compared with what was written before, and only differences go out.
//   * every sync lists the table's chains and sets (`nft -j list chains ip`, `nft -j list
//     sets ip`): service/endpoint chains (names with a '/') no longer in use are flushed and
//     deleted in a separate transaction at the start of a sync at least 1 s later.
//   elements: 'refill' reproduces the releases before element tracking (nftElementStorage),
//   which flushed and refilled all six containers on every sync, partial ones included.
//
// Not generated (the benchmark has none): LoadBalancer IPs, externalIPs and their firewall
// chains, internalTrafficPolicy Local (its `local-` chain for ClusterIP traffic), IPv6.
import { createHash } from 'node:crypto';
import { execa } from 'execa';
import type { ProxyBackend, SyncResult } from '../src/proxy/backend.js';
import type { EndpointTarget, ServicePortPlan } from '../src/proxy/model.js';

export const KP_TABLE = 'kube-proxy';
const T = `ip ${KP_TABLE}`;
/** nftables' limit on names, minus kube-proxy's longest chain prefix. */
const NAME_BASE_MAX = 256 - 16;

export interface KubeProxyNftOptions {
  /** The local-traffic detector's pod CIDR (`--cluster-cidr`): non-pod sources to a ClusterIP are masqueraded. */
  clusterCIDR?: string;
  /** ServiceCIDRs: traffic to unallocated ClusterIPs in them is dropped. */
  serviceCIDRs?: string[];
  masqueradeBit?: number;
  elements?: 'changed' | 'refill';
}

// ---- names ----

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The first 8 characters of the standard base32 encoding of sha256(s): 40 bits = 5 bytes. */
function hash8(s: string): string {
  const d = createHash('sha256').update(s).digest();
  let v = 0n;
  for (let i = 0; i < 5; i++) v = (v << 8n) | BigInt(d[i]!);
  let out = '';
  for (let i = 7; i >= 0; i--) out += BASE32[Number((v >> BigInt(i * 5)) & 31n)];
  return out;
}

function hashed(name: string): string {
  const s = `${hash8(name)}-${name}`;
  return s.length > NAME_BASE_MAX ? `${s.slice(0, NAME_BASE_MAX - 3)}...` : s;
}

interface PortName { namespace: string; name: string; port: string; protocol: string }

/** A plan's id is `namespace/name:portName/protocol`. */
function portName(p: ServicePortPlan): PortName {
  const m = /^([^/]+)\/([^:]+):([^/]*)\/([a-z]+)$/.exec(p.id);
  if (!m) throw new Error(`unexpected service port id ${p.id}`);
  return { namespace: m[1]!, name: m[2]!, port: m[3]!, protocol: m[4]! };
}

/** `HASH-ns/name/proto/port`, the base of a service port's chain names. */
const portBase = (n: PortName) => hashed(`${n.namespace}/${n.name}/${n.protocol}/${n.port}`);

const endpointBase = (p: ServicePortPlan, ep: EndpointTarget) => {
  const n = portName(p);
  return hashed(`${n.namespace}/${n.name}/${n.protocol}/${n.port}__${ep.ip}/${ep.port}`);
};
interface Names { svc: string; local: string; ext: string; ep: Map<string, { chain: string; affinity: string }> }
const epKey = (ep: EndpointTarget) => `${ep.ip}:${ep.port}`;

/**
 * A plan's chain and set names, computed once per plan object, as kube-proxy computes them
 * once per service port and endpoint object (not on every sync).
 */
const namesCache = new WeakMap<ServicePortPlan, Names>();
function namesOf(p: ServicePortPlan): Names {
  let n = namesCache.get(p);
  if (n) return n;
  const base = portBase(portName(p));
  n = { svc: `service-${base}`, local: `local-${base}`, ext: `external-${base}`, ep: new Map() };
  for (const ep of [...p.clusterEndpoints, ...p.nodePortEndpoints]) {
    const b = endpointBase(p, ep);
    n.ep.set(epKey(ep), { chain: `endpoint-${b}`, affinity: `affinity-${b}` });
  }
  namesCache.set(p, n);
  return n;
}

export const serviceChain = (p: ServicePortPlan) => namesOf(p).svc;
export const endpointChain = (p: ServicePortPlan, ep: EndpointTarget) => namesOf(p).ep.get(epKey(ep))?.chain ?? `endpoint-${endpointBase(p, ep)}`;
const affinitySet = (p: ServicePortPlan, ep: EndpointTarget) => namesOf(p).ep.get(epKey(ep))!.affinity;

const isServiceChain = (c: string) => c.includes('/');
const svcKey = (p: ServicePortPlan) => p.id.slice(0, p.id.indexOf(':'));

// ---- the transaction ----

/** A transaction in knftables' text form: one command a line. */
class Tx {
  readonly lines: string[] = [];
  rules = 0;
  add(kind: string, rest: string): void { this.lines.push(`add ${kind} ${T} ${rest}`); }
  flush(kind: string, name: string): void { this.lines.push(`flush ${kind} ${T} ${name}`); }
  del(kind: string, rest: string): void { this.lines.push(`delete ${kind} ${T} ${rest}`); }
  rule(chain: string, rule: string, comment?: string): void {
    this.rules++;
    this.add('rule', `${chain} ${rule}${comment ? ` comment ${JSON.stringify(comment)}` : ''}`);
  }
  /** Adds a chain and empties it, once per transaction. */
  ensureChain(chain: string, seen: Set<string>, skip = false): void {
    if (seen.has(chain)) return;
    seen.add(chain);
    if (skip) return;
    this.add('chain', chain);
    this.flush('chain', chain);
  }
  get text(): string { return this.lines.length ? `${this.lines.join('\n')}\n` : ''; }
}

/** A named set or map's elements as last written, so a partial sync sends only differences. */
class Elements {
  private written = new Map<string, string>();
  private unused = new Set<string>();
  constructor(private readonly kind: 'set' | 'map', readonly name: string) {}
  get size(): number { return this.written.size; }
  reset(tx: Tx): void {
    this.written.clear();
    this.unused.clear();
    tx.flush(this.kind, this.name);
  }
  ensure(tx: Tx, key: string, value = ''): void {
    const old = this.written.get(key);
    const elem = `${this.name} { ${key}${value ? ` : ${value}` : ''} }`;
    if (old === undefined) tx.add('element', elem);
    else if (old !== value) { tx.del('element', `${this.name} { ${key} }`); tx.add('element', elem); }
    this.written.set(key, value);
    this.unused.delete(key);
  }
  /** Deletes what no service asked for in this sync; starts the next sync's bookkeeping. */
  finish(tx: Tx): void {
    for (const key of this.unused) { tx.del('element', `${this.name} { ${key} }`); this.written.delete(key); }
    this.unused = new Set(this.written.keys());
  }
}

const BASE_CHAINS: [string, string, string, number][] = [
  ['filter-prerouting', 'filter', 'prerouting', -110],
  ['filter-input', 'filter', 'input', -110],
  ['filter-forward', 'filter', 'forward', -110],
  ['filter-output', 'filter', 'output', -110],
  ['filter-output-post-dnat', 'filter', 'output', -90],
  ['nat-prerouting', 'nat', 'prerouting', -100],
  ['nat-output', 'nat', 'output', -100],
  ['nat-postrouting', 'nat', 'postrouting', 100],
];
const JUMPS: [string, string, string][] = [ // target, from, match
  ['nodeport-endpoints-check', 'filter-input', 'ct state new '],
  ['service-endpoints-check', 'filter-input', 'ct state new '],
  ['service-endpoints-check', 'filter-forward', 'ct state new '],
  ['service-endpoints-check', 'filter-output', 'ct state new '],
  ['firewall-check', 'filter-prerouting', 'ct state new '],
  ['firewall-check', 'filter-output', 'ct state new '],
  ['services', 'nat-output', ''],
  ['services', 'nat-prerouting', ''],
  ['masquerading', 'nat-postrouting', ''],
  ['cluster-ips-check', 'filter-forward', 'ct state new '],
  ['cluster-ips-check', 'filter-output-post-dnat', 'ct state new '],
];
const DISPATCH = 'ipv4_addr . inet_proto . inet_service : verdict';

export interface KpTransaction { text: string; rules: number; lines: number }

/**
 * The proxier's state between syncs and the text of each sync's transaction. Pure apart from
 * the clock and the chain/set names the caller read from the kernel (kube-proxy lists them).
 */
export class KubeProxyNftProxier {
  private readonly masq: string;
  private flushed = false;
  private needFullSync = true;
  private previous = new Map<string, ServicePortPlan>();
  /** Chain → when it became unused (ms). */
  readonly staleChains = new Map<string, number>();
  private readonly clusterIPs = new Elements('set', 'cluster-ips');
  private readonly serviceIPs = new Elements('map', 'service-ips');
  private readonly firewallIPs = new Elements('map', 'firewall-ips');
  private readonly noEndpointServices = new Elements('map', 'no-endpoint-services');
  private readonly noEndpointNodePorts = new Elements('map', 'no-endpoint-nodeports');
  private readonly serviceNodePorts = new Elements('map', 'service-nodeports');
  private readonly containers = [this.clusterIPs, this.serviceIPs, this.firewallIPs, this.noEndpointServices, this.noEndpointNodePorts, this.serviceNodePorts];

  constructor(private readonly opts: KubeProxyNftOptions = {}) {
    this.masq = `0x${(1 << (opts.masqueradeBit ?? 14)).toString(16).padStart(6, '0')}`;
  }

  private staticRules = 0;
  /** Rules per Service as last written. */
  private readonly rulesByService = new Map<string, number>();
  /** Rules in the table after the last sync. */
  get tableRules(): number { let n = this.staticRules; for (const r of this.rulesByService.values()) n += r; return n; }
  get tableElements(): number { return this.containers.reduce((n, c) => n + c.size, 0); }

  /** A sync's first, separate transaction: chains unused for over a second are deleted. */
  staleDeletion(now: number): KpTransaction | null {
    const tx = new Tx();
    for (const [chain, since] of this.staleChains) {
      if (since < now - 1000) { tx.del('chain', chain); this.staleChains.delete(chain); }
    }
    return tx.lines.length ? { text: tx.text, rules: 0, lines: tx.lines.length } : null;
  }

  /** Forces the next sync to be a full one (kube-proxy: at start and after a failed sync). */
  requestFullSync(): void { this.needFullSync = true; }

  /**
   * The sync transaction. `listChains`/`listSets` return the table's current chain and set
   * names; they are called where kube-proxy lists them (after building the service rules).
   */
  async transaction(plans: readonly ServicePortPlan[], now: number, listChains: () => Promise<string[]>, listSets: () => Promise<string[]>): Promise<KpTransaction> {
    const partial = !this.needFullSync;
    const tx = new Tx();
    if (!partial) this.setup(tx);
    else if (this.opts.elements === 'refill') for (const c of this.containers) c.reset(tx);

    const changed = new Set<string>();
    const current = new Map(plans.map((p) => [p.id, p]));
    for (const p of plans) if (this.previous.get(p.id) !== p) changed.add(svcKey(p));
    for (const [id, p] of this.previous) if (!current.has(id)) changed.add(svcKey(p));

    const active = new Set<string>();
    const activeAffinity = new Set<string>();
    if (!partial) { this.staticRules = tx.rules; this.rulesByService.clear(); }
    for (const s of changed) this.rulesByService.delete(s);
    for (const p of plans) {
      const ip = p.clusterIPs.find((a) => !a.includes(':'));
      if (!ip) continue;
      const skip = partial && !changed.has(svcKey(p));
      const before = tx.rules;
      this.servicePort(tx, p, ip, skip, active, activeAffinity);
      if (!skip) this.rulesByService.set(svcKey(p), (this.rulesByService.get(svcKey(p)) ?? 0) + tx.rules - before);
    }

    for (const chain of await listChains()) {
      if (!isServiceChain(chain)) continue;
      if (!active.has(chain)) { tx.flush('chain', chain); this.staleChains.set(chain, now); }
      else this.staleChains.delete(chain);
    }
    for (const set of await listSets()) {
      if (set.startsWith('affinity-') && !activeAffinity.has(set)) tx.del('set', set);
    }
    for (const c of this.containers) c.finish(tx);

    this.previous = current;
    this.needFullSync = false;
    return { text: tx.text, rules: tx.rules, lines: tx.lines.length };
  }

  /** The static part of a full sync (kube-proxy's setup of the table). */
  private setup(tx: Tx): void {
    const serviceCIDRs = this.opts.serviceCIDRs ?? [];
    tx.add('table', '{ comment "rules for kube-proxy" ; }');
    if (!this.flushed) {
      for (const [name] of BASE_CHAINS) { tx.add('chain', name); tx.del('chain', name); }
      this.flushed = true;
    }
    for (const [name, type, hook, prio] of BASE_CHAINS) {
      tx.add('chain', `${name} { type ${type} hook ${hook} priority ${prio} ; }`);
      tx.flush('chain', name);
    }
    const created = new Set<string>();
    for (const [to, from, match] of JUMPS) { tx.ensureChain(to, created); tx.rule(from, `${match}jump ${to}`); }
    for (const c of ['services', 'cluster-ips-check', 'masquerading', 'mark-for-masquerade']) tx.ensureChain(c, created);

    tx.rule('mark-for-masquerade', `mark set mark or ${this.masq}`);
    tx.rule('masquerading', `mark and ${this.masq} == 0 return`);
    tx.rule('masquerading', `mark set mark xor ${this.masq}`);
    tx.rule('masquerading', 'masquerade fully-random');

    tx.add('set', 'cluster-ips { type ipv4_addr ; comment "Active ClusterIPs" ; }');
    tx.rule('cluster-ips-check', 'ip daddr @cluster-ips reject', 'Reject traffic to invalid ports of ClusterIPs');
    if (serviceCIDRs.length) tx.rule('cluster-ips-check', `ip daddr { ${serviceCIDRs.join(', ')} } drop`, 'Drop traffic to unallocated ClusterIPs');

    // --nodeport-addresses unset: every local address takes NodePorts, so no nodeport-ips set.
    tx.add('set', 'nodeport-ips { type ipv4_addr ; comment "IPs that accept NodePort traffic" ; }');
    tx.del('set', 'nodeport-ips');

    tx.add('map', `no-endpoint-services { type ${DISPATCH} ; comment "vmap to drop or reject packets to services with no endpoints" ; }`);
    tx.add('map', 'no-endpoint-nodeports { type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints" ; }');
    tx.add('chain', 'reject-chain { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }');
    tx.flush('chain', 'reject-chain');
    tx.rule('reject-chain', 'reject');
    tx.rule('service-endpoints-check', 'ip daddr . meta l4proto . th dport vmap @no-endpoint-services');
    tx.rule('nodeport-endpoints-check', 'ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports');

    tx.add('map', `firewall-ips { type ${DISPATCH} ; comment "destinations that are subject to LoadBalancerSourceRanges" ; }`);
    tx.ensureChain('firewall-check', created);
    tx.rule('firewall-check', 'ip daddr . meta l4proto . th dport vmap @firewall-ips');

    tx.add('map', `service-ips { type ${DISPATCH} ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }`);
    tx.add('map', 'service-nodeports { type inet_proto . inet_service : verdict ; comment "NodePort traffic" ; }');
    tx.rule('services', 'ip daddr . meta l4proto . th dport vmap @service-ips');
    tx.rule('services', 'fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports');

    for (const c of this.containers) c.reset(tx);
  }

  /** One service port: its elements always, its chains unless `skip`. */
  private servicePort(tx: Tx, p: ServicePortPlan, ip: string, skip: boolean, active: Set<string>, activeAffinity: Set<string>): void {
    const proto = p.protocol;
    const affinity = p.affinitySeconds !== undefined;
    const reachable = uniq([...p.clusterEndpoints, ...p.nodePortEndpoints]);
    const { svc, local, ext } = namesOf(p);
    const usesCluster = p.clusterEndpoints.length > 0;
    const usesLocal = p.externalLocal && p.nodePort !== undefined && p.nodePortEndpoints.length > 0;
    const hasInternal = p.hasEndpoints && usesCluster;
    const hasExternal = p.hasEndpoints && p.nodePortEndpoints.length > 0;
    const usesExt = p.hasEndpoints && p.nodePort !== undefined;
    const internalVerdict = p.hasEndpoints ? 'drop' : 'goto reject-chain';
    const externalVerdict = p.hasEndpoints ? 'drop' : 'goto reject-chain';

    for (const ep of reachable) {
      tx.ensureChain(endpointChain(p, ep), active, skip);
      if (affinity) activeAffinity.add(affinitySet(p, ep));
    }
    if (usesCluster) tx.ensureChain(svc, active, skip);
    if (usesLocal) tx.ensureChain(local, active, skip);
    if (usesExt) tx.ensureChain(ext, active, skip);

    const key = `${ip} . ${proto} . ${p.port}`;
    this.clusterIPs.ensure(tx, ip);
    if (hasInternal) this.serviceIPs.ensure(tx, key, `goto ${svc}`);
    else this.noEndpointServices.ensure(tx, key, internalVerdict);
    if (p.nodePort !== undefined) {
      const npKey = `${proto} . ${p.nodePort}`;
      if (p.hasEndpoints) this.serviceNodePorts.ensure(tx, npKey, `goto ${ext}`);
      if (!hasExternal) this.noEndpointNodePorts.ensure(tx, npKey, externalVerdict);
    }
    if (skip) return;

    const cidr = this.opts.clusterCIDR;
    if (hasInternal && cidr) tx.rule(svc, `ip daddr ${ip} ${proto} dport ${p.port} ip saddr != ${cidr} jump mark-for-masquerade`);
    if (usesExt) {
      if (!p.externalLocal) tx.rule(ext, 'jump mark-for-masquerade');
      else {
        if (cidr) tx.rule(ext, `ip saddr ${cidr} goto ${svc}`, 'short-circuit pod traffic');
        tx.rule(ext, 'fib saddr type local jump mark-for-masquerade', 'masquerade local traffic');
        tx.rule(ext, `fib saddr type local goto ${svc}`, 'short-circuit local traffic');
      }
      if (hasExternal) tx.rule(ext, `goto ${p.externalLocal ? local : svc}`);
    }
    if (affinity) {
      for (const ep of reachable) {
        tx.add('set', `${affinitySet(p, ep)} { type ipv4_addr ; flags dynamic,timeout ; timeout ${p.affinitySeconds}s ; }`);
      }
    }
    if (usesCluster) this.loadBalance(tx, p, svc, p.clusterEndpoints);
    if (usesLocal) this.loadBalance(tx, p, local, p.nodePortEndpoints);
    for (const ep of reachable) {
      const chain = endpointChain(p, ep);
      tx.rule(chain, `ip saddr ${ep.ip} jump mark-for-masquerade`);
      if (affinity) tx.rule(chain, `update @${affinitySet(p, ep)} { ip saddr }`);
      tx.rule(chain, `meta l4proto ${proto} dnat to ${ep.ip}:${ep.port}`);
    }
  }

  private loadBalance(tx: Tx, p: ServicePortPlan, chain: string, eps: EndpointTarget[]): void {
    if (p.affinitySeconds !== undefined) {
      for (const ep of eps) tx.rule(chain, `ip saddr @${affinitySet(p, ep)} goto ${endpointChain(p, ep)}`);
    }
    const vmap = eps.map((ep, i) => `${i} : goto ${endpointChain(p, ep)}`).join(' , ');
    tx.rule(chain, `numgen random mod ${eps.length} vmap { ${vmap} }`);
  }
}

function uniq(eps: EndpointTarget[]): EndpointTarget[] {
  const seen = new Set<string>();
  return eps.filter((e) => { const k = `${e.ip}:${e.port}`; if (seen.has(k)) return false; seen.add(k); return true; });
}

// ---- running it ----

export interface KpTimings { staleMs: number; listMs: number; applyMs: number; bytes: number; lines: number }

/** kube-proxy's nftables syncs run against a namespace with the `nft` binary, as knftables runs them. */
export class KubeProxyNftBackend implements ProxyBackend {
  readonly mode = 'kube-proxy-nft';
  readonly proxier: KubeProxyNftProxier;
  /** Where the last sync's time went. */
  last: KpTimings = { staleMs: 0, listMs: 0, applyMs: 0, bytes: 0, lines: 0 };

  constructor(private readonly netns: string, opts: KubeProxyNftOptions = {}, private readonly timeoutMs = 600_000) {
    this.proxier = new KubeProxyNftProxier(opts);
  }

  private nft(args: string[], input?: string) {
    return execa('nsenter', [`--net=${this.netns}`, 'nft', ...args], { input, timeout: this.timeoutMs, maxBuffer: 1 << 30 });
  }

  private async list(kind: 'chains' | 'sets'): Promise<string[]> {
    const out = JSON.parse((await this.nft(['-j', 'list', kind, 'ip'])).stdout) as { nftables: Record<string, { table?: string; name?: string }>[] };
    const one = kind.slice(0, -1);
    return out.nftables.flatMap((o) => (o[one]?.table === KP_TABLE && o[one]?.name ? [o[one]!.name!] : []));
  }

  async sync(plans: readonly ServicePortPlan[], opts: { full: boolean }): Promise<SyncResult> {
    if (opts.full) this.proxier.requestFullSync();
    const t: KpTimings = { staleMs: 0, listMs: 0, applyMs: 0, bytes: 0, lines: 0 };
    const start = performance.now();
    const stale = this.proxier.staleDeletion(start);
    if (stale) {
      // kube-proxy logs and retries a failed deletion later; here it would mean a wrong table.
      await this.nft(['-f', '-'], stale.text);
      t.staleMs = performance.now() - start;
    }
    const timed = async (kind: 'chains' | 'sets') => {
      const t0 = performance.now();
      try { return await this.list(kind); } finally { t.listMs += performance.now() - t0; }
    };
    const tx = await this.proxier.transaction(plans, start, () => timed('chains'), () => timed('sets'));
    const t0 = performance.now();
    try {
      if (tx.text) await this.nft(['-f', '-'], tx.text);
    } catch (e) {
      this.proxier.requestFullSync();
      throw e;
    }
    t.applyMs = performance.now() - t0;
    t.bytes = tx.text.length;
    t.lines = tx.lines;
    this.last = t;
    return { operations: tx.lines + (stale?.lines ?? 0), rebuilt: false, rules: this.proxier.tableRules, elements: this.proxier.tableElements, chains: 0 };
  }

  async cleanup(): Promise<void> {
    await execa('nsenter', [`--net=${this.netns}`, 'nft', 'delete', 'table', 'ip', KP_TABLE], { reject: false });
  }
}
