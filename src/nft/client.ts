import type { NftDriver, NftOp, TableRef, TableState } from './types.js';
import { NftError } from './errors.js';

/** A driver bound to one namespace and one of capstan's tables. */
export class NftTable {
  constructor(
    readonly driver: NftDriver,
    readonly table: TableRef,
    readonly netns: string | null = null,
  ) {}

  /** One atomic transaction on this table; throws NftError (with .index) and changes nothing on failure. */
  apply(ops: NftOp[]): Promise<void> {
    return this.driver.apply(this.netns, this.table, ops);
  }

  list(): Promise<TableState> {
    return this.driver.list(this.netns, this.table);
  }

  /** The table's state, or undefined when it does not exist. */
  async tryList(): Promise<TableState | undefined> {
    try {
      return await this.list();
    } catch (e) {
      if (e instanceof NftError && e.code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** Removes the table if present ("add then delete" in one transaction never fails on absence). */
  remove(): Promise<void> {
    return this.apply([{ op: 'addTable' }, { op: 'deleteTable' }]);
  }
}
