// The DaemonSet controller.
import type { Controller, ControllerContext } from '../framework.js';
import { DaemonSetController } from './controller.js';

export { DaemonSetController } from './controller.js';
export { plan, surgeAndUnavailable } from './plan.js';
export { placement, daemonPodTolerations, targetNode } from './predicates.js';

export function create(ctx: ControllerContext): Controller {
  return new DaemonSetController(ctx);
}
