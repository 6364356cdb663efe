// The nftables proxy backend: keeps the table it last applied, sends only the difference;
// a full sync reads the kernel's table back first, so drift (a rule or element deleted by
// hand) is repaired by the same diff.
import { NftTable, type NftDriver } from '../../nft/index.js';
import type { ProxyConfig, ServicePortPlan } from '../model.js';
import type { ProxyBackend, SyncResult } from '../backend.js';
import { diffTables, fromTableState, opCount } from './diff.js';
import { countRulesAndElements, desiredTable } from './ruleset.js';
import { IncrementalState } from './incremental.js';

export const TABLE_NAME = 'capstan-proxy';

export class NftBackend implements ProxyBackend {
  readonly mode: string;
  readonly table: NftTable;
  private readonly state = new IncrementalState();
  private counts: { rules: number; elements: number; chains: number } | undefined;

  constructor(driver: NftDriver, private readonly cfg: ProxyConfig, netns: string | null = null, name = TABLE_NAME) {
    this.table = new NftTable(driver, { family: 'ip', name }, netns);
    this.mode = `nftables/${driver.name}`;
  }

  async sync(plans: readonly ServicePortPlan[], opts: { full: boolean }): Promise<SyncResult> {
    if (!opts.full && this.counts) {
      const ops = this.state.step(plans);
      if (!ops.length) return { operations: 0, rebuilt: false, ...this.counts };
      try {
        await this.table.apply(ops);
      } catch {
        return this.fullSync(plans); // our picture of the kernel was wrong: read back and repair
      }
      for (const op of ops) {
        if (op.op === 'addElements') this.counts.elements += op.elements.length;
        if (op.op === 'deleteElements') this.counts.elements -= op.elements.length;
      }
      return { operations: opCount(ops), rebuilt: false, ...this.counts };
    }
    return this.fullSync(plans);
  }

  private async fullSync(plans: readonly ServicePortPlan[]): Promise<SyncResult> {
    this.counts = undefined;
    const desired = desiredTable(plans, this.cfg);
    const state = await this.table.tryList();
    let ops = diffTables(state ? fromTableState(state) : undefined, desired);
    let rebuilt = false;
    if (ops.length) {
      try {
        await this.table.apply(ops);
      } catch {
        // The table holds something we cannot diff against: replace it whole in one
        // transaction, so Services keep answering until the commit.
        ops = [{ op: 'addTable' }, { op: 'deleteTable' }, ...diffTables(undefined, desired)];
        await this.table.apply(ops);
        rebuilt = true;
      }
    }
    this.state.reset(plans);
    this.counts = countRulesAndElements(desired);
    return { operations: opCount(ops), rebuilt, ...this.counts };
  }

  async cleanup(): Promise<void> {
    await this.table.remove();
    this.counts = undefined;
  }
}
