// The Endpoints controller (core/v1 Endpoints for Services with selectors).
import type { ControllerContext } from '../framework.js';
import { EndpointsController } from './controller.js';

export { EndpointsController } from './controller.js';
export { desiredSubsets, type EndpointSubset, type EndpointAddress } from './subsets.js';

export function create(ctx: ControllerContext): EndpointsController {
  return new EndpointsController(ctx);
}
