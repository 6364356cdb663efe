// Outgoing NAT, as Calico's IP pool `natOutgoing: true`: a pod's packet to an address outside
// the pod network leaves with the node's address (masquerade), so replies find their way back
// to nodes nobody outside routes pod addresses to (the API server behind the `kubernetes`
// Service, a LAN, the internet). Pod to pod keeps its address; traffic to the node itself
// never reaches postrouting. One table of the agent's own, rebuilt only when it differs.
import { NftTable, type Expr, type NftDriver, type NftOp, type TableState } from '../nft/index.js';
import type { Logger } from '../log/index.js';
import { formatCidr, type Cidr } from './cidr.js';

export const NAT_TABLE = 'capstan-nat';
export const NAT_CHAIN = 'postrouting';
/** srcnat, like the proxy's own postrouting chain. */
const SRCNAT = 100;

/** Calico's rule: source in the pool, destination in no pool. */
export function natOutgoingRule(pool: Cidr): Expr[] {
  const prefix = formatCidr(pool);
  return [
    { kind: 'match', field: 'ip saddr', value: prefix },
    { kind: 'match', field: 'ip daddr', value: prefix, op: '!=' },
    { kind: 'masquerade' },
  ];
}

export function natTable(driver: NftDriver, netns: string | null): NftTable {
  return new NftTable(driver, { family: 'ip', name: NAT_TABLE }, netns);
}

const shape = (s: Pick<TableState, 'chains' | 'rules' | 'sets'>) => JSON.stringify({
  chains: s.chains.map(({ name, base }) => ({ name, base })),
  rules: s.rules.map(({ chain, exprs }) => ({ chain, exprs })),
  sets: s.sets.length,
});

/**
 * Makes the table hold exactly the masquerade rule for `pool` (none: the table is removed).
 * An agent restart finds it equal and changes nothing; otherwise one atomic replace.
 */
export async function syncNatOutgoing(table: NftTable, pool: Cidr | undefined, log: Logger): Promise<'unchanged' | 'installed' | 'removed'> {
  const current = await table.tryList();
  if (!pool) {
    if (!current) return 'unchanged';
    await table.remove();
    log.info('removed the outgoing NAT table', { table: NAT_TABLE });
    return 'removed';
  }
  const base = { type: 'nat', hook: 'postrouting', priority: SRCNAT, policy: 'accept' } as const;
  const exprs = natOutgoingRule(pool);
  if (current && shape(current) === shape({ chains: [{ name: NAT_CHAIN, base }], rules: [{ chain: NAT_CHAIN, handle: 0, exprs }], sets: [] })) return 'unchanged';
  const ops: NftOp[] = [
    { op: 'addTable' }, { op: 'deleteTable' }, { op: 'addTable' },
    { op: 'addChain', chain: NAT_CHAIN, base },
    { op: 'addRule', chain: NAT_CHAIN, exprs },
  ];
  await table.apply(ops);
  log.info('outgoing NAT: pods to outside the pool leave with the node\'s address', { table: NAT_TABLE, pool: formatCidr(pool) });
  return 'installed';
}
