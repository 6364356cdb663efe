// The ReplicaSet controller, and the owner-reference and pod helpers the Deployment
// controller shares with it.
import type { Controller, ControllerContext } from '../framework.js';
import { ReplicaSetController } from './controller.js';

export { ReplicaSetController, slowStartBatch, burstReplicas } from './controller.js';
export { Expectations } from './expectations.js';
export { claim, controllerRef, newControllerRef } from './controller-ref.js';
export { isPodActive, isPodReady, isPodAvailable, deletionOrder } from './pod-util.js';

export function create(ctx: ControllerContext): Controller {
  return new ReplicaSetController(ctx);
}
