// The StatefulSet controller.
import type { Controller, ControllerContext } from '../framework.js';
import { StatefulSetController } from './controller.js';

export { StatefulSetController } from './controller.js';
export { partitionPods } from './sync.js';
export { ordinalOf, podName, podNameLabel, podIndexLabel } from './identity.js';

export function create(ctx: ControllerContext): Controller {
  return new StatefulSetController(ctx);
}
