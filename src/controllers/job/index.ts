// The Job controller.
import type { Controller, ControllerContext } from '../framework.js';
import { JobController } from './controller.js';

export { JobController } from './controller.js';

export function create(ctx: ControllerContext): Controller {
  return new JobController(ctx);
}
