// Public face of capstan's nftables layer: the typed rule vocabulary, atomic transactions
// on capstan's own tables, and read-back in the same vocabulary. Pick the driver once.
import { AddonNft } from './addon.js';
import { FakeNft } from './fake.js';
import { NftCommand } from './nft-command.js';
import type { NftDriver } from './types.js';

export type NftImplementation = 'addon' | 'nft' | 'fake';

export function createNftDriver(impl: NftImplementation): NftDriver {
  switch (impl) {
    case 'addon': return new AddonNft();
    case 'nft': return new NftCommand();
    case 'fake': return new FakeNft();
  }
}

export { AddonNft, FakeNft, NftCommand };
export { NftTable } from './client.js';
export { reAddUpdatesExpiry } from './expiry-probe.js';
export { NftError } from './errors.js';
export { renderScript } from './render.js';
export { compileOps } from './compile.js';
export * from './types.js';
export { ColumnReader, type ElementColumns } from './columns.js';
