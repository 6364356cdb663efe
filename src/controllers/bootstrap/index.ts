// Bootstrap token controllers: the token cleaner (expired bootstrap token Secrets deleted) and
// the bootstrap signer (cluster-info signed with each signing token).
import type { ControllerContext } from '../framework.js';
import { TokenCleaner } from './tokencleaner.js';
import { BootstrapSigner } from './signer.js';

export { TokenCleaner } from './tokencleaner.js';
export { BootstrapSigner } from './signer.js';

export function createSigner(ctx: ControllerContext): BootstrapSigner {
  return new BootstrapSigner(ctx);
}

export function create(ctx: ControllerContext): TokenCleaner {
  return new TokenCleaner(ctx);
}
