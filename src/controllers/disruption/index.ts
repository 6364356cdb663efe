// The disruption controller: PodDisruptionBudget status (`disruption` in --controllers).
import type { Controller, ControllerContext } from '../framework.js';
import { DisruptionController } from './controller.js';

export { DisruptionController } from './controller.js';
export { budgetStatus, countHealthy, disruptedPods, expectedPods } from './budget.js';

export function create(ctx: ControllerContext): Controller {
  return new DisruptionController(ctx);
}
