// The service-proxy table shape the nftables benchmark loads: a static dispatch chain with
// one verdict map keyed by `ip daddr . meta l4proto . th dport`, a chain plus a numgen-keyed
// verdict map per service, and a chain per endpoint doing the DNAT. No anonymous sets.
import type { NftOp, KeyType } from '../src/nft/index.js';

export const DISPATCH_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];

export const vip = (s: number) => `10.96.${(s >> 8) & 255}.${s & 255}`;
export const endpointIp = (s: number, e: number) => `10.${64 + ((s >> 12) & 63)}.${(s >> 4) & 255}.${((s & 15) << 4) | e}`;

export function baseOps(): NftOp[] {
  return [
    { op: 'addTable' },
    { op: 'addChain', chain: 'prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } },
    { op: 'addChain', chain: 'output', base: { type: 'nat', hook: 'output', priority: -100 } },
    { op: 'addChain', chain: 'services' },
    { op: 'addSet', set: { name: 'service-ips', keyType: DISPATCH_KEY, map: 'verdict' } },
    { op: 'addRule', chain: 'prerouting', exprs: [{ kind: 'jump', chain: 'services' }] },
    { op: 'addRule', chain: 'output', exprs: [{ kind: 'jump', chain: 'services' }] },
    { op: 'addRule', chain: 'services', exprs: [{ kind: 'vmap', fields: ['ip daddr', 'meta l4proto', 'th dport'], map: 'service-ips' }] },
  ];
}

export function endpointRule(s: number, e: number, port = 8080): NftOp {
  return {
    op: 'addRule', chain: `ep-${s}-${e}`,
    exprs: [{ kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'dnat', addr: endpointIp(s, e), port }],
  };
}

export function serviceOps(s: number, endpoints: number): NftOp[] {
  const ops: NftOp[] = [
    { op: 'addChain', chain: `svc-${s}` },
    { op: 'addSet', set: { name: `svc-${s}-eps`, keyType: ['integer'], map: 'verdict' } },
  ];
  for (let e = 0; e < endpoints; e++) ops.push({ op: 'addChain', chain: `ep-${s}-${e}` }, endpointRule(s, e));
  ops.push(
    { op: 'addRule', chain: `svc-${s}`, exprs: [{ kind: 'numgenVmap', mod: endpoints, map: `svc-${s}-eps` }] },
    {
      op: 'addElements', set: `svc-${s}-eps`, keyType: ['integer'],
      elements: Array.from({ length: endpoints }, (_, e) => ({ key: [e], verdict: { kind: 'goto' as const, chain: `ep-${s}-${e}` } })),
    },
  );
  return ops;
}

/** The whole table for `services` services × `endpoints` endpoints, as one transaction. */
export function fullLoad(services: number, endpoints: number): NftOp[] {
  const ops = baseOps();
  for (let s = 0; s < services; s++) ops.push(...serviceOps(s, endpoints));
  ops.push({
    op: 'addElements', set: 'service-ips', keyType: DISPATCH_KEY,
    elements: Array.from({ length: services }, (_, s) => ({ key: [vip(s), 'tcp', 80], verdict: { kind: 'goto' as const, chain: `svc-${s}` } })),
  });
  return ops;
}

/** One endpoint changes address: replace that endpoint chain's rule. */
export function endpointDelta(s: number, e: number, generation: number): NftOp[] {
  return [{ op: 'flushChain', chain: `ep-${s}-${e}` }, endpointRule(s, e, 8080 + (generation % 1000))];
}
