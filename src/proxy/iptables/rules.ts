// Plans → kube-proxy's iptables structure (KUBE-SERVICES → KUBE-SVC-* → KUBE-SEP-* with
// statistic probabilities, KUBE-MARK-MASQ/KUBE-POSTROUTING, KUBE-NODEPORTS → KUBE-EXT-*,
// rejects in the filter table). Pure: chain name → rule lines (without "-A CHAIN").
import { createHash } from 'node:crypto';
import type { EndpointTarget, ProxyConfig, ServicePortPlan } from '../model.js';

export type IptTable = 'nat' | 'filter';
export type IptChains = Map<string, string[]>;
export interface IptRuleset { nat: IptChains; filter: IptChains }

const MASQ = '0x4000';

/** kube-proxy's chain suffix: base32 of a sha256, 16 characters. */
function suffix(s: string): string {
  const bytes = createHash('sha256').update(s).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0, value = 0, out = '';
  for (const b of bytes) {
    value = (value << 8) | b; bits += 8;
    while (bits >= 5 && out.length < 16) { out += alphabet[(value >>> (bits - 5)) & 31]; bits -= 5; }
    if (out.length >= 16) break;
  }
  return out;
}

export const svcChain = (p: ServicePortPlan) => `KUBE-SVC-${suffix(p.id)}`;
export const svlChain = (p: ServicePortPlan) => `KUBE-SVL-${suffix(p.id)}`;
export const extChain = (p: ServicePortPlan) => `KUBE-EXT-${suffix(p.id)}`;
export const sepChain = (p: ServicePortPlan, ep: EndpointTarget) => `KUBE-SEP-${suffix(`${p.id}|${ep.ip}:${ep.port}`)}`;

/** Chains capstan's hooks jump to; they always exist. */
export const BASE_CHAINS: Record<IptTable, string[]> = {
  nat: ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ'],
  filter: ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES'],
};

/** Jumps from the built-in chains, installed once (checked with -C first). */
export const HOOKS: { table: IptTable; chain: string; rule: string[] }[] = [
  { table: 'nat', chain: 'PREROUTING', rule: ['-j', 'KUBE-SERVICES'] },
  { table: 'nat', chain: 'OUTPUT', rule: ['-j', 'KUBE-SERVICES'] },
  { table: 'nat', chain: 'POSTROUTING', rule: ['-j', 'KUBE-POSTROUTING'] },
  ...(['INPUT', 'FORWARD', 'OUTPUT'] as const).map((chain) => ({ table: 'filter' as const, chain, rule: ['-m', 'conntrack', '--ctstate', 'NEW', '-j', 'KUBE-SERVICES'] })),
  ...(['INPUT', 'FORWARD'] as const).map((chain) => ({ table: 'filter' as const, chain, rule: ['-m', 'conntrack', '--ctstate', 'NEW', '-j', 'KUBE-EXTERNAL-SERVICES'] })),
];

/** TCP is reset (ICMP errors are rate-limited per peer by the kernel); the rest get ICMP. */
const reject = (protocol: string) => `REJECT --reject-with ${protocol === 'tcp' ? 'tcp-reset' : 'icmp-port-unreachable'}`;

