// The TTL-after-finished controller.
import type { Controller, ControllerContext } from '../framework.js';
import { TTLAfterFinishedController } from './controller.js';

export { TTLAfterFinishedController, msUntilExpiry } from './controller.js';

export function create(ctx: ControllerContext): Controller {
  return new TTLAfterFinishedController(ctx);
}
