// The ServiceAccount controller (a `default` ServiceAccount in every active namespace).
import type { ControllerContext } from '../framework.js';
import { ServiceAccountController } from './controller.js';

export { ServiceAccountController, defaultServiceAccounts } from './controller.js';

export function create(ctx: ControllerContext): ServiceAccountController {
  return new ServiceAccountController(ctx);
}
