import type { Applied, NftDriver, NftOp, TableRef, TableState } from './types.js';
import { NftError } from './errors.js';
import { fallbacks } from '../log/fallback.js';

const fallback = fallbacks('nft');

/** A driver bound to one namespace and one of capstan's tables. */
export class NftTable {
  constructor(
    readonly driver: NftDriver,
    readonly table: TableRef,
    readonly netns: string | null = null,
  ) {}

  /** One atomic transaction on this table; throws NftError (with .index) and changes nothing on failure. */
  apply(ops: NftOp[]): Promise<Applied | void> {
    return this.driver.apply(this.netns, this.table, ops);
  }

  list(): Promise<TableState> {
    return this.driver.list(this.netns, this.table);
  }

  /** The table's state, or undefined when it does not exist. `columns`: elements in columns
   *  where the driver can list them so (SetState.columns), else as elements. */
  async tryList(opts: { columns?: boolean } = {}): Promise<TableState | undefined> {
    try {
      return await (opts.columns && this.driver.listColumns ? this.driver.listColumns(this.netns, this.table) : this.list());
    } catch (e) {
      if (e instanceof NftError && e.code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** The namespace's ruleset generation, or undefined when the driver cannot tell. */
  async generation(): Promise<number | undefined> {
    return this.driver.generation ? this.driver.generation(this.netns).catch((e: unknown) => { fallback('generation-unreadable', { error: e }); return undefined; }) : undefined;
  }

  /** Removes the table if present ("add then delete" in one transaction never fails on absence). */
  async remove(): Promise<void> {
    await this.apply([{ op: 'addTable' }, { op: 'deleteTable' }]);
  }
}
