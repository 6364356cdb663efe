// The service-proxy table shape the nftables benchmark loads: a static dispatch chain with
// one verdict map keyed by `ip daddr . meta l4proto . th dport`, a chain per service that
// picks an endpoint with numgen through a verdict map, and a chain per endpoint doing the
// DNAT. No anonymous sets. Two variants of the numgen map:
//   'map-per-service': `numgen random mod N vmap @svc-S-eps`, one named map per service;
//   'shared-map':      `numgen random mod N offset S*16 vmap @endpoints`, one map in all.
import type { NftOp, KeyType } from '../src/nft/index.js';

export const DISPATCH_KEY: KeyType[] = ['ipv4_addr', 'inet_proto', 'inet_service'];

export type Shape = 'map-per-service' | 'shared-map';
const SLOT = 16; // endpoint keys per service in the shared map

export const vip = (s: number) => `10.96.${(s >> 8) & 255}.${s & 255}`;
export const endpointIp = (s: number, e: number) => `10.${64 + ((s >> 12) & 63)}.${(s >> 4) & 255}.${((s & 15) << 4) | e}`;

export function baseOps(shape: Shape): NftOp[] {
  return [
    { op: 'addTable' },
    ...(shape === 'shared-map' ? [{ op: 'addSet', set: { name: 'endpoints', keyType: ['integer'], map: 'verdict' } } as NftOp] : []),
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

export function serviceOps(s: number, endpoints: number, shape: Shape): NftOp[] {
  const shared = shape === 'shared-map';
  const map = shared ? 'endpoints' : `svc-${s}-eps`;
  const base = shared ? s * SLOT : 0;
  const ops: NftOp[] = [{ op: 'addChain', chain: `svc-${s}` }];
  if (!shared) ops.push({ op: 'addSet', set: { name: map, keyType: ['integer'], map: 'verdict' } });
  for (let e = 0; e < endpoints; e++) ops.push({ op: 'addChain', chain: `ep-${s}-${e}` }, endpointRule(s, e));
  ops.push(
    { op: 'addRule', chain: `svc-${s}`, exprs: [{ kind: 'numgenVmap', mod: endpoints, map, ...(shared ? { offset: base } : {}) }] },
    {
      op: 'addElements', set: map, keyType: ['integer'],
      elements: Array.from({ length: endpoints }, (_, e) => ({ key: [base + e], verdict: { kind: 'goto' as const, chain: `ep-${s}-${e}` } })),
    },
  );
  return ops;
}

/** The whole table for `services` services × `endpoints` endpoints, as one transaction. */
export function fullLoad(services: number, endpoints: number, shape: Shape = 'map-per-service'): NftOp[] {
  if (endpoints > SLOT) throw new RangeError(`at most ${SLOT} endpoints per service`);
  const ops = baseOps(shape);
  for (let s = 0; s < services; s++) ops.push(...serviceOps(s, endpoints, shape));
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