export function iptablesRuleset(plans: readonly ServicePortPlan[], cfg: ProxyConfig): IptRuleset {
  const nat: IptChains = new Map(BASE_CHAINS.nat.map((c) => [c, []]));
  const filter: IptChains = new Map(BASE_CHAINS.filter.map((c) => [c, []]));
  const n = (c: string) => nat.get(c)!;
  n('KUBE-MARK-MASQ').push(`-j MARK --or-mark ${MASQ}`);
  n('KUBE-POSTROUTING').push(`-m mark ! --mark ${MASQ}/${MASQ} -j RETURN`, `-j MARK --xor-mark ${MASQ}`, '-j MASQUERADE');

  const lbChain = (p: ServicePortPlan, name: string, eps: EndpointTarget[], masqFor: string[]) => {
    const rules: string[] = [...masqFor];
    if (p.affinitySeconds !== undefined) {
      for (const ep of eps) rules.push(`-m recent --name ${sepChain(p, ep)} --mask 255.255.255.255 --rsource --rcheck --seconds ${p.affinitySeconds} --reap -j ${sepChain(p, ep)}`);
    }
    eps.forEach((ep, i) => {
      const left = eps.length - i;
      rules.push(left > 1 ? `-m statistic --mode random --probability ${(1 / left).toFixed(10)} -j ${sepChain(p, ep)}` : `-j ${sepChain(p, ep)}`);
    });
    nat.set(name, rules);
    for (const ep of eps) {
      const recent = p.affinitySeconds !== undefined ? ` -m recent --name ${sepChain(p, ep)} --mask 255.255.255.255 --rsource --set` : '';
      nat.set(sepChain(p, ep), [
        `-s ${ep.ip}/32 -j KUBE-MARK-MASQ`,
        `-p ${p.protocol}${recent} -m ${p.protocol} -j DNAT --to-destination ${ep.ip}:${ep.port}`,
      ]);
    }
  };

  for (const p of plans) {
    const proto = `-p ${p.protocol} -m ${p.protocol}`;
    if (p.clusterEndpoints.length) {
      const masq = p.clusterIPs.flatMap((ip) => {
        const dst = `-d ${ip}/32 ${proto} --dport ${p.port}`;
        if (cfg.masqueradeAll) return [`${dst} -j KUBE-MARK-MASQ`];
        if (cfg.clusterCIDR) return [`! -s ${cfg.clusterCIDR} ${dst} -j KUBE-MARK-MASQ`];
        return [];
      });
      lbChain(p, svcChain(p), p.clusterEndpoints, masq);
      for (const ip of p.clusterIPs) n('KUBE-SERVICES').push(`-d ${ip}/32 ${proto} --dport ${p.port} -j ${svcChain(p)}`);
    } else {
      for (const ip of p.clusterIPs) filter.get('KUBE-SERVICES')!.push(`-d ${ip}/32 ${proto} --dport ${p.port} -j ${p.hasEndpoints ? 'DROP' : reject(p.protocol)}`);
    }
    if (!p.nodePort) continue;
    if (!p.nodePortEndpoints.length) {
      filter.get('KUBE-EXTERNAL-SERVICES')!.push(`-m addrtype --dst-type LOCAL ${proto} --dport ${p.nodePort} -j ${p.hasEndpoints ? 'DROP' : reject(p.protocol)}`);
      continue;
    }
    const same = JSON.stringify(p.nodePortEndpoints) === JSON.stringify(p.clusterEndpoints);
    const target = same ? svcChain(p) : svlChain(p);
    if (!same) lbChain(p, svlChain(p), p.nodePortEndpoints, []);
    nat.set(extChain(p), [...(p.externalLocal ? [] : ['-j KUBE-MARK-MASQ']), `-j ${target}`]);
    n('KUBE-NODEPORTS').push(`${proto} --dport ${p.nodePort} -j ${extChain(p)}`);
  }
  const local = '-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS';
  if (cfg.nodePortAddresses?.length) for (const cidr of cfg.nodePortAddresses) n('KUBE-SERVICES').push(`-d ${cidr} ${local}`);
  else n('KUBE-SERVICES').push(local);
  return { nat, filter };
}

/**
 * An iptables-restore --noflush input that rewrites only the chains whose rules changed and
 * deletes capstan's chains that are no longer wanted. Declaring a chain (`:NAME - [0:0]`)
 * flushes it; chains and rules of other owners are never named.
 */
export function restoreInput(prev: IptRuleset | undefined, next: IptRuleset, existing?: Record<IptTable, Set<string>>): string {
  const out: string[] = [];
  for (const table of ['nat', 'filter'] as const) {
    const before = prev?.[table], after = next[table];
    const changed = [...after].filter(([c, rules]) => !before || before.get(c)?.join('\n') !== rules.join('\n'));
    const stale = new Set<string>([...(before?.keys() ?? []), ...(existing?.[table] ?? [])].filter((c) => !after.has(c)));
    if (!changed.length && !stale.size) continue;
    out.push(`*${table}`);
    for (const [c] of changed) out.push(`:${c} - [0:0]`);
    for (const c of stale) out.push(`:${c} - [0:0]`);
    for (const [c, rules] of changed) for (const r of rules) out.push(`-A ${c} ${r}`);
    for (const c of stale) out.push(`-X ${c}`);
    out.push('COMMIT');
  }
  return out.length ? out.join('\n') + '\n' : '';
}

export function countRules(r: IptRuleset): { rules: number; chains: number } {
  let rules = 0, chains = 0;
  for (const t of [r.nat, r.filter]) for (const v of t.values()) { rules += v.length; chains++; }
  return { rules, chains };
}
