// The Deployment controller.
import type { Controller, ControllerContext } from '../framework.js';
import { DeploymentController } from './controller.js';

export { DeploymentController } from './controller.js';
export { podTemplateHash } from './hash.js';
export { resolveFenceposts, resolveIntOrPercent, maxSurge, maxUnavailable } from './util.js';
export { newRSNewReplicas, maxScaledDown, planCleanupUnhealthy, planScaleDownOld } from './rolling.js';
export { proportionalSizes } from './scale.js';

export function create(ctx: ControllerContext): Controller {
  return new DeploymentController(ctx);
}
