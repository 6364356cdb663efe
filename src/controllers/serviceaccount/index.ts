// The ServiceAccount controller (a `default` ServiceAccount in every active namespace).
import type { ControllerContext } from '../framework.js';
import { ServiceAccountController } from './controller.js';
import { TokensController } from './tokens.js';

export { ServiceAccountController, defaultServiceAccounts } from './controller.js';
export { TokensController } from './tokens.js';

export function create(ctx: ControllerContext): ServiceAccountController {
  return new ServiceAccountController(ctx);
}

export function createTokens(ctx: ControllerContext): TokensController {
  return new TokensController(ctx);
}
