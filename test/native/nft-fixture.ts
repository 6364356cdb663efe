// A small table in the service-proxy shape used by the nftables tests, and a normaliser
// that drops handles and orders things so read-backs from different drivers compare.
import type { Element, Expr, NftOp, TableState } from '../../src/nft/index.js';

export const SERVICE_KEY = ['ipv4_addr', 'inet_proto', 'inet_service'] as const;

export function proxyTableOps(vip: string, port: number, endpoints: { ip: string; port: number }[]): NftOp[] {
  const keyType = [...SERVICE_KEY];
  return [
    { op: 'addTable' },
    { op: 'addChain', chain: 'prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } },
    { op: 'addChain', chain: 'output', base: { type: 'nat', hook: 'output', priority: -100 } },
    { op: 'addChain', chain: 'services' },
    { op: 'addChain', chain: 'svc-web' },
    ...endpoints.map((_, i): NftOp => ({ op: 'addChain', chain: `ep-web-${i}` })),
    { op: 'addSet', set: { name: 'service-ips', keyType, map: 'verdict' } },
    { op: 'addSet', set: { name: 'svc-web-eps', keyType: ['integer'], map: 'verdict' } },
    { op: 'addSet', set: { name: 'local-nets', keyType: ['ipv4_addr'] } },
    { op: 'addRule', chain: 'prerouting', exprs: [{ kind: 'jump', chain: 'services' }] },
    { op: 'addRule', chain: 'output', exprs: [{ kind: 'jump', chain: 'services' }] },
    { op: 'addRule', chain: 'services', exprs: [{ kind: 'vmap', fields: ['ip daddr', 'meta l4proto', 'th dport'], map: 'service-ips' }], comment: 'dispatch' },
    { op: 'addRule', chain: 'svc-web', exprs: [{ kind: 'counter' }, { kind: 'numgenVmap', mod: endpoints.length, map: 'svc-web-eps' }] },
    ...endpoints.map((ep, i): NftOp => ({
      op: 'addRule', chain: `ep-web-${i}`,
      exprs: [{ kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'dnat', addr: ep.ip, port: ep.port }],
    })),
    { op: 'addElements', set: 'service-ips', keyType, elements: [{ key: [vip, 'tcp', port], verdict: { kind: 'goto', chain: 'svc-web' } }] },
    { op: 'addElements', set: 'svc-web-eps', keyType: ['integer'], elements: endpoints.map((_, i): Element => ({ key: [i], verdict: { kind: 'goto', chain: `ep-web-${i}` } })) },
  ];
}

/** Every vocabulary form once, for the read-back round trip. */
export const VOCABULARY_RULES: Expr[][] = [
  [{ kind: 'ctState', states: ['established', 'related'] }, { kind: 'counter' }, { kind: 'accept' }],
  [{ kind: 'fibDaddrLocal' }, { kind: 'match', field: 'ip saddr', value: '10.0.0.0/8' }, { kind: 'match', field: 'th dport', value: 53, op: '!=' }, { kind: 'jump', chain: 'services' }],
  [{ kind: 'match', field: 'meta mark', value: 0x4000, mask: 0x4000 }, { kind: 'lookup', fields: ['ip daddr'], set: 'local-nets' }, { kind: 'return' }],
  [{ kind: 'match', field: 'ip daddr', value: '10.96.0.99' }, { kind: 'match', field: 'meta l4proto', value: 'udp' }, { kind: 'reject', with: 'icmp port-unreachable' }],
  [{ kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'match', field: 'th sport', value: 9 }, { kind: 'reject', with: 'tcp reset' }],
  [{ kind: 'lookup', fields: ['ip daddr', 'meta l4proto', 'th dport'], set: 'service-ips', op: '!=' }, { kind: 'drop' }],
];

export function normalize(s: TableState) {
  const sortBy = <T>(xs: T[], key: (x: T) => string) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    family: s.family,
    name: s.name,
    chains: sortBy(s.chains.map(({ handle: _h, ...c }) => c), (c) => c.name),
    rules: sortBy(s.chains, (c) => c.name).map((c) => ({
      chain: c.name,
      rules: s.rules.filter((r) => r.chain === c.name).map(({ handle: _h, chain: _c, ...r }) => r),
    })),
    sets: sortBy(s.sets, (x) => x.name).map((x) => ({ ...x, elements: sortBy(x.elements, (e) => JSON.stringify(e.key)) })),
  };
}
