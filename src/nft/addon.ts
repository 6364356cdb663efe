import { compileOp } from './compile.js';
import { decompileTable } from './decompile.js';
import { NftError } from './errors.js';
import { FAMILY } from './encoding.js';
import { nativeNft, type NativeNft } from './native.js';
import type { Applied, NftDriver, NftOp, TableMonitor, TableRef, TableState } from './types.js';
import { WireEncoder } from './wire.js';

const MONITOR_RECEIVE_BYTES = 256 * 1024 * 1024;

/** nftables through the native addon: one netlink batch per transaction, no text parsing. */
export class AddonNft implements NftDriver {
  readonly name = 'addon';
  private readonly native: NativeNft = nativeNft();
  private readonly wire = new WireEncoder(this.native.nftSchema());

  async apply(netns: string | null, table: TableRef, ops: NftOp[]): Promise<Applied> {
    const encoded = this.wire.encodeEach(ops, (op) => compileOp(table, op));
    try {
      const r = await this.native.nftApply(netns, encoded);
      return { generation: (r.generationBefore + 1) >>> 0 };
    } catch (e) {
      throw wrap(e);
    }
  }

  async generation(netns: string | null): Promise<number> {
    try {
      return await this.native.nftGeneration(netns);
    } catch (e) {
      throw wrap(e);
    }
  }

  /** Big enough for the notifications of our own largest transactions between two drains
   *  (one per element: a full load of 30,000 Services is ~330,000); beyond it the monitor
   *  reports `lost` and the caller reads the table back, which is only slower. */
  monitor(netns: string | null, table: TableRef): TableMonitor {
    try {
      return new this.native.NftMonitor(netns, FAMILY[table.family], table.name, MONITOR_RECEIVE_BYTES);
    } catch (e) {
      throw wrap(e);
    }
  }

  async listColumns(netns: string | null, table: TableRef): Promise<TableState> {
    try {
      const r = await this.native.nftList(netns, FAMILY[table.family], table.name, true);
      const st = decompileTable(JSON.parse(r.json));
      st.sets.forEach((s, i) => { s.columns = r.sets[i]; });
      return st;
    } catch (e) {
      throw wrap(e);
    }
  }

  async list(netns: string | null, table: TableRef): Promise<TableState> {
    try {
      return decompileTable(JSON.parse(await this.native.nftList(netns, FAMILY[table.family], table.name)));
    } catch (e) {
      throw wrap(e);
    }
  }
}

function wrap(e: unknown): unknown {
  const x = e as { message?: string; errno?: number; code?: string; index?: number };
  if (e instanceof TypeError || typeof x?.errno !== 'number') return e;
  return new NftError(x.message ?? 'nftables error', x.errno, x.code ?? 'EUNKNOWN', x.index);
}
