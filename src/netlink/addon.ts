import { loadAddon, type NativeNetlink } from './native.js';
import type { BatchOptions, NetlinkDriver, NetlinkOp, NetnsPath, OpResult } from './types.js';

/** rtnetlink through the native addon: one call per batch, work on a thread in the netns. */
export class AddonNetlink implements NetlinkDriver {
  readonly name = 'addon';
  private readonly native = loadAddon<NativeNetlink>();

  batch(netns: NetnsPath, ops: NetlinkOp[], options: BatchOptions = {}): Promise<OpResult[]> {
    return this.native.netlinkBatch(netns, ops, options.continueOnError ?? false);
  }
}
