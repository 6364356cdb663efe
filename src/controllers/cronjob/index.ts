// The CronJob controller.
import type { Controller, ControllerContext } from '../framework.js';
import { CronJobController } from './controller.js';

export { CronJobController, jobNameFor, newJob } from './controller.js';

export function create(ctx: ControllerContext): Controller {
  return new CronJobController(ctx);
}
