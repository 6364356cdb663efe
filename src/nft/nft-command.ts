import { execa } from 'execa';
import { NftError, codeFromNftMessage, errnoOf } from './errors.js';
import { tableFromNftJson } from './nft-json.js';
import { renderScript } from './render.js';
import type { NftDriver, NftOp, TableRef, TableState } from './types.js';

/**
 * The fallback driver: renders the transaction as an `nft -f` script (nft applies a file as
 * one transaction) and reads back with `nft -j list table`. Also the benchmarks' baseline.
 */
export class NftCommand implements NftDriver {
  readonly name = 'nft';

  /** timeoutMs: kill an `nft` that runs longer (its transaction is then not applied). */
  constructor(private readonly options: { timeoutMs?: number } = {}) {}

  async apply(netns: string | null, table: TableRef, ops: NftOp[]): Promise<void> {
    if (!ops.length) return;
    const script = renderScript(table, ops);
    const res = await execa(...argv(netns, ['-f', '-']), { input: script, reject: false, timeout: this.options.timeoutMs });
    if (res.timedOut) throw new NftError(`nft -f timed out after ${this.options.timeoutMs} ms`, errnoOf('ETIMEDOUT'), 'ETIMEDOUT');
    if (res.exitCode === 0) return;
    const stderr = String(res.stderr);
    const line = /^[^\n]*?:(\d+):\d+/m.exec(stderr);
    const index = line ? Number(line[1]) - 1 : undefined;
    const code = codeFromNftMessage(stderr);
    throw new NftError(stderr.split('\n')[0] ?? 'nft failed', errnoOf(code), code, index);
  }

  async list(netns: string | null, table: TableRef): Promise<TableState> {
    const res = await execa(...argv(netns, ['-j', 'list', 'table', table.family, table.name]), { reject: false, timeout: this.options.timeoutMs, maxBuffer: 1 << 30 });
    if (res.exitCode !== 0) {
      const code = codeFromNftMessage(String(res.stderr));
      throw new NftError(String(res.stderr).split('\n')[0] ?? 'nft list failed', errnoOf(code), code);
    }
    return tableFromNftJson(JSON.parse(String(res.stdout)), table.family, table.name);
  }
}

function argv(netns: string | null, args: string[]): [string, string[]] {
  return netns ? ['nsenter', [`--net=${netns}`, 'nft', ...args]] : ['nft', args];
}
