// The nftables proxy backend: keeps the table it last applied, sends only the difference;
// a full sync reads the kernel's table back first, so drift (a rule or element deleted by
// hand) is repaired by the same diff.
import { NftTable, type NftDriver } from '../../nft/index.js';
import type { ProxyConfig, ServicePortPlan } from '../model.js';
import type { ProxyBackend, SyncResult } from '../backend.js';
import { diffTables, fromTableState, opCount } from './diff.js';
import { countRulesAndElements, desiredTable, type DesiredTable } from './ruleset.js';

export const TABLE_NAME = 'capstan-proxy';

export class NftBackend implements ProxyBackend {
  readonly mode: string;
  readonly table: NftTable;
  private applied: DesiredTable | undefined;

  constructor(driver: NftDriver, private readonly cfg: ProxyConfig, netns: string | null = null, name = TABLE_NAME) {
    this.table = new NftTable(driver, { family: 'ip', name }, netns);
    this.mode = `nftables/${driver.name}`;
  }

  async sync(plans: readonly ServicePortPlan[], opts: { full: boolean }): Promise<SyncResult> {
    const desired = desiredTable(plans, this.cfg);
    if (opts.full || !this.applied) {
      const state = await this.table.tryList();
      this.applied = state ? fromTableState(state) : undefined;
    }
    let ops = diffTables(this.applied, desired);
    let rebuilt = false;
    if (ops.length) {
      try {
        await this.table.apply(ops);
      } catch {
        // The table is not what we believed (or holds something we cannot diff against):
        // replace it whole in one transaction, so Services keep answering until the commit.
        ops = [{ op: 'addTable' }, { op: 'deleteTable' }, ...diffTables(undefined, desired)];
        await this.table.apply(ops);
        rebuilt = true;
      }
    }
    this.applied = desired;
    return { operations: opCount(ops), rebuilt, ...countRulesAndElements(desired) };
  }

  async cleanup(): Promise<void> {
    await this.table.remove();
    this.applied = undefined;
  }
}
