// The netlink half of the native addon's surface (src/nft/native.ts has the other half).
// Loaded lazily so that code paths which never touch the kernel work without a build.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { NetlinkOp, OpResult } from './types.js';

export interface NativeNetlink {
  /** Runs ops in order on a thread inside `netns`; resolves with one result per op. */
  netlinkBatch(netns: string | null, ops: NetlinkOp[], continueOnError?: boolean): Promise<OpResult[]>;
}

let cached: unknown;

/** The addon's exports (build/Release/capstan.node under the package root). */
export function loadAddon<T>(): T {
  if (cached) return cached as T;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  const require = createRequire(import.meta.url);
  cached = require(resolve(dir, 'build/Release/capstan.node'));
  return cached as T;
}
