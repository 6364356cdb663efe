// Bootstrap token controllers: the token cleaner (expired bootstrap token Secrets deleted).
import type { ControllerContext } from '../framework.js';
import { TokenCleaner } from './tokencleaner.js';

export { TokenCleaner } from './tokencleaner.js';

export function create(ctx: ControllerContext): TokenCleaner {
  return new TokenCleaner(ctx);
}
